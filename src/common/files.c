/*
 * files.c: opening the files kvplan reads (config.json, safetensors
 * headers, their index) so that nothing blocks: a FIFO, a device or a
 * directory where a file is expected is refused at once, never read.
 */
#include "common/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *kvplan__open_regular(const char *path, bool *not_regular)
{
    *not_regular = false;
    /* O_NONBLOCK: opening a FIFO with no writer returns at once */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        *not_regular = true;
        close(fd);
        errno = EINVAL;
        return NULL;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (f == NULL)
        close(fd);
    return f;
}
