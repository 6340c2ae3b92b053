/*
 * answers.c: what the Hub answered, checked before any of it is kept (a
 * config.json that is not a JSON object, an index without its map, a
 * header that is no safetensors header: refused, nothing written), and
 * where a session may follow a redirect. No I/O: fuzz/fuzz_hub.c drives
 * every function here with arbitrary bytes.
 */
#include "hub/hub.h"

#include "model/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define MAX_HEADER_BYTES (16u << 20) /* as budget/weights.c reads them */

bool kvplan__hub_name(const char *s, size_t n)
{
    if (n == 0 || n > 96 || s[0] == '.' || s[0] == '-')
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                  (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
        if (!ok || (c == '.' && i + 1 < n && s[i + 1] == '.'))
            return false;
    }
    return true;
}

bool kvplan__hub_token_control(const char *token)
{
    for (const char *c = token; c != NULL && *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return true;
    return false;
}

bool kvplan__hub_revision_ok(const char *s)
{
    size_t n = s != NULL ? strlen(s) : 0;
    return n <= KVPLAN__HUB_MAX_COMMIT && kvplan__hub_name(s, n);
}

kvplan_status kvplan__hub_check_config(const char *id, const char *body,
                                       size_t len, kvplan_error *err)
{
    json_t *root = NULL;
    kvplan_error why;
    kvplan_status st =
        kvplan__config_parse(body, len, "config.json", &root, &why);
    if (st == KVPLAN_NOMEM)
        return kvplan__fail(err, st, NULL, "out of memory");
    bool object = json_is_object(root);
    json_decref(root);
    KVPLAN__FAIL_IF(st != KVPLAN_OK || !object, err, KVPLAN_PARSE,
                    "--model-path",
                    "%s: the Hub's config.json is not a JSON object (%.200s): "
                    "a proxy's or a portal's page? Nothing was kept",
                    id, st != KVPLAN_OK ? why.message : "another JSON value");
    return KVPLAN_OK;
}

kvplan_status kvplan__hub_header_length(const char *id, const char *shard,
                                        const unsigned char *first, size_t len,
                                        uint64_t *n, kvplan_error *err)
{
    *n = 0;
    KVPLAN__FAIL_IF(len < 8, err, KVPLAN_PARSE, "--model-path",
                    "%s: %s: %zu bytes came of its header's 8-byte length", id,
                    shard, len);
    for (int i = 7; i >= 0; i--)
        *n = (*n << 8) | first[i];
    KVPLAN__FAIL_IF(*n == 0 || *n > MAX_HEADER_BYTES, err, KVPLAN_PARSE,
                    "--model-path",
                    "%s: %s: a safetensors header of %llu bytes; kvplan reads "
                    "headers of 1 byte to %u MiB",
                    id, shard, (unsigned long long)*n, MAX_HEADER_BYTES >> 20);
    return KVPLAN_OK;
}

kvplan_status kvplan__hub_check_header(const char *id, const char *shard,
                                       const unsigned char *all, size_t len,
                                       kvplan_error *err)
{
    uint64_t n;
    KVPLAN__TRY(kvplan__hub_header_length(id, shard, all, len, &n, err));
    KVPLAN__FAIL_IF(len != 8 + n, err, KVPLAN_PARSE, "--model-path",
                    "%s: %s: the header is %llu bytes, %zu came", id, shard,
                    (unsigned long long)n, len - 8);
    json_error_t jerr;
    json_t *j = json_loadb((const char *)all + 8, (size_t)n, 0, &jerr);
    bool ok = json_is_object(j);
    const char *key;
    json_t *t;
    json_object_foreach(j, key, t)
    {
        ok &= json_is_object(t);
    }
    json_decref(j);
    KVPLAN__FAIL_IF(!ok, err, KVPLAN_PARSE, "--model-path",
                    "%s: %s: its safetensors header is not a JSON object of "
                    "tensors",
                    id, shard);
    return KVPLAN_OK;
}

/* A shard's name from the index: a file of the snapshot's own folder. */
static bool shard_name(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    return n > 12 && n < 200 && strcmp(s + n - 12, ".safetensors") == 0 &&
           strchr(s, '/') == NULL && strchr(s, '\\') == NULL &&
           strstr(s, "..") == NULL && s[0] != '.' && strspn(s, "\t\r\n") == 0;
}

kvplan_status kvplan__hub_index_shards(const char *id, const char *body,
                                       size_t len, json_t **index,
                                       const char **names, size_t cap,
                                       size_t *n, kvplan_error *err)
{
    *n = 0;
    json_error_t jerr;
    *index = json_loadb(body, len, 0, &jerr);
    const json_t *map = json_object_get(*index, "weight_map");
    KVPLAN__FAIL_IF(
        !json_is_object(map), err, KVPLAN_PARSE, "--model-path",
        "%s: model.safetensors.index.json is %s; nothing was kept", id,
        *index == NULL ? "not JSON" : "without a weight_map object");
    /* each shard once: a set, not a search of those seen (80,000 tensors
     * over up to 4096 shards) */
    json_t *seen = json_object();
    KVPLAN__FAIL_IF(seen == NULL, err, KVPLAN_NOMEM, NULL, "out of memory");
    const char *key;
    const json_t *v;
    kvplan_status st = KVPLAN_OK;
    json_object_foreach((json_t *)map, key, v)
    {
        const char *s = json_string_value(v);
        if (!shard_name(s)) {
            st = kvplan__fail(err, KVPLAN_PARSE, "--model-path",
                              "%s: the index maps '%.80s' to '%.80s', not a "
                              ".safetensors file of the repo's folder",
                              id, key, s ? s : "(not a string)");
            break;
        }
        if (json_object_get(seen, s) != NULL)
            continue;
        if (*n == cap) {
            st = kvplan__fail(err, KVPLAN_PARSE, "--model-path",
                              "%s: the index names more than %zu shards", id,
                              cap);
            break;
        }
        json_object_set_new(seen, s, json_true());
        names[(*n)++] = s;
    }
    json_decref(seen);
    return st;
}

double kvplan__http_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- where a redirect may go ------------------------------------------- */

/* url's scheme ("http"/"https"), host (lower case) and port (its
 * scheme's default when none is written); false when the URL is not
 * http(s)://host... or carries credentials. */
static bool split(const char *url, bool *https, char *host, size_t size,
                  long *port)
{
    const char *p;
    if (strncasecmp(url, "https://", 8) == 0)
        *https = true, p = url + 8;
    else if (strncasecmp(url, "http://", 7) == 0)
        *https = false, p = url + 7;
    else
        return false;
    size_t n = strcspn(p, "/?#");
    if (memchr(p, '@', n) != NULL)
        return false;
    size_t k = p[0] == '[' ? strcspn(p, "]") + 1 : strcspn(p, ":/?#");
    if (k == 0 || k >= size || k > n)
        return false;
    for (size_t i = 0; i < k; i++)
        host[i] = (char)((p[i] >= 'A' && p[i] <= 'Z') ? p[i] + 32 : p[i]);
    host[k] = '\0';
    *port = *https ? 443 : 80;
    if (k < n && p[k] == ':') {
        char *end;
        long v = strtol(p + k + 1, &end, 10);
        if (end == p + k + 1 || end != p + n || v <= 0 || v > 65535)
            return false;
        *port = v;
    } else if (k != n) {
        return false;
    }
    return true;
}

/* host is `domain` or a name under it */
static bool under(const char *host, const char *domain)
{
    size_t a = strlen(host), b = strlen(domain);
    return strcmp(host, domain) == 0 || (a > b + 1 && host[a - b - 1] == '.' &&
                                         !strcmp(host + a - b, domain));
}

bool kvplan__http_redirect_ok(const char *endpoint, const char *url,
                              bool *same_host)
{
    char from[256], to[256];
    bool from_https, to_https;
    long from_port, to_port;
    *same_host = false;
    if (endpoint == NULL ||
        !split(endpoint, &from_https, from, sizeof from, &from_port) ||
        !split(url, &to_https, to, sizeof to, &to_port) ||
        (from_https && !to_https))
        return false;
    if (strcmp(from, to) == 0) { /* the token: to the same origin only */
        *same_host = from_port == to_port && from_https == to_https;
        return true;
    }
    /* the endpoint's domain: its last two labels, unless it is an address
     * or a single name */
    const char *last = strrchr(from, '.');
    bool named = last != NULL && from[0] != '[' &&
                 strspn(from, "0123456789.") != strlen(from);
    if (!named)
        return false;
    const char *domain = last;
    while (domain > from && domain[-1] != '.')
        domain--;
    return under(to, domain) ||
           (strcmp(domain, "huggingface.co") == 0 && under(to, "hf.co"));
}
