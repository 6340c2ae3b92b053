/*
 * replay.c: runs a fuzz target over its corpus without libFuzzer, so the
 * corpus (crash regressions included) is a plain CTest test under gcc and
 * the sanitizers.
 *
 *   fuzz_replay_TARGET PATH...   each file, or each file of a directory
 *                                (one level; a subdirectory's config.json
 *                                too), is one input
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int inputs;

static void run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf != NULL) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        uint8_t *g = realloc(buf, cap * 2);
        if (g == NULL)
            break;
        buf = g;
        cap *= 2;
    }
    fclose(f);
    if (buf != NULL) {
        LLVMFuzzerTestOneInput(buf, n);
        inputs++;
    }
    free(buf);
}

static void run_path(const char *path, int depth)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return;
    if (S_ISREG(sb.st_mode)) {
        run_file(path);
        return;
    }
    if (!S_ISDIR(sb.st_mode) || depth > 1)
        return;
    DIR *d = opendir(path);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char child[4096];
        snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        if (depth == 1) { /* data/models/NAME/config.json */
            if (strcmp(e->d_name, "config.json") == 0)
                run_file(child);
            continue;
        }
        run_path(child, depth + 1);
    }
    if (d != NULL)
        closedir(d);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        run_path(argv[i], 0);
    printf("%d passed, 0 failed\n", inputs);
    return inputs > 0 ? 0 : 1;
}
