/*
 * test_hub.c: models from a Hub-shaped server (src/hub/, src/options/load.c),
 * with no network beyond loopback. A server thread here serves a tree built
 * from the project's test models, with generated safetensors shards
 * (sparse files: the weights' bytes are never there), on 127.0.0.1; it
 * counts what it serves, on connections it keeps open as the Hub does.
 * The tests check that the plan of a fetched model is the local folder's,
 * that only range reads touched the shards, that one fetch reuses its
 * connections, that the cache is written and used offline, and the errors
 * of a gated repo, a missing one, a server error, a timeout, a server that
 * ignores ranges and an oversized header; then every hostile behaviour of
 * the reliability review (docs/hub.md, "Hostile servers and caches":
 * ../shared/design/reliability-review-3.md R2-R13, R16, R17), each named
 * where it is checked; then the command's own acceptance.
 */
#include "check.h"
#include "hub/hub.h"
#include "kvplan.h"

#include <arpa/inet.h>
#include <math.h>
#include <errno.h>
#include <jansson.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef KVPLAN_TEST_CONFIG
#error "KVPLAN_TEST_CONFIG: a config.json of the catalog"
#endif

static char root[256]; /* the served tree: ROOT/org/name/file */
static int port;
static int listener;
static _Atomic int stopping;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* what the server saw, read by the tests while it serves (atomic) */
static _Atomic long requests;    /* answered */
static _Atomic long shard_bytes; /* of *.safetensors, body bytes served */
static _Atomic long shard_reads; /* range requests on shards */
static _Atomic long whole_shard; /* requests for a whole shard */
static _Atomic long connections; /* accepted */
static _Atomic long injected;    /* requests that carried an injected header */

static char endpoint[64]; /* http://127.0.0.1:PORT */

#define COMMIT_MAIN "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

/* ---- the tree -------------------------------------------------------------
 */

static void put(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f == NULL)
        return;
    CHECK(fwrite(data, 1, len, f) == len);
    fclose(f);
}

static void copy(const char *from, const char *to)
{
    FILE *f = fopen(from, "rb");
    CHECK(f != NULL);
    if (f == NULL)
        return;
    char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    put(to, buf, n);
}

/* A shard of tensors `names` of BF16 [rows, 4096] each, sparse: the 8-byte
 * length and the header written, the data a hole. A header length of
 * `fake_len` (when not 0) instead of the real one. */
static int64_t shard(const char *path, const char *const *names, size_t n,
                     int64_t rows, uint64_t fake_len)
{
    static char hdr[1 << 20];
    size_t k = (size_t)snprintf(hdr, sizeof hdr, "{");
    int64_t off = 0, each = rows * 4096 * 2;
    for (size_t i = 0; i < n; i++) {
        k += (size_t)snprintf(hdr + k, sizeof hdr - k,
                              "%s\"%s\": {\"dtype\": \"BF16\", \"shape\": "
                              "[%lld, 4096], \"data_offsets\": [%lld, %lld]}",
                              i ? ", " : "", names[i], (long long)rows,
                              (long long)off, (long long)(off + each));
        off += each;
    }
    k += (size_t)snprintf(hdr + k, sizeof hdr - k, "}");
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f == NULL)
        return 0;
    uint64_t len = fake_len ? fake_len : k;
    unsigned char len8[8];
    for (int i = 0; i < 8; i++)
        len8[i] = (unsigned char)(len >> (8 * i));
    fwrite(len8, 1, 8, f);
    fwrite(hdr, 1, k, f);
    CHECK(ftruncate(fileno(f), (off_t)(8 + k) + off) == 0);
    fclose(f);
    return off;
}

static void repo(const char *org, const char *name, bool index,
                 uint64_t fake_len)
{
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/%s", root, org);
    mkdir(dir, 0755);
    snprintf(dir, sizeof dir, "%s/%s/%s", root, org, name);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/config.json", dir);
    copy(KVPLAN_TEST_CONFIG, path);
    static const char *const a[] = {"model.embed_tokens.weight",
                                    "lm_head.weight"};
    static const char *const b[] = {"model.layers.0.mlp.up_proj.weight",
                                    "model.layers.0.mlp.down_proj.weight",
                                    "model.layers.0.mlp.gate_proj.weight"};
    if (!index) {
        snprintf(path, sizeof path, "%s/model.safetensors", dir);
        shard(path, a, 2, 128256, fake_len);
        return;
    }
    snprintf(path, sizeof path, "%s/model-00001-of-00002.safetensors", dir);
    int64_t total = shard(path, a, 2, 128256, fake_len);
    snprintf(path, sizeof path, "%s/model-00002-of-00002.safetensors", dir);
    total += shard(path, b, 3, 14336, 0);
    char text[1024];
    int n = snprintf(
        text, sizeof text,
        "{\"metadata\": {\"total_size\": %lld}, \"weight_map\": {"
        "\"model.embed_tokens.weight\": \"model-00001-of-00002.safetensors\", "
        "\"lm_head.weight\": \"model-00001-of-00002.safetensors\", "
        "\"model.layers.0.mlp.up_proj.weight\": "
        "\"model-00002-of-00002.safetensors\", "
        "\"model.layers.0.mlp.down_proj.weight\": "
        "\"model-00002-of-00002.safetensors\", "
        "\"model.layers.0.mlp.gate_proj.weight\": "
        "\"model-00002-of-00002.safetensors\"}}",
        (long long)total);
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
    put(path, text, (size_t)n);
}

/* ---- the server -----------------------------------------------------------
 */

#define LONG_COMMIT                                                            \
    "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"

static void answer(int fd, int status, const char *extra, const char *body,
                   size_t len)
{
    char head[1024];
    const char *what = status == 200   ? "OK"
                       : status == 206 ? "Partial Content"
                       : status == 302 ? "Found"
                       : status == 401 ? "Unauthorized"
                       : status == 404 ? "Not Found"
                                       : "Internal Server Error";
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %d %s\r\nContent-Length: %zu\r\n%s\r\n", status,
                     what, len, extra ? extra : "");
    if (write(fd, head, (size_t)n) < 0 || (len && write(fd, body, len) < 0))
        return;
}

/* A body made here: config.json of 5 MiB, an HTML page, JSON then junk. */
static bool made_body(int fd, const char *org, const char *file,
                      const char *extra)
{
    if (strcmp(file, "config.json") != 0)
        return false;
    if (strcmp(org, "bigconfig") == 0) { /* R6 */
        size_t n = 5u << 20;
        char *b = malloc(n);
        memset(b, ' ', n);
        b[0] = '{', b[n - 1] = '}';
        answer(fd, 200, extra, b, n);
        free(b);
        return true;
    }
    static const char html[] = "<html><body>Sign in to the Wi-Fi</body></html>";
    static const char junk[] = "{\"model_type\": \"llama\"}\njunk";
    if (strcmp(org, "html") == 0 || strcmp(org, "junk") == 0) {
        bool h = org[0] == 'h';
        answer(fd, 200, extra, h ? html : junk,
               h ? sizeof html - 1 : sizeof junk - 1);
        return true;
    }
    return false;
}

/* One request of a connection; false when the connection ends. */
static bool serve(int fd)
{
    char req[8192];
    size_t n = 0;
    req[0] = '\0';
    while (n < sizeof req - 1 && strstr(req, "\r\n\r\n") == NULL) {
        ssize_t r = read(fd, req + n, sizeof req - 1 - n);
        if (r <= 0)
            return false;
        n += (size_t)r;
        req[n] = '\0';
    }
    char path[1024] = "";
    sscanf(req, "GET %1023s", path);
    char org[128] = "", name[128] = "", rev[128] = "", file[256] = "";
    sscanf(path, "/%127[^/]/%127[^/]/resolve/%127[^/]/%255s", org, name, rev,
           file);
    long first = -1, last = -1;
    const char *range = strstr(req, "Range: bytes=");
    if (range != NULL)
        sscanf(range, "Range: bytes=%ld-%ld", &first, &last);
    bool shard =
        strstr(file, ".safetensors") != NULL && strstr(file, ".json") == NULL;
    pthread_mutex_lock(&lock);
    requests++;
    if (shard && range != NULL)
        shard_reads++;
    else if (shard)
        whole_shard++;
    if (strstr(req, "\r\nX-Injected:") != NULL)
        injected++;
    pthread_mutex_unlock(&lock);
    char extra[256];
    snprintf(extra, sizeof extra, "X-Repo-Commit: %s\r\n",
             strcmp(org, "longcommit") == 0 ? LONG_COMMIT
             : strcmp(rev, "main") == 0
                 ? COMMIT_MAIN
                 : "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
    if (strcmp(org, "gated") == 0 &&
        strstr(req, "Authorization: Bearer hub-test-token") == NULL) {
        answer(fd, 401, NULL, "", 0);
        return true;
    }
    if (strcmp(org, "broken") == 0 || (strcmp(org, "partial") == 0 && shard)) {
        answer(fd, 500, NULL, "", 0); /* partial: R5 */
        return true;
    }
    if (strcmp(org, "slow") == 0)
        sleep(2);
    char loc[1024];
    if (strcmp(org, "moved") == 0 || strcmp(org, "ftp") == 0 ||
        strcmp(org, "elsewhere") == 0) {
        /* R11: only http(s) on the endpoint's host is followed */
        char to[64] = ""; /* moved: a path on the same host */
        if (org[0] != 'm')
            snprintf(to, sizeof to, "%s:%d",
                     org[0] == 'f' ? "ftp://127.0.0.1" : "http://localhost",
                     port);
        snprintf(loc, sizeof loc, "Location: %s/testorg/%s/resolve/%s/%s\r\n",
                 to, name, rev, file);
        answer(fd, 302, loc, "", 0);
        return true;
    }
    if (made_body(fd, org, file, extra))
        return true;
    const char *dir = strcmp(org, "gated") == 0 || strcmp(org, "slow") == 0 ||
                              strcmp(org, "norange") == 0 ||
                              strcmp(org, "partial") == 0 ||
                              strcmp(org, "longcommit") == 0
                          ? "testorg"
                          : org;
    char local[1024];
    snprintf(local, sizeof local, "%s/%s/%s/%s", root, dir, name, file);
    FILE *f = strstr(file, "..") ? NULL : fopen(local, "rb");
    if (f == NULL) {
        answer(fd, 404, extra, "Entry not found", 15);
        return true;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    if (strcmp(org, "norange") == 0)
        range = NULL; /* a server that ignores ranges: the whole file */
    long from = 0, to = size - 1;
    int status = 200;
    if (range != NULL && first >= 0) {
        from = first;
        to = last >= 0 && last < size ? last : size - 1;
        status = 206;
        size_t k = strlen(extra);
        snprintf(extra + k, sizeof extra - k,
                 "Content-Range: bytes %ld-%ld/%ld\r\n", from, to, size);
    }
    size_t len = to >= from ? (size_t)(to - from + 1) : 0;
    char head[512];
    int hn = snprintf(head, sizeof head,
                      "HTTP/1.1 %d %s\r\nContent-Length: %zu\r\n%s\r\n", status,
                      status == 206 ? "Partial Content" : "OK", len, extra);
    if (write(fd, head, (size_t)hn) < 0) {
        fclose(f);
        return false;
    }
    fseek(f, from, SEEK_SET);
    char buf[1 << 16];
    size_t sent = 0;
    while (sent < len) {
        size_t want = len - sent < sizeof buf ? len - sent : sizeof buf;
        size_t got = fread(buf, 1, want, f);
        if (got == 0 || write(fd, buf, got) < 0)
            break;
        sent += got;
    }
    fclose(f);
    if (shard) {
        pthread_mutex_lock(&lock);
        shard_bytes += (long)sent;
        pthread_mutex_unlock(&lock);
    }
    return sent == len;
}

/* A connection, kept open for the client's next request (as the Hub's). */
static void *connection(void *arg)
{
    int fd = (int)(intptr_t)arg;
    while (!stopping && serve(fd))
        ;
    shutdown(fd, SHUT_WR);
    close(fd);
    return NULL;
}

static void *server(void *arg)
{
    (void)arg;
    while (!stopping) {
        int fd = accept(listener, NULL, NULL);
        if (fd < 0)
            continue;
        pthread_mutex_lock(&lock);
        connections++;
        pthread_mutex_unlock(&lock);
        pthread_t t;
        if (pthread_create(&t, NULL, connection, (void *)(intptr_t)fd) == 0)
            pthread_detach(t);
        else
            close(fd);
    }
    return NULL;
}

static void start_server(void)
{
    listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    CHECK(bind(listener, (struct sockaddr *)&a, sizeof a) == 0);
    CHECK(listen(listener, 64) == 0);
    socklen_t len = sizeof a;
    getsockname(listener, (struct sockaddr *)&a, &len);
    port = ntohs(a.sin_port);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, server, NULL) == 0);
    pthread_detach(t);
}

/* ---- the tests ------------------------------------------------------------
 */

static char cache[300];

static kvplan_hub_options options(void)
{
    kvplan_hub_options o;
    kvplan_hub_options_init(&o);
    o.endpoint = endpoint;
    o.cache_dir = cache;
    o.timeout_s = 5;
    o.retries = 2;
    return o;
}

/* The plan of a folder (tokens and measured weights), at TP 1 on an H200. */
static int64_t tokens_of(const char *dir, int64_t *weights)
{
    kvplan_model *m = NULL;
    kvplan_plan *p = malloc(sizeof *p);
    kvplan_plan_options o;
    kvplan_plan_options_init(&o);
    o.gpu_set = kvplan_gpu_preset("H200", &o.gpu);
    int64_t t = -1;
    *weights = -1;
    if (kvplan_model_load(dir, &m, NULL) == KVPLAN_OK &&
        kvplan_weights_from_dir(dir, weights, NULL) == KVPLAN_OK) {
        o.weight_bytes = (kvplan_opt_int){*weights, true};
        if (kvplan_plan_compute(m, &o, p, NULL) == KVPLAN_OK)
            t = p->max_total_num_tokens;
    }
    kvplan_model_free(m);
    free(p);
    return t;
}

/* A snapshot as huggingface-cli download leaves it (the shards
 * themselves, linked from blobs/): read from the cache, no request. */
static void test_downloaded(void)
{
    char d[400], path[800], cmd[8192];
    snprintf(d, sizeof d, "%s/models--testorg--downloaded", cache);
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s/refs %s/blobs %s/snapshots/cccc && "
             "printf cccc > %s/refs/main && "
             "cp %s/testorg/single/config.json %s/blobs/c1 && "
             "cp --sparse=always %s/testorg/single/model.safetensors "
             "%s/blobs/s1 && "
             "ln -s ../../blobs/c1 %s/snapshots/cccc/config.json && "
             "ln -s ../../blobs/s1 %s/snapshots/cccc/model.safetensors",
             d, d, d, d, root, d, root, d, d, d);
    CHECK_INT(system(cmd), 0);
    kvplan_hub_options o = options();
    o.endpoint = "http://127.0.0.1:1"; /* nothing there: never asked */
    kvplan_hub_result r;
    kvplan_error err;
    long before = requests;
    CHECK_INT(kvplan_hub_fetch("testorg/downloaded", &o, &r, &err), KVPLAN_OK);
    CHECK(r.from_cache);
    CHECK_STR(r.commit, "cccc");
    CHECK_INT(requests, before);
    snprintf(path, sizeof path, "%s/testorg/single", root);
    int64_t w1, w2;
    CHECK_INT(tokens_of(r.dir, &w2), tokens_of(path, &w1));
    CHECK_INT(w2, w1);
}

#ifndef KVPLAN_TEST_NO_CURL
static void test_fetch(void)
{
    kvplan_hub_options o = options();
    kvplan_hub_result r;
    kvplan_error err;
    long before = requests, conns = connections;
    CHECK_INT(kvplan_hub_fetch("testorg/tiny-llama", &o, &r, &err), KVPLAN_OK);
    CHECK(!r.from_cache);
    CHECK_STR(r.commit, COMMIT_MAIN);
    CHECK_INT(r.files, 4); /* config, index, two headers */
    /* config, index, hf_quant_config (404), two ranges per header, over
     * at most two connections: the first request's, and a second for
     * the two asked together */
    CHECK_INT(requests - before, 7);
    CHECK(connections - conns <= 2);
    CHECK_INT(whole_shard, 0);
    CHECK_INT(shard_reads, 4);
    CHECK(shard_bytes < 4096); /* two headers: a few hundred bytes */
    /* the plan of the snapshot is the local folder's */
    char local[512];
    snprintf(local, sizeof local, "%s/testorg/tiny-llama", root);
    int64_t w1, w2;
    int64_t t1 = tokens_of(local, &w1), t2 = tokens_of(r.dir, &w2);
    CHECK(t1 > 0);
    CHECK_INT(t2, t1);
    CHECK_INT(w2, w1);
    /* the Hub's layout */
    char path[4400];
    snprintf(path, sizeof path,
             "%s/models--testorg--tiny-llama/snapshots/" COMMIT_MAIN
             "/model-00001-of-00002.safetensors.kvplan-header",
             cache);
    struct stat sb;
    CHECK(stat(path, &sb) == 0 && sb.st_size < 1024);
    snprintf(path, sizeof path, "%s/models--testorg--tiny-llama/refs/main",
             cache);
    CHECK(stat(path, &sb) == 0);
    /* the library's one call: fetched (here: cached) and loaded */
    kvplan_model *m = NULL;
    CHECK_INT(kvplan_model_load_hub("testorg/tiny-llama", &o, &m, NULL, &err),
              KVPLAN_OK);
    CHECK(m != NULL && kvplan_model_get_info(m)->num_hidden_layers == 32);
    kvplan_model_free(m);
    /* again: the cache, no request */
    before = requests;
    CHECK_INT(kvplan_hub_fetch("testorg/tiny-llama", &o, &r, &err), KVPLAN_OK);
    CHECK(r.from_cache);
    CHECK_INT(requests, before);
    o.offline = true;
    CHECK_INT(kvplan_hub_fetch("testorg/tiny-llama", &o, &r, &err), KVPLAN_OK);
    CHECK(r.from_cache);
    CHECK_INT(kvplan_hub_fetch("testorg/single", &o, &r, &err), KVPLAN_IO);
    CHECK_CONTAINS(err.message, "HF_HUB_OFFLINE");
    CHECK_INT(requests, before);
    /* one file, no index: its header alone, and the plan as local */
    o.offline = false;
    CHECK_INT(kvplan_hub_fetch("testorg/single", &o, &r, &err), KVPLAN_OK);
    CHECK_INT(r.files, 2);
    snprintf(local, sizeof local, "%s/testorg/single", root);
    CHECK_INT(tokens_of(r.dir, &w2), tokens_of(local, &w1));
    CHECK_INT(w2, w1);
    /* a redirect is followed */
    CHECK_INT(kvplan_hub_fetch("moved/tiny-llama", &o, &r, &err), KVPLAN_OK);
    /* another revision, its own commit */
    o.revision = "v1";
    CHECK_INT(kvplan_hub_fetch("testorg/tiny-llama", &o, &r, &err), KVPLAN_OK);
    CHECK_STR(r.commit, "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
    CHECK(!r.from_cache);
    o.revision = "../x";
    CHECK_INT(kvplan_hub_fetch("testorg/tiny-llama", &o, &r, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "--revision");
}

static void test_errors(void)
{
    kvplan_hub_options o = options();
    kvplan_hub_result r;
    kvplan_error err;
    /* gated: a token, or a message that asks for one */
    CHECK_INT(kvplan_hub_fetch("gated/tiny-llama", &o, &r, &err), KVPLAN_IO);
    CHECK_CONTAINS(err.message, "401");
    CHECK_CONTAINS(err.message, "HF_TOKEN");
    o.token = "hub-test-token";
    CHECK_INT(kvplan_hub_fetch("gated/tiny-llama", &o, &r, &err), KVPLAN_OK);
    o.token = NULL;
    /* not there */
    CHECK_INT(kvplan_hub_fetch("testorg/nothing", &o, &r, &err), KVPLAN_IO);
    CHECK_CONTAINS(err.message, "404");
    CHECK_CONTAINS(err.message, "/testorg/nothing/resolve/main/config.json");
    /* a server error, retried twice */
    long before = requests;
    CHECK_INT(kvplan_hub_fetch("broken/tiny-llama", &o, &r, &err), KVPLAN_IO);
    CHECK_CONTAINS(err.message, "500");
    CHECK_CONTAINS(err.message, "after 3 tries");
    CHECK_INT(requests - before, 3);
    /* a timeout: bounded, never a hang */
    o.timeout_s = 0.5;
    o.retries = 0;
    CHECK_INT(kvplan_hub_fetch("slow/tiny-llama", &o, &r, &err), KVPLAN_IO);
    CHECK_CONTAINS(err.message, "no answer");
    o = options();
    /* a server that sends the whole shard for a range: refused, unread */
    CHECK_INT(kvplan_hub_fetch("norange/tiny-llama", &o, &r, &err),
              KVPLAN_PARSE);
    CHECK_CONTAINS(err.message, "range request");
    /* a header length beyond 16 MiB */
    CHECK_INT(kvplan_hub_fetch("testorg/huge-header", &o, &r, &err),
              KVPLAN_PARSE);
    CHECK_CONTAINS(err.message, "16 MiB");
    /* ids */
    CHECK(kvplan_hub_repo_id("Qwen/Qwen3-4B"));
    CHECK(!kvplan_hub_repo_id("Qwen"));
    CHECK(!kvplan_hub_repo_id("a/b/c"));
    CHECK(!kvplan_hub_repo_id("../etc"));
    CHECK(!kvplan_hub_repo_id("org/.."));
    CHECK_INT(kvplan_hub_fetch("not an id", &o, &r, &err),
              KVPLAN_INVALID_ARGUMENT);
    char dir[256];
    CHECK(kvplan_hub_cache_dir(NULL, "/h", "/home/u", dir, sizeof dir));
    CHECK_STR(dir, "/h/hub");
    CHECK(kvplan_hub_cache_dir("", "", "/home/u", dir, sizeof dir));
    CHECK_STR(dir, "/home/u/.cache/huggingface/hub");
    CHECK(kvplan_hub_cache_dir("/c", "/h", "/home/u", dir, sizeof dir));
    CHECK_STR(dir, "/c");
    CHECK(!kvplan_hub_cache_dir(NULL, NULL, NULL, dir, sizeof dir));
}

/* Whether the cache holds any trace of repo `id`'s snapshots or stages. */
static bool kept(const char *folder)
{
    char cmd[800];
    snprintf(cmd, sizeof cmd,
             "test -z \"$(find %s/%s -name config.json -o -name '.kvplan-*' "
             "2>/dev/null)\"",
             cache, folder);
    return system(cmd) != 0;
}

/* R2, R7: every bound validated, the whole fetch under a deadline. */
static void test_bounds(void)
{
    kvplan_hub_options o = options();
    kvplan_hub_result r;
    kvplan_error err;
    const double bad[] = {0.0001, 1e30, INFINITY, NAN, -1, 3601};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        o.timeout_s = bad[i];
        CHECK_INT(kvplan_hub_fetch("testorg/tiny-llama", &o, &r, &err),
                  KVPLAN_INVALID_ARGUMENT);
        CHECK_STR(err.field, "timeout_s");
    }
    o = options();
    o.deadline_s = INFINITY;
    CHECK_INT(kvplan_hub_fetch("testorg/tiny-llama", &o, &r, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "deadline_s");
    o = options();
    o.parallel = 33;
    CHECK_INT(kvplan_hub_fetch("testorg/tiny-llama", &o, &r, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "parallel");
    /* the server answers each request after 2 s: a deadline of 1 s ends
     * the fetch at 1 s, though each request may take 5 */
    o = options();
    o.deadline_s = 1;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK_INT(kvplan_hub_fetch("slow/tiny-llama", &o, &r, &err), KVPLAN_IO);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK_STR(err.field, "KVPLAN_HUB_DEADLINE");
    CHECK_CONTAINS(err.message, "deadline of 1 s");
    CHECK((double)(t1.tv_sec - t0.tv_sec) < 1.9);
    CHECK(!kept("models--slow--tiny-llama"));
}

/* R4, R5, R6, R17: a snapshot is complete or absent, never a planted
 * file's target, never a body the Hub did not mean. */
static void test_snapshots(void)
{
    kvplan_hub_options o = options();
    kvplan_hub_result r;
    kvplan_error err;
    /* R5: shards fail after config.json and the index came: nothing kept,
     * and the next run asks again (offline: not in the cache) */
    CHECK_INT(kvplan_hub_fetch("partial/tiny-llama", &o, &r, &err), KVPLAN_IO);
    CHECK_CONTAINS(err.message, "500");
    CHECK(!kept("models--partial--tiny-llama"));
    long before = requests;
    CHECK_INT(kvplan_hub_fetch("partial/tiny-llama", &o, &r, &err), KVPLAN_IO);
    CHECK(requests > before);
    o.offline = true;
    CHECK_INT(kvplan_hub_fetch("partial/tiny-llama", &o, &r, &err), KVPLAN_IO);
    CHECK_CONTAINS(err.message, "HF_HUB_OFFLINE");
    o.offline = false;
    /* R6: over the cap, an HTML page, JSON and junk: said, never kept */
    CHECK_INT(kvplan_hub_fetch("bigconfig/tiny-llama", &o, &r, &err),
              KVPLAN_PARSE);
    CHECK_CONTAINS(err.message, "config.json is over 4 MiB");
    CHECK_INT(kvplan_hub_fetch("html/tiny-llama", &o, &r, &err), KVPLAN_PARSE);
    CHECK_CONTAINS(err.message, "not a JSON object");
    CHECK_INT(kvplan_hub_fetch("junk/tiny-llama", &o, &r, &err), KVPLAN_PARSE);
    CHECK(!kept("models--bigconfig--tiny-llama") &&
          !kept("models--html--tiny-llama") &&
          !kept("models--junk--tiny-llama"));
    /* R17: a revision or commit past 47 characters is refused, never cut
     * to share another's snapshot */
    o.revision = "rrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrrA";
    CHECK_INT(kvplan_hub_fetch("testorg/tiny-llama", &o, &r, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "--revision");
    o.revision = NULL;
    CHECK_INT(kvplan_hub_fetch("longcommit/tiny-llama", &o, &r, &err),
              KVPLAN_PARSE);
    CHECK_CONTAINS(err.message, "X-Repo-Commit");
    /* R4: a symlink planted where the old temporary name was, and one as
     * the snapshot's config.json: neither target is written */
    char d[600], victim[700], cmd[4800];
    snprintf(d, sizeof d, "%s/models--testorg--planted/snapshots/" COMMIT_MAIN,
             cache);
    snprintf(victim, sizeof victim, "%s/victim.txt", root);
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s && printf 'precious data' > %s && "
             "ln -s %s %s/config.json.tmp.%ld && ln -s %s %s/config.json",
             d, victim, victim, d, (long)getpid(), victim, d);
    CHECK_INT(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "cp -r %s/testorg/tiny-llama %s/testorg/planted",
             root, root);
    CHECK_INT(system(cmd), 0);
    CHECK_INT(kvplan_hub_fetch("testorg/planted", &o, &r, &err), KVPLAN_OK);
    FILE *f = fopen(victim, "rb");
    char text[64] = "";
    CHECK(f != NULL && fgets(text, sizeof text, f) != NULL);
    if (f != NULL)
        fclose(f);
    CHECK_STR(text, "precious data");
    struct stat sb;
    snprintf(cmd, sizeof cmd, "%s/config.json", d);
    CHECK(lstat(cmd, &sb) == 0 && S_ISREG(sb.st_mode));
    /* R3: a FIFO as the ref is never opened for reading */
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s/models--testorg--fifo/refs && "
             "mkfifo %s/models--testorg--fifo/refs/main",
             cache, cache);
    CHECK_INT(system(cmd), 0);
    o.offline = true;
    CHECK_INT(kvplan_hub_fetch("testorg/fifo", &o, &r, &err), KVPLAN_IO);
    o.offline = false;
}

/* The marker's summary: what a cached run reads instead of the headers;
 * the headers themselves win over the index's total_size (R16). */
static void test_summary(void)
{
    kvplan_hub_options o = options();
    kvplan_hub_result r;
    kvplan_error err;
    CHECK_INT(kvplan_hub_fetch("testorg/tiny-llama", &o, &r, &err), KVPLAN_OK);
    char path[4400];
    snprintf(path, sizeof path, "%s/.kvplan-complete", r.dir);
    json_t *m = json_load_file(path, 0, NULL);
    int64_t measured = 0, local = 0;
    char dir[600];
    snprintf(dir, sizeof dir, "%s/testorg/tiny-llama", root);
    CHECK_INT(kvplan_weights_from_dir(dir, &local, &err), KVPLAN_OK);
    CHECK_INT(json_integer_value(
                  json_object_get(json_object_get(m, "weights"), "bytes")),
              local);
    CHECK_INT(json_integer_value(
                  json_object_get(json_object_get(m, "weights"), "shards")),
              2);
    CHECK(json_integer_value(json_object_get(
              json_object_get(json_object_get(m, "weights"), "by_dtype"),
              "BF16")) == local);
    json_decref(m);
    CHECK_INT(kvplan_weights_from_dir(r.dir, &measured, &err), KVPLAN_OK);
    CHECK_INT(measured, local);
    /* the served index says total_size 1 beside its two real headers:
     * the headers win (R16) */
    char cmd[4000];
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s/x && cp %s/*.safetensors %s/x/ && "
             "sed 's/\"total_size\": [0-9]*/\"total_size\": 1/' "
             "%s/model.safetensors.index.json > "
             "%s/x/model.safetensors.index.json",
             root, dir, root, dir, root);
    CHECK_INT(system(cmd), 0);
    snprintf(dir, sizeof dir, "%s/x", root);
    CHECK_INT(kvplan_weights_from_dir(dir, &measured, &err), KVPLAN_OK);
    CHECK_INT(measured, local);
    /* a shard the index names is missing: an unfinished download, said */
    snprintf(cmd, sizeof cmd, "rm %s/x/model-00002-of-00002.safetensors", root);
    CHECK_INT(system(cmd), 0);
    CHECK_INT(kvplan_weights_from_dir(dir, &measured, &err), KVPLAN_PARSE);
    CHECK_CONTAINS(err.message, "unfinished download");
}

/* R11, R12: where a redirect may go, and a token that cannot inject. */
static void test_transport(void)
{
    kvplan_hub_options o = options();
    kvplan_hub_result r;
    kvplan_error err;
    CHECK_INT(kvplan_hub_fetch("ftp/tiny-llama", &o, &r, &err), KVPLAN_IO);
    CHECK_CONTAINS(err.message, "redirected to ftp://");
    CHECK_INT(kvplan_hub_fetch("elsewhere/tiny-llama", &o, &r, &err),
              KVPLAN_IO);
    CHECK_CONTAINS(err.message, "redirected to http://localhost");
    o.token = "abc\r\nX-Injected: yes";
    long before = injected;
    CHECK_INT(kvplan_hub_fetch("gated/tiny-llama", &o, &r, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "token");
    CHECK_INT(injected, before);
    bool same;
    const char *hub = "https://huggingface.co";
    CHECK(kvplan__http_redirect_ok(hub, "https://cdn-lfs.huggingface.co/x",
                                   &same) &&
          !same);
    CHECK(kvplan__http_redirect_ok(hub, "https://cas-bridge.xethub.hf.co/x",
                                   &same) &&
          !same);
    CHECK(kvplan__http_redirect_ok(hub, "https://HuggingFace.co/a", &same) &&
          same);
    CHECK(!kvplan__http_redirect_ok(hub, "http://cdn-lfs.huggingface.co/x",
                                    &same)); /* no downgrade */
    CHECK(!kvplan__http_redirect_ok(hub, "https://evil.example/x", &same));
    CHECK(!kvplan__http_redirect_ok(hub, "https://huggingface.co.evil.io/x",
                                    &same));
    CHECK(
        !kvplan__http_redirect_ok(hub, "https://u:p@huggingface.co/x", &same));
    CHECK(!kvplan__http_redirect_ok(hub, "file:///etc/passwd", &same));
    CHECK(!kvplan__http_redirect_ok("http://127.0.0.1:9", "http://127.0.0.2/x",
                                    &same));
    /* another port of the same host: followed, without the token */
    CHECK(kvplan__http_redirect_ok("http://127.0.0.1:9",
                                   "http://127.0.0.1:10/x", &same) &&
          !same);
    CHECK(kvplan__http_redirect_ok("http://127.0.0.1:9", "http://127.0.0.1:9",
                                   &same) &&
          same);
    CHECK(
        kvplan__http_redirect_ok(hub, "https://huggingface.co:443/x", &same) &&
        same);
    CHECK(!kvplan__http_redirect_ok(hub, "https://huggingface.co:99999/x",
                                    &same));
}

/* R8: threads of one process fetching one repo into an empty cache. */
static void *fetch_crowd(void *arg)
{
    kvplan_hub_options o = options();
    kvplan_hub_result r;
    kvplan_error err;
    o.cache_dir = (const char *)arg;
    return (void *)(intptr_t)kvplan_hub_fetch("testorg/crowd", &o, &r, &err);
}

static void test_concurrent(const char *kvplan)
{
    char cmd[6000], crowd[400], exe[4096];
    char here[2048] = "";
    CHECK(getcwd(here, sizeof here) != NULL);
    snprintf(exe, sizeof exe, "%s%s%s", kvplan[0] == '/' ? "" : here,
             kvplan[0] == '/' ? "" : "/", kvplan);
    snprintf(cmd, sizeof cmd, "cp -r %s/testorg/tiny-llama %s/testorg/crowd",
             root, root);
    CHECK_INT(system(cmd), 0);
    snprintf(crowd, sizeof crowd, "%s/crowd-cache", root);
    pthread_t t[8];
    for (int i = 0; i < 8; i++)
        CHECK_INT(pthread_create(&t[i], NULL, fetch_crowd, crowd), 0);
    int ok = 0;
    for (int i = 0; i < 8; i++) {
        void *st = NULL;
        pthread_join(t[i], &st);
        ok += (intptr_t)st == KVPLAN_OK;
    }
    CHECK_INT(ok, 8);
    /* 4 processes at once on another empty cache: each plans the same */
    snprintf(cmd, sizeof cmd,
             "cd %s && for i in 1 2 3 4; do HF_ENDPOINT=%s "
             "HF_HUB_CACHE=%s/procs HF_TOKEN= %s --model-path testorg/crowd "
             "--gpu H200 --json > out.$i 2>&1 & done; wait; "
             "test $(grep -h max_total_num_tokens out.1 out.2 out.3 out.4 | "
             "sort -u | wc -l) = 1 && test $(grep -l max_total_num_tokens "
             "out.* | wc -l) = 4",
             root, endpoint, root, exe);
    CHECK_INT(system(cmd), 0);
}

/* The command: HF_ENDPOINT at the server, a model not in the catalog,
 * planned, its weights read from the headers. */
static json_t *run(const char *kvplan, const char *args)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "HF_ENDPOINT=%s HF_HUB_CACHE=%s/cli HF_TOKEN= HF_HUB_OFFLINE= "
             "%s %s --gpu H200 --json",
             endpoint, root, kvplan, args);
    FILE *p = popen(cmd, "r");
    CHECK(p != NULL);
    if (p == NULL)
        return NULL;
    json_t *doc = json_loadf(p, 0, NULL);
    pclose(p);
    return doc;
}

/* The command's exit status and its first 4 KiB of output (both
 * streams), under `timeout 10`: a hang is 124, never the test's. */
static int run_text(const char *kvplan, const char *env, const char *args,
                    char *out, size_t size)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "HF_ENDPOINT=%s HF_HUB_CACHE=%s/cli HF_TOKEN= HF_HUB_OFFLINE= %s "
             "timeout 10 %s %s 2>&1",
             endpoint, root, env, kvplan, args);
    FILE *p = popen(cmd, "r");
    CHECK(p != NULL);
    if (p == NULL)
        return -1;
    size_t n = fread(out, 1, size - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The command's side of the review: variables refused by name (R2, R12),
 * FIFOs refused at once (R3), the report naming the model by its id. */
static void test_command_bounds(const char *kvplan)
{
    char out[4096], env[600], fifo[400];
    CHECK_INT(run_text(kvplan, "KVPLAN_HUB_TIMEOUT=inf",
                       "--model-path testorg/tiny-llama", out, sizeof out),
              3);
    CHECK_CONTAINS(out, "KVPLAN_HUB_TIMEOUT=inf: expected seconds from 0.001");
    CHECK_INT(run_text(kvplan, "KVPLAN_HUB_DEADLINE=0",
                       "--model-path testorg/tiny-llama", out, sizeof out),
              3);
    CHECK_CONTAINS(out, "KVPLAN_HUB_DEADLINE=0");
    CHECK_INT(run_text(kvplan, "HF_TOKEN=\"$(printf 'a\\r\\nX-Injected: 1')\"",
                       "--model-path testorg/tiny-llama", out, sizeof out),
              3);
    CHECK_CONTAINS(out, "HF_TOKEN holds a control character");
    snprintf(fifo, sizeof fifo, "%s/token.fifo", root);
    CHECK(mkfifo(fifo, 0600) == 0);
    snprintf(env, sizeof env, "HF_TOKEN_PATH=%s", fifo);
    CHECK_INT(run_text(kvplan, env, "--model-path testorg/tiny-llama", out,
                       sizeof out),
              3);
    CHECK_CONTAINS(out, "not a regular file");
    snprintf(env, sizeof env, "log %s", fifo);
    CHECK_INT(run_text(kvplan, "", env, out, sizeof out), 3);
    CHECK_CONTAINS(out, "cannot be read as a log");
    CHECK_INT(run_text(kvplan, "", "--model-path testorg/tiny-llama --gpu H200",
                       out, sizeof out),
              0);
    CHECK_CONTAINS(out, ": testorg/tiny-llama (LlamaForCausalLM) on H200");
}

static void test_command(const char *kvplan)
{
    json_t *hub = run(kvplan, "--model-path testorg/tiny-llama");
    char local[600];
    snprintf(local, sizeof local, "--model-path %s/testorg/tiny-llama", root);
    json_t *dir = run(kvplan, local);
    CHECK(hub != NULL && dir != NULL);
    CHECK_STR(json_string_value(json_object_get(hub, "model_source")), "hub");
    CHECK_INT(json_integer_value(json_object_get(hub, "max_total_num_tokens")),
              json_integer_value(json_object_get(dir, "max_total_num_tokens")));
    json_t *w = json_object_get(
        json_object_get(json_object_get(hub, "budget"), "terms"), "weights");
    CHECK_STR(json_string_value(json_object_get(w, "source")), "measured");
    CHECK_CONTAINS(json_string_value(json_object_get(w, "basis")),
                   "headers, read from the Hub");
    json_decref(hub);
    json_decref(dir);
    /* again: from the cache */
    hub = run(kvplan, "--model-path testorg/tiny-llama");
    CHECK_STR(json_string_value(json_object_get(hub, "model_source")),
              "hub_cache");
    json_decref(hub);
    /* a catalog id the server does not have: the catalog, said */
    hub = run(kvplan, "--model-path meta-llama/Llama-3.1-8B-Instruct");
    CHECK_STR(json_string_value(json_object_get(hub, "model_source")),
              "catalog");
    json_decref(hub);
}
#endif

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN); /* a client that timed out: no signal */
    snprintf(root, sizeof root, "/tmp/kvplan-hub-XXXXXX");
    CHECK(mkdtemp(root) != NULL);
    repo("testorg", "tiny-llama", true, 0);
    repo("testorg", "single", false, 0);
    repo("testorg", "huge-header", true, 200u << 20);
    snprintf(cache, sizeof cache, "%s/cache", root);
    start_server();
    snprintf(endpoint, sizeof endpoint, "http://127.0.0.1:%d", port);
    test_downloaded();
#ifdef KVPLAN_TEST_NO_CURL
    kvplan_hub_options o = options();
    kvplan_hub_result r;
    kvplan_error err;
    CHECK_INT(kvplan_hub_fetch("testorg/tiny-llama", &o, &r, &err),
              KVPLAN_UNSUPPORTED);
    CHECK_CONTAINS(err.message, "without libcurl");
    (void)argc, (void)argv;
#else
    test_fetch();
    test_errors();
    test_bounds();
    test_snapshots();
    test_summary();
    test_transport();
    if (argc > 1) {
        test_concurrent(argv[1]);
        test_command(argv[1]);
        test_command_bounds(argv[1]);
    }
#endif
    stopping = 1;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0)
        fprintf(stderr, "test_hub: could not remove %s\n", root);
    return check_report();
}
