/*
 * cmd_serve.c: kvplan serve --listen HOST:PORT [--tls-cert F --tls-key F]:
 * kvplan as an HTTP service and a Kubernetes admission webhook, on
 * libmicrohttpd (docs/kubernetes.md). POST /v1/plan answers a JSON
 * request (kvplan_json.h), POST /v1/check a manifest (kvplan check
 * --json), POST /validate an admission.k8s.io/v1 AdmissionReview; GET
 * /healthz and /metrics (Prometheus text). Bodies are bounded, the worker
 * pool and the connections too, each request has a time limit; SIGTERM
 * stops it after the requests in flight. It writes no file: the Hub is
 * read offline (its cache and the catalog), and the counters of /metrics
 * are the only state requests share. libmicrohttpd (and GnuTLS behind it)
 * is loaded when the command starts, as libcurl is for the Hub: every
 * other command starts without them.
 */
#include "check.h"
#include "cli.h"
#include "mhd.h"

#include "kvplan_json.h"

#include <arpa/inet.h>
#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* /metrics: requests by route, errors, and the answer times. */
enum { R_PLAN, R_CHECK, R_VALIDATE, R_HEALTHZ, R_METRICS, R_OTHER, R_COUNT };
static const char *const route_names[R_COUNT] = {
    "/v1/plan", "/v1/check", "/validate", "/healthz", "/metrics", "other"};
static const double buckets[] = {0.001, 0.005, 0.01, 0.025, 0.05,
                                 0.1,   0.25,  0.5,  1,     5};
#define NUM_BUCKETS (sizeof buckets / sizeof buckets[0])

typedef struct server {
    size_t max_body;
    double time_limit;
    atomic_ullong requests[R_COUNT], errors[R_COUNT];
    atomic_ullong within[NUM_BUCKETS], micros;
} server;

/* One request's body, gathered across the upload calls. */
typedef struct body {
    char *data;
    size_t len;
    bool too_large;
    double start;
} body;

static enum MHD_Result answer(struct MHD_Connection *c, unsigned code,
                              const char *type, const char *text, size_t len)
{
    struct MHD_Response *r = cli_mhd.create_response_from_buffer(
        len, (void *)text, MHD_RESPMEM_MUST_COPY);
    if (r == NULL)
        return MHD_NO;
    cli_mhd.add_response_header(r, "Content-Type", type);
    enum MHD_Result ok = cli_mhd.queue_response(c, code, r);
    cli_mhd.destroy_response(r);
    return ok;
}

static enum MHD_Result answer_json(struct MHD_Connection *c, unsigned code,
                                   json_t *doc)
{
    char *text = doc ? json_dumps(doc, JSON_SORT_KEYS) : NULL;
    json_decref(doc);
    if (text == NULL)
        return answer(c, 500, "application/json",
                      "{\"error\": \"KVPLAN_NOMEM\"}\n", 26);
    enum MHD_Result ok =
        answer(c, code, "application/json", text, strlen(text));
    free(text);
    return ok;
}

static enum MHD_Result answer_error(struct MHD_Connection *c, unsigned code,
                                    const char *field, const char *message)
{
    return answer_json(c, code,
                       json_pack("{s:s, s:s, s:s}", "error",
                                 code == 413 ? "too_large" : "bad_request",
                                 "field", field, "message", message));
}

/* POST /v1/plan: the JSON entry point's answer, 200 when it is one. */
static enum MHD_Result plan(struct MHD_Connection *c, const body *b)
{
    char *response = NULL;
    size_t len = 0;
    kvplan_status st = kvplan_json(b->data, b->len, &response, &len);
    if (response == NULL)
        return answer(c, 500, "application/json",
                      "{\"error\": \"KVPLAN_NOMEM\"}\n", 26);
    unsigned code = st == KVPLAN_OK || st == KVPLAN_NOT_ENOUGH_MEMORY ? 200
                    : st == KVPLAN_NOMEM                              ? 500
                                                                      : 400;
    enum MHD_Result ok = answer(c, code, "application/json", response, len);
    kvplan_json_free(response);
    return ok;
}

/* A manifest's check document, or an error document. */
static json_t *check_text(const server *s, const char *text, size_t len,
                          const char *name, size_t count[4], unsigned *code)
{
    cli_k8s k;
    kvplan_error err;
    if (cli_k8s_read(text, len, &k, &err) != KVPLAN_OK) {
        *code = 400;
        return json_pack("{s:s, s:s, s:s}", "error",
                         kvplan_status_name(err.code), "field", "manifest",
                         "message", err.message);
    }
    cli_check_args a = {0, NULL, NULL, NULL, true, 0};
    a.deadline = cli_now() + s->time_limit;
    json_t *doc = cli_check_document(name, &k, &a, count, NULL);
    cli_k8s_free(&k);
    *code = doc ? 200 : 500;
    return doc;
}

/* One server of a check document, in a sentence: "kvplan: Deployment
 * ns/name, container c does not start: MESSAGE; fix: FIX". */
static void server_line(json_t *x, bool fails, char *line, size_t size)
{
#define S(k)                                                                   \
    (json_string_value(json_object_get(x, k))                                  \
         ? json_string_value(json_object_get(x, k))                            \
         : "")
    const char *ns = S("namespace"), *fix = S("fix");
    snprintf(line, size, "kvplan: %s %s%s%s, container %s %s: %s%s%s",
             S("kind"), ns, ns[0] ? "/" : "", S("name"), S("container"),
             fails ? "does not start"
             : strcmp(S("verdict"), "not_checked") == 0
                 ? "not checked"
                 : "starts with a warning",
             S("message"), fix[0] ? "; fix: " : "", fix);
#undef S
}

/* The AdmissionReview's answer: allowed unless a server does not start;
 * the warnings say what starts with a warning or cannot be checked. */
static json_t *review(const server *s, json_t *req, unsigned *code)
{
    json_t *request = json_object_get(req, "request");
    const char *uid = json_string_value(json_object_get(request, "uid"));
    json_t *object = json_object_get(request, "object");
    if (uid == NULL) {
        *code = 400;
        return json_pack("{s:s, s:s, s:s}", "error", "bad_request", "field",
                         "request.uid", "message",
                         "an AdmissionReview names request.uid");
    }
    json_t *warnings = json_array(), *status = json_null();
    bool allowed = true;
    char *text = json_is_object(object) ? json_dumps(object, 0) : NULL;
    if (text != NULL) {
        size_t count[4];
        unsigned c2;
        json_t *doc =
            check_text(s, text, strlen(text), "request.object", count, &c2);
        json_t *servers = json_object_get(doc, "servers");
        char msg[1024] = "";
        for (size_t i = 0; i < json_array_size(servers); i++) {
            json_t *x = json_array_get(servers, i);
            const char *v = json_string_value(json_object_get(x, "verdict"));
            bool fails = v != NULL && strcmp(v, "does_not_start") == 0;
            if (v == NULL || strcmp(v, "starts") == 0)
                continue;
            char line[600];
            server_line(x, fails, line, sizeof line);
            if (fails) {
                allowed = false;
                size_t used = strlen(msg);
                snprintf(msg + used, sizeof msg - used, "%s%s",
                         used ? " | " : "", line);
            } else {
                line[256] = '\0'; /* the API server's limit for a warning */
                json_array_append_new(warnings, json_string(line));
            }
        }
        if (!allowed) {
            json_decref(status);
            status = json_pack("{s:i, s:s}", "code", 403, "message", msg);
        }
        json_decref(doc);
        free(text);
    }
    *code = 200;
    return json_pack("{s:s, s:s, s:{s:s, s:b, s:o, s:o}}", "apiVersion",
                     "admission.k8s.io/v1", "kind", "AdmissionReview",
                     "response", "uid", uid, "allowed", allowed, "status",
                     status, "warnings", warnings);
}

static enum MHD_Result metrics(struct MHD_Connection *c, server *s)
{
    char text[4096];
    size_t n = 0;
#define ADD(...)                                                               \
    n += (size_t)snprintf(text + n, n < sizeof text ? sizeof text - n : 0,     \
                          __VA_ARGS__)
    ADD("# HELP kvplan_requests_total Requests answered, by route.\n"
        "# TYPE kvplan_requests_total counter\n");
    for (int r = 0; r < R_COUNT; r++)
        ADD("kvplan_requests_total{route=\"%s\"} %llu\n", route_names[r],
            atomic_load(&s->requests[r]));
    ADD("# HELP kvplan_errors_total Answers of status 400 and above.\n"
        "# TYPE kvplan_errors_total counter\n");
    for (int r = 0; r < R_COUNT; r++)
        ADD("kvplan_errors_total{route=\"%s\"} %llu\n", route_names[r],
            atomic_load(&s->errors[r]));
    ADD("# HELP kvplan_request_seconds Time from a request's first byte to "
        "its answer.\n# TYPE kvplan_request_seconds histogram\n");
    unsigned long long total = 0;
    for (int r = 0; r < R_COUNT; r++)
        total += atomic_load(&s->requests[r]);
    for (size_t i = 0; i < NUM_BUCKETS; i++)
        ADD("kvplan_request_seconds_bucket{le=\"%g\"} %llu\n", buckets[i],
            atomic_load(&s->within[i]));
    ADD("kvplan_request_seconds_bucket{le=\"+Inf\"} %llu\n", total);
    ADD("kvplan_request_seconds_sum %.6f\n",
        (double)atomic_load(&s->micros) * 1e-6);
    ADD("kvplan_request_seconds_count %llu\n", total);
#undef ADD
    if (n >= sizeof text)
        n = sizeof text - 1;
    return answer(c, 200, "text/plain; version=0.0.4", text, n);
}

static int route_of(const char *method, const char *url)
{
    bool post = strcmp(method, "POST") == 0, get = strcmp(method, "GET") == 0;
    return post && strcmp(url, "/v1/plan") == 0    ? R_PLAN
           : post && strcmp(url, "/v1/check") == 0 ? R_CHECK
           : post && strcmp(url, "/validate") == 0 ? R_VALIDATE
           : get && strcmp(url, "/healthz") == 0   ? R_HEALTHZ
           : get && strcmp(url, "/metrics") == 0   ? R_METRICS
                                                   : R_OTHER;
}

static enum MHD_Result route(struct MHD_Connection *c, server *s, int r,
                             const body *b, unsigned *code)
{
    json_t *doc = NULL;
    size_t count[4];
    *code = 200;
    switch (r) {
    case R_PLAN:
        return plan(c, b);
    case R_CHECK:
        doc = check_text(s, b->data, b->len, "request", count, code);
        return answer_json(c, *code, doc);
    case R_VALIDATE: {
        json_error_t e;
        json_t *req = json_loadb(b->data, b->len, 0, &e);
        if (req == NULL) {
            *code = 400;
            return answer_error(c, 400, "AdmissionReview", e.text);
        }
        doc = review(s, req, code);
        json_decref(req);
        return answer_json(c, *code, doc);
    }
    case R_HEALTHZ:
        return answer(c, 200, "text/plain", "ok\n", 3);
    case R_METRICS:
        return metrics(c, s);
    default:
        *code = 404;
        return answer_error(c, 404, "url",
                            "routes: POST /v1/plan, /v1/check, /validate; "
                            "GET /healthz, /metrics");
    }
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
                              const char *url, const char *method,
                              const char *version, const char *upload,
                              size_t *upload_size, void **state)
{
    (void)version;
    server *s = cls;
    body *b = *state;
    if (b == NULL) { /* the headers: the body follows */
        if ((b = calloc(1, sizeof *b)) == NULL)
            return MHD_NO;
        b->start = cli_now();
        *state = b;
        return MHD_YES;
    }
    if (*upload_size > 0) {
        if (!b->too_large && b->len + *upload_size <= s->max_body) {
            char *g = realloc(b->data, b->len + *upload_size + 1);
            if (g == NULL)
                return MHD_NO;
            memcpy(g + b->len, upload, *upload_size);
            b->data = g;
            b->len += *upload_size;
            b->data[b->len] = '\0';
        } else {
            b->too_large = true;
        }
        *upload_size = 0;
        return MHD_YES;
    }
    int r = route_of(method, url);
    unsigned code = 413;
    enum MHD_Result ok;
    if (b->too_large) {
        char m[120];
        snprintf(m, sizeof m, "the body is over %zu bytes (--max-body)",
                 s->max_body);
        ok = answer_error(c, 413, "body", m);
    } else {
        if (b->data == NULL && (b->data = calloc(1, 1)) == NULL)
            return MHD_NO;
        ok = route(c, s, r, b, &code);
    }
    atomic_fetch_add(&s->requests[r], 1);
    if (code >= 400)
        atomic_fetch_add(&s->errors[r], 1);
    double t = cli_now() - b->start;
    atomic_fetch_add(&s->micros, (unsigned long long)(t * 1e6));
    for (size_t i = 0; i < NUM_BUCKETS; i++)
        if (t <= buckets[i])
            atomic_fetch_add(&s->within[i], 1);
    return ok;
}

static void completed(void *cls, struct MHD_Connection *c, void **state,
                      enum MHD_RequestTerminationCode why)
{
    (void)cls;
    (void)c;
    (void)why;
    body *b = *state;
    if (b != NULL)
        free(b->data);
    free(b);
    *state = NULL;
}

/* ---- the command -------------------------------------------------------- */

static int usage(FILE *out)
{
    fprintf(out,
            "usage: kvplan serve [--listen HOST:PORT] [--tls-cert FILE "
            "--tls-key FILE]\n"
            "                    [--workers N] [--max-body BYTES] "
            "[--time-limit SECONDS]\n"
            "  HTTP: POST /v1/plan (a JSON request, docs/json-api.md), POST "
            "/v1/check (a manifest),\n"
            "  POST /validate (an admission.k8s.io/v1 AdmissionReview), GET "
            "/healthz, GET /metrics.\n"
            "  --listen 127.0.0.1:8080 by default ([::]:8443 for IPv6; port 0: "
            "any free port, printed)\n"
            "  --workers 4, --max-body 4194304, --time-limit 10; SIGTERM stops "
            "it after the requests in flight\n");
    return out == stdout ? CLI_EXIT_OK : CLI_EXIT_USAGE;
}

typedef struct serve_args {
    const char *listen, *cert, *key;
    long workers, max_body, time_limit;
} serve_args;

static bool number(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static int parse(int argc, char **argv, serve_args *a, kvplan_error *err)
{
    *a = (serve_args){"127.0.0.1:8080", NULL, NULL, 4, 4 << 20, 10};
    for (int i = 2; i < argc; i += 2) { /* a flag and its value */
        const char *f = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = v != NULL;
        if (ok && strcmp(f, "--listen") == 0)
            a->listen = v;
        else if (ok && strcmp(f, "--tls-cert") == 0)
            a->cert = v;
        else if (ok && strcmp(f, "--tls-key") == 0)
            a->key = v;
        else if (ok && strcmp(f, "--workers") == 0)
            ok = number(v, 1, 256, &a->workers);
        else if (ok && strcmp(f, "--max-body") == 0)
            ok = number(v, 1024, 64 << 20, &a->max_body);
        else if (ok && strcmp(f, "--time-limit") == 0)
            ok = number(v, 1, 3600, &a->time_limit);
        else
            return cli_usage_error(err, f,
                                   "%s: not a flag of kvplan serve, or its "
                                   "value is missing (kvplan serve --help)",
                                   f) == KVPLAN_OK;
        if (!ok)
            return cli_usage_error(err, f, "%s %s: out of its range", f, v) ==
                   KVPLAN_OK;
    }
    if ((a->cert == NULL) != (a->key == NULL))
        return cli_usage_error(err, "--tls-cert",
                               "--tls-cert and --tls-key go together") ==
               KVPLAN_OK;
    return 1;
}

/* HOST:PORT into an IPv4 or IPv6 address ("[::1]:8443"). */
static bool address(const char *listen, struct sockaddr_storage *sa, bool *ipv6)
{
    const char *colon = strrchr(listen, ':');
    long port;
    if (colon == NULL || !number(colon + 1, 0, 65535, &port))
        return false;
    char host[64];
    size_t n = (size_t)(colon - listen);
    if (n >= sizeof host)
        return false;
    memcpy(host, listen, n);
    host[n] = '\0';
    memset(sa, 0, sizeof *sa);
    *ipv6 = host[0] == '[';
    if (*ipv6) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)sa;
        if (n < 2 || host[n - 1] != ']')
            return false;
        host[n - 1] = '\0';
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)port);
        return inet_pton(AF_INET6, host + 1, &s6->sin6_addr) == 1;
    }
    struct sockaddr_in *s4 = (struct sockaddr_in *)sa;
    s4->sin_family = AF_INET;
    s4->sin_port = htons((uint16_t)port);
    return inet_pton(AF_INET, strcmp(host, "localhost") ? host : "127.0.0.1",
                     &s4->sin_addr) == 1;
}

static struct MHD_Daemon *start(server *s, const serve_args *a,
                                const struct sockaddr_storage *sa, bool ipv6,
                                const char *cert, const char *key)
{
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
                     (ipv6 ? MHD_USE_IPv6 : 0) | (cert ? MHD_USE_TLS : 0);
    struct MHD_OptionItem o[8];
    size_t n = 0;
    o[n++] = (struct MHD_OptionItem){MHD_OPTION_SOCK_ADDR, 0, (void *)sa};
    o[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_LIMIT,
                                     (intptr_t)(a->workers * 16), NULL};
    o[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_TIMEOUT,
                                     (intptr_t)a->time_limit, NULL};
    o[n++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_COMPLETED,
                                     (intptr_t)completed, NULL};
    if (a->workers > 1) /* one worker: the polling thread itself */
        o[n++] = (struct MHD_OptionItem){MHD_OPTION_THREAD_POOL_SIZE,
                                         (intptr_t)a->workers, NULL};
    if (cert != NULL) {
        o[n++] =
            (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)cert};
        o[n++] =
            (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)key};
    }
    o[n] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
    return cli_mhd.start_daemon(flags, 0, NULL, NULL, handle, s,
                                MHD_OPTION_ARRAY, o, MHD_OPTION_END);
}

int cli_cmd_serve(int argc, char **argv)
{
    if (argc > 2 &&
        (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0))
        return usage(stdout);
    serve_args a;
    kvplan_error err;
    struct sockaddr_storage sa;
    bool ipv6 = false;
    if (!parse(argc, argv, &a, &err))
        return cli_error("kvplan serve", &err, CLI_EXIT_USAGE, false);
    if (!address(a.listen, &sa, &ipv6)) {
        cli_usage_error(&err, "--listen",
                        "--listen %.80s: expected HOST:PORT (127.0.0.1:8080, "
                        "0.0.0.0:8443, [::]:8443)",
                        a.listen);
        return cli_error("kvplan serve", &err, CLI_EXIT_USAGE, false);
    }
    size_t len;
    char *cert = a.cert ? cli_read_file(a.cert, 1 << 20, "--tls-cert",
                                        "a PEM certificate", &len, &err)
                        : NULL;
    char *key = cert && a.key ? cli_read_file(a.key, 1 << 20, "--tls-key",
                                              "a PEM key", &len, &err)
                              : NULL;
    if (a.cert != NULL && (cert == NULL || key == NULL)) {
        free(cert);
        return cli_error("kvplan serve", &err, CLI_EXIT_BAD_INPUT, false);
    }
    char why[300];
    if (!cli_mhd_load(why, sizeof why)) {
        free(cert);
        free(key);
        fprintf(stderr, "kvplan serve: %s\n", why);
        return CLI_EXIT_INTERNAL;
    }
    /* no file written: the Hub's cache is read, never filled */
    setenv("HF_HUB_OFFLINE", "1", 1);
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, NULL); /* the workers inherit it */
    static server s;
    s.max_body = (size_t)a.max_body;
    s.time_limit = (double)a.time_limit;
    struct MHD_Daemon *d = start(&s, &a, &sa, ipv6, cert, key);
    int rc = CLI_EXIT_OK;
    if (d == NULL) {
        fprintf(stderr, "kvplan serve: cannot listen on %s%s\n", a.listen,
                cert ? " with TLS (is the key the certificate's?)" : "");
        rc = CLI_EXIT_BAD_INPUT;
    } else {
        const union MHD_DaemonInfo *info =
            cli_mhd.get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
        printf("kvplan serve: listening on %s://%.*s:%u\n",
               cert ? "https" : "http",
               (int)(strrchr(a.listen, ':') - a.listen), a.listen,
               info ? info->port : 0);
        fflush(stdout);
        int sig = 0;
        sigwait(&stop, &sig);
        cli_mhd.stop_daemon(d); /* after the requests in flight */
        printf("kvplan serve: stopped (%s)\n",
               sig == SIGTERM ? "SIGTERM" : "SIGINT");
    }
    free(cert);
    free(key);
    return rc;
}
