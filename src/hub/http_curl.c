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
 */
#include "hub/hub.h"

#include <curl/curl.h>
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

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void init_curl(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

void kvplan__http_close(kvplan__http *h)
{
    if (h == NULL)
        return;
    for (int i = 0; i < KVPLAN__HUB_PARALLEL_MAX; i++)
        if (h->easy[i] != NULL)
            curl_easy_cleanup(h->easy[i]);
    if (h->multi != NULL)
        curl_multi_cleanup(h->multi);
    curl_slist_free_all(h->auth);
    free(h);
}

kvplan_status kvplan__http_open(const kvplan__http_config *c,
                                kvplan__http **out, char *why, size_t why_size)
{
    pthread_once(&once, init_curl);
    *out = NULL;
    kvplan__http *h = calloc(1, sizeof *h);
    if (h == NULL)
        return KVPLAN_NOMEM;
    h->c = *c;
    if (h->c.parallel < 1 || h->c.parallel > KVPLAN__HUB_PARALLEL_MAX)
        h->c.parallel = KVPLAN__HUB_PARALLEL_DEFAULT;
    h->multi = curl_multi_init();
    bool ok = h->multi != NULL;
    for (int i = 0; ok && i < h->c.parallel; i++)
        ok = (h->easy[i] = curl_easy_init()) != NULL;
    if (ok)
        ok = curl_multi_setopt(h->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS,
                               (long)h->c.parallel) == CURLM_OK;
    if (ok && c->token != NULL && c->token[0] != '\0') {
        size_t n = strlen(c->token) + 32;
        char *line = malloc(n);
        if (line != NULL) {
            snprintf(line, n, "Authorization: Bearer %s", c->token);
            h->auth = curl_slist_append(NULL, line);
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
    curl_easy_reset(e);
    char range[64];
    CURLcode bad = CURLE_OK;
    bad |= curl_easy_setopt(e, CURLOPT_URL, r->url);
#if LIBCURL_VERSION_NUM >= 0x075500
    bad |= curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
#else
    bad |= curl_easy_setopt(e, CURLOPT_PROTOCOLS,
                            (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
    bad |= curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
    bad |= curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    bad |=
        curl_easy_setopt(e, CURLOPT_USERAGENT, "kvplan/" KVPLAN_VERSION_STRING);
    bad |=
        curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS,
                         ms_until(h->c.deadline, now,
                                  h->c.timeout_s < 10 ? h->c.timeout_s : 10));
    bad |= curl_easy_setopt(e, CURLOPT_TIMEOUT_MS,
                            ms_until(h->c.deadline, now, h->c.timeout_s));
    bad |= curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    bad |= curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
    bad |= curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    bad |= curl_easy_setopt(e, CURLOPT_HEADERDATA, r);
    bad |= curl_easy_setopt(e, CURLOPT_PRIVATE, (void *)r);
    if (h->auth != NULL && !r->foreign)
        bad |= curl_easy_setopt(e, CURLOPT_HTTPHEADER, h->auth);
    if (r->count > 0) {
        snprintf(range, sizeof range, "%lld-%lld", (long long)r->first,
                 (long long)(r->first + r->count - 1));
        bad |= curl_easy_setopt(e, CURLOPT_RANGE, range);
    }
    if (bad != CURLE_OK || curl_multi_add_handle(h->multi, e) != CURLM_OK) {
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
        snprintf(r->why, sizeof r->why, "%s", curl_easy_strerror(rc));
        if (r->timed_out && !r->past_deadline && r->tries <= h->c.retries) {
            r->state = WAITING;
            r->retry_at = now + 0.2 * r->tries;
        }
        return;
    }
    r->st = KVPLAN_OK;
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &r->status);
    if (r->status >= 500 && r->tries <= h->c.retries) {
        r->state = WAITING;
        r->retry_at = now + 0.2 * r->tries;
        return;
    }
    if (r->status < 300 || r->status >= 400 || r->status == 304)
        return;
    char *to = NULL;
    curl_easy_getinfo(e, CURLINFO_REDIRECT_URL, &to);
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
        curl_multi_perform(h->multi, &running);
        CURLMsg *m;
        int queued;
        while ((m = curl_multi_info_read(h->multi, &queued)) != NULL) {
            if (m->msg != CURLMSG_DONE)
                continue;
            CURL *e = m->easy_handle;
            CURLcode rc = m->data.result;
            int s = 0;
            while (s < h->c.parallel && h->easy[s] != e)
                s++;
            kvplan__http_req *r = h->on[s];
            curl_multi_remove_handle(h->multi, e);
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
                    curl_multi_remove_handle(h->multi, h->easy[s]);
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
            curl_multi_poll(h->multi, NULL, 0, wait, NULL);
    }
    return nomem ? KVPLAN_NOMEM : KVPLAN_OK;
}
