/*
 * cache.c: the Hub cache as kvplan reads and fills it (docs/hub.md):
 *
 *   {cache}/models--{org}--{name}/refs/{revision}         the commit
 *   {cache}/models--{org}--{name}/snapshots/{commit}/config.json
 *                                  .../model.safetensors.index.json
 *                                  .../{shard}.kvplan-header
 *                                  .../.kvplan-complete   written last
 *
 * A snapshot is complete or absent. A fetch writes its files into a
 * folder of its own (mkdtemp beside snapshots/, each file created with
 * O_EXCL | O_NOFOLLOW), then renames them into the snapshot one by one,
 * the marker last and the ref after it: a reader sees a snapshot only once
 * its marker is there, whatever failed half-way, and writers of the same
 * snapshot (threads, processes) each rename whole files of the same
 * content, so the first and the last both leave it whole. The marker holds
 * the weights' summary (kvplan__weights_summary_json), which a cached run
 * reads instead of the index and every header. A snapshot huggingface-cli
 * downloaded counts when its files are all there.
 */
#include "hub/hub.h"

#include "budget/budget.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_INDEX_BYTES (32u << 20)
#define MAX_SHARDS 4096

void kvplan__hub_repo_init(kvplan__hub_repo *r, const char *id,
                           const char *revision, const char *cache)
{
    r->id = id;
    r->revision = revision;
    r->folder[0] = '\0';
    if (cache == NULL || cache[0] == '\0')
        return;
    const char *slash = strchr(id, '/');
    snprintf(r->folder, sizeof r->folder, "%.3500s/models--%.*s--%s", cache,
             (int)(slash - id), id, slash + 1);
}

static bool is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* A small file's whole text (at most max bytes), never blocking. */
static char *slurp(const char *path, size_t max, size_t *len)
{
    bool special;
    FILE *f = kvplan__open_regular(path, &special);
    if (f == NULL)
        return NULL;
    struct stat sb;
    char *text = NULL;
    if (fstat(fileno(f), &sb) == 0 && sb.st_size >= 0 &&
        (uint64_t)sb.st_size <= max &&
        (text = malloc((size_t)sb.st_size + 1)) != NULL) {
        *len = fread(text, 1, (size_t)sb.st_size, f);
        text[*len] = '\0';
    }
    fclose(f);
    return text;
}

/* A ref: the first word of refs/{revision}, a commit's form; false when
 * absent or not one (a FIFO is never opened for reading). */
static bool read_ref(const char *path, char *out, size_t size)
{
    size_t len = 0;
    char *text = slurp(path, 4096, &len);
    if (text == NULL)
        return false;
    text[strcspn(text, "\r\n \t")] = '\0';
    bool ok = kvplan__hub_revision_ok(text) && strlen(text) < size;
    if (ok)
        snprintf(out, size, "%s", text);
    free(text);
    return ok;
}

/* A snapshot huggingface-cli downloaded: config.json beside
 * model.safetensors, or beside an index whose shards are all there. */
static bool downloaded(const char *dir, const char *id)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    if (is_file(path))
        return true;
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
    size_t len = 0;
    char *text = slurp(path, MAX_INDEX_BYTES, &len);
    if (text == NULL)
        return false;
    const char **names = malloc(MAX_SHARDS * sizeof *names);
    json_t *index = NULL;
    size_t n = 0;
    bool ok = names != NULL &&
              kvplan__hub_index_shards(id, text, len, &index, names, MAX_SHARDS,
                                       &n, NULL) == KVPLAN_OK;
    for (size_t i = 0; ok && i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        ok = is_file(path);
    }
    json_decref(index);
    free(names);
    free(text);
    return ok;
}

bool kvplan__hub_cached(const kvplan__hub_repo *r, kvplan_hub_result *out)
{
    char path[4400], commit[KVPLAN__HUB_MAX_COMMIT + 1];
    if (r->folder[0] == '\0')
        return false;
    snprintf(path, sizeof path, "%s/refs/%s", r->folder, r->revision);
    if (!read_ref(path, commit, sizeof commit))
        snprintf(commit, sizeof commit, "%s", r->revision);
    snprintf(out->dir, sizeof out->dir, "%.3800s/snapshots/%s", r->folder,
             commit);
    snprintf(path, sizeof path, "%s/config.json", out->dir);
    if (!is_file(path))
        return false;
    snprintf(out->commit, sizeof out->commit, "%s", commit);
    snprintf(path, sizeof path, "%s/.kvplan-complete", out->dir);
    return is_file(path) || downloaded(out->dir, r->id);
}

/* ---- filling it ---------------------------------------------------------- */

/* mkdir -p */
static bool make_dirs(const char *path)
{
    char p[4096];
    if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p)
        return false;
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            if (mkdir(p, 0755) != 0 && errno != EEXIST)
                return false;
            *s = '/';
        }
    return mkdir(p, 0755) == 0 || errno == EEXIST;
}

static kvplan_status cannot(const kvplan__hub_repo *r, const char *what,
                            const char *path, kvplan_error *err)
{
    return kvplan__fail(err, KVPLAN_IO, "--model-path",
                        "%s: cannot %s %.300s in the Hub cache: %s (set "
                        "HF_HUB_CACHE to a folder kvplan may write)",
                        r->id, what, path, strerror(errno));
}

kvplan_status kvplan__hub_stage_open(const kvplan__hub_repo *r,
                                     kvplan__hub_stage *s, kvplan_error *err)
{
    s->dir[0] = '\0';
    KVPLAN__FAIL_IF(r->folder[0] == '\0', err, KVPLAN_INVALID_ARGUMENT,
                    "cache_dir",
                    "%s: kvplan_hub_fetch needs a cache folder to keep what "
                    "it reads",
                    r->id);
    if (!make_dirs(r->folder))
        return cannot(r, "make", r->folder, err);
    snprintf(s->dir, sizeof s->dir, "%.3800s/.kvplan-XXXXXX", r->folder);
    if (mkdtemp(s->dir) == NULL) {
        kvplan_status st = cannot(r, "make a folder in", r->folder, err);
        s->dir[0] = '\0';
        return st;
    }
    return KVPLAN_OK;
}

kvplan_status kvplan__hub_stage_put(const kvplan__hub_stage *s,
                                    const kvplan__hub_repo *r, const char *name,
                                    const void *data, size_t len,
                                    kvplan_error *err)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", s->dir, name);
    int fd =
        open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return cannot(r, "write", path, err);
    const char *p = data;
    size_t left = len;
    while (left > 0) {
        ssize_t k = write(fd, p, left);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        p += k;
        left -= (size_t)k;
    }
    bool ok = left == 0;
    ok &= close(fd) == 0;
    if (!ok) {
        kvplan_status st = cannot(r, "write", path, err);
        unlink(path);
        return st;
    }
    return KVPLAN_OK;
}

void kvplan__hub_stage_abort(kvplan__hub_stage *s)
{
    if (s->dir[0] == '\0')
        return;
    DIR *d = opendir(s->dir);
    struct dirent *e;
    char path[4400];
    while (d != NULL && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            snprintf(path, sizeof path, "%s/%s", s->dir, e->d_name);
            unlink(path);
        }
    if (d != NULL)
        closedir(d);
    rmdir(s->dir);
    s->dir[0] = '\0';
}

/* Renames every staged file but the marker into `to`. */
static bool move_all(const char *from, const char *to)
{
    DIR *d = opendir(from);
    if (d == NULL)
        return false;
    struct dirent *e;
    char a[4400], b[4400];
    bool ok = true;
    while (ok && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(a, sizeof a, "%s/%s", from, e->d_name);
        snprintf(b, sizeof b, "%s/%s", to, e->d_name);
        ok = rename(a, b) == 0;
    }
    closedir(d);
    return ok;
}

kvplan_status kvplan__hub_stage_commit(kvplan__hub_stage *s,
                                       const kvplan__hub_repo *r,
                                       kvplan_hub_result *out,
                                       kvplan_error *err)
{
    kvplan__weights_summary sum;
    kvplan_error why;
    kvplan_status st = kvplan__weights_measure(s->dir, &sum, &why);
    KVPLAN__FAIL_IF(st != KVPLAN_OK && st != KVPLAN_IO, err, st, "--model-path",
                    "%s: %s", r->id, why.message);
    if (st == KVPLAN_IO)
        memset(&sum, 0, sizeof sum); /* no weights: none summed */
    char *marker = kvplan__weights_summary_json(&sum, out->commit);
    KVPLAN__FAIL_IF(marker == NULL, err, KVPLAN_NOMEM, NULL, "out of memory");
    st = kvplan__hub_stage_put(s, r, ".kvplan-complete", marker, strlen(marker),
                               err);
    free(marker);
    KVPLAN__TRY(st);
    /* the ref, staged too: it is renamed after the marker */
    KVPLAN__TRY(kvplan__hub_stage_put(s, r, ".ref", out->commit,
                                      strlen(out->commit), err));
    snprintf(out->dir, sizeof out->dir, "%.3800s/snapshots/%s", r->folder,
             out->commit);
    char from[4400], to[4400];
    if (!make_dirs(out->dir))
        return cannot(r, "make", out->dir, err);
    if (!move_all(s->dir, out->dir))
        return cannot(r, "move files into", out->dir, err);
    snprintf(from, sizeof from, "%s/.kvplan-complete", s->dir);
    snprintf(to, sizeof to, "%s/.kvplan-complete", out->dir);
    if (rename(from, to) != 0)
        return cannot(r, "write", to, err);
    snprintf(to, sizeof to, "%s/refs", r->folder);
    if (!make_dirs(to))
        return cannot(r, "make", to, err);
    snprintf(from, sizeof from, "%s/.ref", s->dir);
    snprintf(to, sizeof to, "%s/refs/%s", r->folder, r->revision);
    if (rename(from, to) != 0)
        return cannot(r, "write", to, err);
    kvplan__hub_stage_abort(s); /* the folder, empty now */
    return KVPLAN_OK;
}
