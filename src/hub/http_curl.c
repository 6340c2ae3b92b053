/*
 * http_curl.c: kvplan__http_get on libcurl: bounded in time (a connect
 * timeout and a whole-request timeout), in size (the body is cut off at
 * max_bytes) and in tries; proxies from libcurl's usual variables
 * (https_proxy, no_proxy, ...).
 */
#include "hub/hub.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

typedef struct sink {
    kvplan__http_response *out;
    size_t cap, max;
    bool nomem;
} sink;

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
    sink *s = arg;
    size_t len = size * n;
    kvplan__http_response *o = s->out;
    if (o->len + len > s->max) {
        o->too_large = true;
        return 0; /* aborts the transfer */
    }
    if (o->len + len + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap < o->len + len + 1)
            cap *= 2;
        char *grown = realloc(o->body, cap);
        if (grown == NULL) {
            s->nomem = true;
            return 0;
        }
        o->body = grown;
        s->cap = cap;
    }
    memcpy(o->body + o->len, data, len);
    o->len += len;
    o->body[o->len] = '\0';
    return len;
}

static size_t on_header(char *data, size_t size, size_t n, void *arg)
{
    kvplan__http_response *o = arg;
    size_t len = size * n;
    static const char name[] = "x-repo-commit:";
    if (len > sizeof name - 1 &&
        strncasecmp(data, name, sizeof name - 1) == 0) {
        const char *v = data + sizeof name - 1;
        size_t k = 0;
        while (v < data + len && (*v == ' ' || *v == '\t'))
            v++;
        while (v < data + len && k + 1 < sizeof o->commit && *v != '\r' &&
               *v != '\n')
            o->commit[k++] = *v++;
        o->commit[k] = '\0';
    }
    return len;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static void init_curl(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* One try. */
static kvplan_status get_once(CURL *c, const char *url, const char *token,
                              int64_t first, int64_t count, size_t max_bytes,
                              double timeout_s, kvplan__http_response *out)
{
    free(out->body);
    memset(out, 0, sizeof *out);
    sink s = {.out = out, .max = max_bytes};
    char range[64], auth[600];
    struct curl_slist *headers = NULL;
    if (token != NULL && token[0] != '\0') {
        snprintf(auth, sizeof auth, "Authorization: Bearer %.500s", token);
        headers = curl_slist_append(headers, auth);
    }
    curl_easy_reset(c);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(c, CURLOPT_MAXREDIRS, 10L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_USERAGENT, "kvplan/" KVPLAN_VERSION_STRING);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                     (long)(timeout_s < 10 ? timeout_s * 1000 : 10000));
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(timeout_s * 1000));
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, out);
    if (headers != NULL)
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    if (count > 0) {
        snprintf(range, sizeof range, "%lld-%lld", (long long)first,
                 (long long)(first + count - 1));
        curl_easy_setopt(c, CURLOPT_RANGE, range);
    }
    CURLcode rc = curl_easy_perform(c);
    curl_slist_free_all(headers);
    if (s.nomem)
        return KVPLAN_NOMEM;
    long status = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    if (rc == CURLE_OK || (rc == CURLE_WRITE_ERROR && out->too_large)) {
        out->status = status;
        return KVPLAN_OK;
    }
    out->timed_out = rc == CURLE_OPERATION_TIMEDOUT;
    snprintf(out->why, sizeof out->why, "%s", curl_easy_strerror(rc));
    return KVPLAN_IO;
}

kvplan_status kvplan__http_get(const char *url, const char *token,
                               int64_t first, int64_t count, size_t max_bytes,
                               double timeout_s, int retries,
                               kvplan__http_response *out)
{
    pthread_once(&once, init_curl);
    memset(out, 0, sizeof *out);
    CURL *c = curl_easy_init();
    if (c == NULL) {
        snprintf(out->why, sizeof out->why, "libcurl could not start");
        return KVPLAN_IO;
    }
    kvplan_status st = KVPLAN_IO;
    for (int attempt = 0; attempt <= retries; attempt++) {
        if (attempt > 0) { /* 0.2 s, 0.4 s, ... */
            struct timespec ts = {0, 200000000L * attempt};
            nanosleep(&ts, NULL);
        }
        st = get_once(c, url, token, first, count, max_bytes, timeout_s, out);
        bool again = (st == KVPLAN_IO && out->timed_out) ||
                     (st == KVPLAN_OK && out->status >= 500);
        if (!again)
            break;
    }
    curl_easy_cleanup(c);
    return st;
}
