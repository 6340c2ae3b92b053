/*
 * http_curl.c: the Hub session on libcurl's multi interface. One multi
 * handle per fetch keeps its connections between requests (one connection
 * for a fetch's requests to one host, not one per request), and runs up to
 * `parallel` of them at once on the caller's thread. Bounded in time (each
 * request by its timeout, all by the deadline, both validated by the
 * caller and clamped here), in size (a body past max_bytes ends the
 * transfer, said in too_large), in tries, and in where it goes: http and
 * https only, redirects followed here, one at a time, each checked
 * (kvplan__http_redirect_ok), the token sent to the endpoint's host only.
 * Proxies from libcurl's usual variables (https_proxy, no_proxy, ...).
 *
 * libcurl is loaded when the first session opens (dlopen, RTLD_LOCAL), not
 * linked: with Debian's builds its 30-odd libraries cost about 5 ms of
 * symbol binding at every start, and most runs fetch nothing (a catalog
 * name, a folder, a complete snapshot). Only its header is needed to
 * build.
 */
#include "hub/hub.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { QUEUED, RUNNING, WAITING, ENDED };

struct kvplan__http {
    kvplan__http_config c;
    CURLM *multi;
    CURL *easy[KVPLAN__HUB_PARALLEL_MAX];
    kvplan__http_req *on[KVPLAN__HUB_PARALLEL_MAX]; /* NULL: free */
    struct curl_slist *auth; /* the token's header; NULL without one */
};

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
    kvplan__http_req *r = arg;
    size_t len = size * n;
    if (r->len + len > r->max_bytes) {
        r->too_large = true;
        return 0; /* ends the transfer */
    }
    if (r->len + len + 1 > r->cap) {
        size_t cap = r->cap ? r->cap : 4096;
        while (cap < r->len + len + 1)
            cap *= 2;
        char *grown = realloc(r->body, cap);
        if (grown == NULL) {
            r->st = KVPLAN_NOMEM;
            return 0;
        }
        r->body = grown;
        r->cap = cap;
    }
    memcpy(r->body + r->len, data, len);
    r->len += len;
    r->body[r->len] = '\0';
    return len;
}

static size_t on_header(char *data, size_t size, size_t n, void *arg)
{
    kvplan__http_req *r = arg;
    size_t len = size * n;
    static const char name[] = "x-repo-commit:";
    if (len <= sizeof name - 1 || strncasecmp(data, name, sizeof name - 1))
        return len;
    const char *v = data + sizeof name - 1, *end = data + len;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' '))
        end--;
    size_t k = (size_t)(end - v);
    r->bad_commit = k == 0 || k > KVPLAN__HUB_MAX_COMMIT;
    if (!r->bad_commit) {
        memcpy(r->commit, v, k);
        r->commit[k] = '\0';
        r->bad_commit = !kvplan__hub_revision_ok(r->commit);
    }
    if (r->bad_commit)
        r->commit[0] = '\0';
    return len;
}

/* The libcurl calls kvplan makes, resolved once per process. */
typedef struct curl_api {
    CURLcode (*global_init)(long);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    const char *(*easy_strerror)(CURLcode);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *);
    CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int, int,
                            int *);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} curl_api;

/* Written once, under pthread_once, then only read: `api` is usable when
 * `api_why` is empty; otherwise it says why libcurl could not be used. */
static curl_api api;
static char api_why[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Loads libcurl and resolves `api`, or says why not in api_why. The
 * library stays loaded for the process (a later fetch reuses it). */
static void load_curl(void)
{
    static const char soname[] = "libcurl.so.4";
    void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *e = dlerror();
        snprintf(api_why, sizeof api_why,
                 "the Hub client needs libcurl, which cannot be loaded here "
                 "(%.150s; apt-get install libcurl4)",
                 e != NULL ? e : soname);
        return;
    }
    static const kvplan__dl_call calls[] = {
#define KVPLAN__CALL(field) {offsetof(curl_api, field), "curl_" #field}
        KVPLAN__CALL(global_init),      KVPLAN__CALL(easy_init),
        KVPLAN__CALL(easy_cleanup),     KVPLAN__CALL(easy_reset),
        KVPLAN__CALL(easy_setopt),      KVPLAN__CALL(easy_getinfo),
        KVPLAN__CALL(easy_strerror),    KVPLAN__CALL(multi_init),
        KVPLAN__CALL(multi_cleanup),    KVPLAN__CALL(multi_setopt),
        KVPLAN__CALL(multi_add_handle), KVPLAN__CALL(multi_remove_handle),
        KVPLAN__CALL(multi_perform),    KVPLAN__CALL(multi_poll),
        KVPLAN__CALL(multi_info_read),  KVPLAN__CALL(slist_append),
        KVPLAN__CALL(slist_free_all),
#undef KVPLAN__CALL
    };
    const char *missing =
        kvplan__dl_resolve(lib, calls, sizeof calls / sizeof calls[0], &api);
    if (missing != NULL) {
        snprintf(api_why, sizeof api_why,
                 "the libcurl here (%s) lacks %s; kvplan needs libcurl 7.66 "
                 "or later",
                 soname, missing);
        return;
    }
    if (api.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        snprintf(api_why, sizeof api_why, "libcurl could not start");
}

void kvplan__http_close(kvplan__http *h)
{
    if (h == NULL)
        return;
    for (int i = 0; i < KVPLAN__HUB_PARALLEL_MAX; i++)
        if (h->easy[i] != NULL)
            api.easy_cleanup(h->easy[i]);
    if (h->multi != NULL)
        api.multi_cleanup(h->multi);
    api.slist_free_all(h->auth);
    free(h);
}

kvplan_status kvplan__http_open(const kvplan__http_config *c,
                                kvplan__http **out, char *why, size_t why_size)
{
    pthread_once(&once, load_curl);
    *out = NULL;
    if (api_why[0] != '\0') {
        snprintf(why, why_size, "%s", api_why);
        return KVPLAN_UNSUPPORTED;
    }
    kvplan__http *h = calloc(1, sizeof *h);
    if (h == NULL)
        return KVPLAN_NOMEM;
    h->c = *c;
    if (h->c.parallel < 1 || h->c.parallel > KVPLAN__HUB_PARALLEL_MAX)
        h->c.parallel = KVPLAN__HUB_PARALLEL_DEFAULT;
    h->multi = api.multi_init();
    bool ok = h->multi != NULL;
    for (int i = 0; ok && i < h->c.parallel; i++)
        ok = (h->easy[i] = api.easy_init()) != NULL;
    if (ok)
        ok = api.multi_setopt(h->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS,
                              (long)h->c.parallel) == CURLM_OK;
    if (ok && c->token != NULL && c->token[0] != '\0') {
        size_t n = strlen(c->token) + 32;
        char *line = malloc(n);
        if (line != NULL) {
            snprintf(line, n, "Authorization: Bearer %s", c->token);
            h->auth = api.slist_append(NULL, line);
            free(line);
        }
        ok = h->auth != NULL;
    }
    if (!ok) {
        kvplan__http_close(h);
        snprintf(why, why_size, "libcurl could not start");
        return KVPLAN_NOMEM;
    }
    *out = h;
    return KVPLAN_OK;
}

void kvplan__http_req_clear(kvplan__http_req *r)
{
    free(r->body);
    r->body = NULL;
    r->len = r->cap = 0;
}

/* A try's answer fields, empty. */
static void reset_answer(kvplan__http_req *r)
{
    kvplan__http_req_clear(r);
    r->st = KVPLAN_OK;
    r->status = 0;
    r->commit[0] = '\0';
    r->bad_commit = r->timed_out = r->too_large = r->past_deadline = false;
    r->why[0] = '\0';
}

static long ms_until(double t, double now, double cap)
{
    double s = t - now < cap ? t - now : cap;
    long ms = (long)(s * 1000.0);
    return ms < 1 ? 1 : ms; /* 0 would be libcurl's "no limit" */
}

/* Starts r on the free easy handle `slot`. */
static bool start(kvplan__http *h, int slot, kvplan__http_req *r, double now)
{
    CURL *e = h->easy[slot];
    reset_answer(r);
    r->tries++;
    api.easy_reset(e);
    char range[64];
    CURLcode bad = CURLE_OK;
    bad |= api.easy_setopt(e, CURLOPT_URL, r->url);
    /* the library loaded may be older or newer than the header, which may
     * lack or deprecate either option: CURLOPT_PROTOCOLS_STR (10318, 7.85
     * on), else the older CURLOPT_PROTOCOLS (181), by number */
    CURLcode by_name = api.easy_setopt(e, (CURLoption)10318, "http,https");
    if (by_name == CURLE_UNKNOWN_OPTION)
        bad |= api.easy_setopt(e, (CURLoption)181,
                               (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
    else
        bad |= by_name;
    bad |= api.easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    bad |= api.easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    bad |=
        api.easy_setopt(e, CURLOPT_USERAGENT, "kvplan/" KVPLAN_VERSION_STRING);
    bad |= api.easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                           ms_until(h->c.deadline, now,
                                    h->c.timeout_s < 10 ? h->c.timeout_s : 10));
    bad |= api.easy_setopt(e, CURLOPT_TIMEOUT_MS,
                           ms_until(h->c.deadline, now, h->c.timeout_s));
    bad |= api.easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    bad |= api.easy_setopt(e, CURLOPT_WRITEDATA, r);
    bad |= api.easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    bad |= api.easy_setopt(e, CURLOPT_HEADERDATA, r);
    bad |= api.easy_setopt(e, CURLOPT_PRIVATE, (void *)r);
    if (h->auth != NULL && !r->foreign)
        bad |= api.easy_setopt(e, CURLOPT_HTTPHEADER, h->auth);
    if (r->count > 0) {
        snprintf(range, sizeof range, "%lld-%lld", (long long)r->first,
                 (long long)(r->first + r->count - 1));
        bad |= api.easy_setopt(e, CURLOPT_RANGE, range);
    }
    if (bad != CURLE_OK || api.multi_add_handle(h->multi, e) != CURLM_OK) {
        r->st = KVPLAN_IO;
        snprintf(r->why, sizeof r->why,
                 "libcurl refused the request's options");
        return false;
    }
    h->on[slot] = r;
    r->state = RUNNING;
    return true;
}

/* What the end of r's try means: ENDED, or WAITING for another try or a
 * redirect's next request. */
static void finish(kvplan__http *h, CURL *e, kvplan__http_req *r, CURLcode rc,
                   double now)
{
    r->state = ENDED;
    if (r->st == KVPLAN_NOMEM) {
        snprintf(r->why, sizeof r->why, "out of memory");
        return;
    }
    if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && r->too_large)) {
        r->st = KVPLAN_IO;
        r->timed_out = rc == CURLE_OPERATION_TIMEDOUT;
        r->past_deadline = r->timed_out && now >= h->c.deadline - 0.002;
        snprintf(r->why, sizeof r->why, "%s", api.easy_strerror(rc));
        if (r->timed_out && !r->past_deadline && r->tries <= h->c.retries) {
            r->state = WAITING;
            r->retry_at = now + 0.2 * r->tries;
        }
        return;
    }
    r->st = KVPLAN_OK;
    api.easy_getinfo(e, CURLINFO_RESPONSE_CODE, &r->status);
    if (r->status >= 500 && r->tries <= h->c.retries) {
        r->state = WAITING;
        r->retry_at = now + 0.2 * r->tries;
        return;
    }
    if (r->status < 300 || r->status >= 400 || r->status == 304)
        return;
    char *to = NULL;
    api.easy_getinfo(e, CURLINFO_REDIRECT_URL, &to);
    if (to == NULL)
        return; /* a 3xx with no Location: answered as it is */
    bool same = false;
    if (!kvplan__http_redirect_ok(h->c.endpoint, to, &same) ||
        strlen(to) >= sizeof r->url || r->redirects >= 10) {
        r->st = KVPLAN_IO;
        snprintf(r->why, sizeof r->why,
                 r->redirects >= 10
                     ? "more than 10 redirects"
                     : "redirected to %.200s: kvplan follows http and https "
                       "on the endpoint's host or its CDN only",
                 to);
        return;
    }
    r->redirects++;
    r->foreign |= !same;
    snprintf(r->url, sizeof r->url, "%s", to);
    r->tries = 0;
    r->state = WAITING;
    r->retry_at = now;
}

/* Ends r unasked (the deadline passed, or the caller stopped). */
static void unasked(kvplan__http_req *r, bool deadline)
{
    reset_answer(r);
    r->st = KVPLAN_IO;
    r->state = ENDED;
    r->timed_out = r->past_deadline = deadline;
    snprintf(r->why, sizeof r->why, "%s",
             deadline ? "the fetch's deadline passed" : "not asked");
}

kvplan_status kvplan__http_run(kvplan__http *h, kvplan__http_req *reqs,
                               size_t n, bool (*done)(void *ctx, size_t i),
                               void *ctx)
{
    for (size_t i = 0; i < n; i++) {
        reqs[i].state = QUEUED;
        reqs[i].tries = reqs[i].redirects = 0;
        reqs[i].foreign = false;
        reqs[i].body = NULL;
        reqs[i].len = reqs[i].cap = 0;
    }
    size_t left = n, from = 0;
    bool stop = false, nomem = false;
    while (left > 0) {
        double now = kvplan__http_now(), next = now + 1;
        int slot = 0;
        for (size_t i = from; i < n; i++) {
            kvplan__http_req *r = &reqs[i];
            if (r->state == ENDED && i == from)
                from++;
            if (r->state != QUEUED && r->state != WAITING)
                continue;
            if (stop || now >= h->c.deadline) {
                unasked(r, !stop);
                left--;
                if (!stop && done != NULL && !done(ctx, i))
                    stop = true;
                continue;
            }
            if (r->state == WAITING && r->retry_at > now) {
                next = r->retry_at < next ? r->retry_at : next;
                continue;
            }
            while (slot < h->c.parallel && h->on[slot] != NULL)
                slot++;
            if (slot == h->c.parallel)
                break;
            if (!start(h, slot, r, now)) {
                r->state = ENDED;
                left--;
                if (done != NULL && !done(ctx, i))
                    stop = true;
            }
        }
        int running = 0;
        api.multi_perform(h->multi, &running);
        CURLMsg *m;
        int queued;
        while ((m = api.multi_info_read(h->multi, &queued)) != NULL) {
            if (m->msg != CURLMSG_DONE)
                continue;
            CURL *e = m->easy_handle;
            CURLcode rc = m->data.result;
            int s = 0;
            while (s < h->c.parallel && h->easy[s] != e)
                s++;
            kvplan__http_req *r = h->on[s];
            api.multi_remove_handle(h->multi, e);
            h->on[s] = NULL;
            finish(h, e, r, rc, kvplan__http_now());
            nomem |= r->st == KVPLAN_NOMEM;
            if (r->state != ENDED)
                continue;
            left--;
            if (stop)
                continue;
            if (done != NULL && !done(ctx, (size_t)(r - reqs)))
                stop = true;
        }
        if (stop) { /* the rest end unasked */
            for (int s = 0; s < h->c.parallel; s++)
                if (h->on[s] != NULL) {
                    api.multi_remove_handle(h->multi, h->easy[s]);
                    unasked(h->on[s], false);
                    h->on[s] = NULL;
                    left--;
                }
        }
        if (left == 0)
            break;
        now = kvplan__http_now();
        int wait = (int)((next - now) * 1000);
        if (wait > 100)
            wait = 100;
        if (wait > 0)
            api.multi_poll(h->multi, NULL, 0, wait, NULL);
    }
    return nomem ? KVPLAN_NOMEM : KVPLAN_OK;
}
