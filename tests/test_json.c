/*
 * test_json.c: kvplan_json, the JSON entry point, as an embedder links it
 * (the shared library). Each request's answer is compared byte for byte
 * with what the kvplan command prints for the same command line; the
 * request's own errors name the member; the status is the library's; no
 * request writes a file; a value of the wrong type is refused; calls on
 * eight threads at once (plans, fits, sweeps ranked by different keys)
 * answer as one alone does.
 *
 *   test_json KVPLAN_BINARY SOURCE_DIR
 */
#include "check.h"
#include "kvplan.h"
#include "kvplan_json.h"

#include <dirent.h>
#include <jansson.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *kvplan_bin, *source_dir;

/* The command's standard output for `args` (a shell word list), without
 * its last newline, and its exit status. */
static char *command(const char *args, const char *stdin_file, int *rc)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s %s <%s 2>/dev/null", kvplan_bin, args,
             stdin_file ? stdin_file : "/dev/null");
    FILE *p = popen(cmd, "r");
    size_t cap = 1 << 20, n = 0, got;
    char *buf = malloc(cap);
    while (p != NULL && buf != NULL &&
           (got = fread(buf + n, 1, cap - n - 1, p)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *b = realloc(buf, cap *= 2);
            if (b == NULL)
                break;
            buf = b;
        }
    }
    int st = p != NULL ? pclose(p) : -1;
    *rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (buf == NULL)
        return NULL;
    while (n > 0 && buf[n - 1] == '\n')
        n--;
    buf[n] = '\0';
    return buf;
}

static char *call(const char *request, int *rc)
{
    char *resp = NULL;
    size_t len = 0;
    *rc = (int)kvplan_json(request, strlen(request), &resp, &len);
    CHECK(resp != NULL);
    if (resp != NULL)
        CHECK_INT(strlen(resp), len);
    return resp;
}

/* The library's status for the command's exit status of a whole answer:
 * 0 ok, 1 the answer says it does not fit. */
static int status_of(int exit_status)
{
    return exit_status == 0 ? KVPLAN_OK : KVPLAN_NOT_ENOUGH_MEMORY;
}

/* `text` in a request's terms, as kvplan_json answers (its field and
 * message name each option by its key: --tp-size is tp_size), where the
 * command names flags; a command line quoted as one is left. */
static void request_terms(char *text)
{
    char *out = text;
    bool quoted = false;
    for (const char *p = text; *p != '\0';) {
        if (strncmp(p, "kvplan ", 7) == 0)
            quoted = true;
        else if (*p == ')' || *p == ';' || *p == ',')
            quoted = false;
        size_t len = 0;
        const kvplan_option *o = NULL;
        if (!quoted && p[0] == '-' && p[1] == '-' &&
            (p == text || p[-1] == ' ' || p[-1] == '(' || p[-1] == '"')) {
            while (p[2 + len] == '-' ||
                   (p[2 + len] >= 'a' && p[2 + len] <= 'z') ||
                   (p[2 + len] >= '0' && p[2 + len] <= '9'))
                len++;
            while (len > 0 && p[1 + len] == '-')
                len--;
            o = len > 0 ? kvplan_option_find_n(p, len + 2) : NULL;
        }
        if (o != NULL && o->type != KVPLAN_OPTION_NOT_READ &&
            strlen(o->name) <= len + 2) {
            memcpy(out, o->name, strlen(o->name));
            out += strlen(o->name);
            p += len + 2;
        } else {
            *out++ = *p++;
        }
    }
    *out = '\0';
}

/* The request answers as `kvplan ARGS` does. */
static void same(const char *request, const char *args, const char *in,
                 int want_rc)
{
    int rc = -1, crc = -1;
    char *resp = call(request, &rc);
    char *out = command(args, in, &crc);
    if (out != NULL && strncmp(out, "{\"error\"", 8) == 0)
        request_terms(out);
    CHECK_INT(rc, status_of(want_rc));
    CHECK_INT(crc, want_rc);
    if (resp != NULL && out != NULL && strcmp(resp, out) != 0)
        fprintf(stderr, "request %s\n  answered %.300s\n  command  %.300s\n",
                request, resp, out);
    CHECK(resp != NULL && out != NULL && strcmp(resp, out) == 0);
    kvplan_json_free(resp);
    free(out);
}

/* The request is refused with the library's status `want`, the
 * command's exit status `exit_status` in the document, the member or key
 * `field` named. */
static void refused(const char *request, kvplan_status want, int exit_status,
                    const char *field, const char *says)
{
    int rc = -1;
    char *resp = call(request, &rc);
    CHECK_INT(rc, want);
    if (resp != NULL) {
        char text[160];
        snprintf(text, sizeof text, "\"field\": \"%s\"", field);
        if (field[0] != '\0')
            CHECK_CONTAINS(resp, text);
        CHECK_CONTAINS(resp, says);
        CHECK_CONTAINS(resp, "\"error\": ");
        snprintf(text, sizeof text, "\"exit_status\": %d", exit_status);
        CHECK_CONTAINS(resp, text);
    }
    kvplan_json_free(resp);
}

/* Plans, fits, errors and sweeps ranked by different keys: the rows of
 * each sweep come in its own key's order whatever the others ask. */
static const char *const threaded[] = {
    "{\"model\": \"gpt-oss-120b\", \"flags\": {\"gpu\": \"H100-80GB\", "
    "\"tp_size\": 2}}",
    "{\"model\": \"deepseek-v3\", \"flags\": {\"gpu\": \"H200\", "
    "\"tp_size\": 8}}",
    "{\"model\": \"llama-3.1-8b-instruct\", \"flags\": {\"tp_sizee\": 2}}",
    "{\"command\": \"fit\", \"model\": \"qwen3-8b\", \"flags\": {\"gpu\": "
    "\"L4\", \"concurrency\": 4}}",
    "{\"command\": \"sweep\", \"model\": \"llama-3.1-8b-instruct\", "
    "\"flags\": {\"gpu\": [\"H100-80GB\", \"L4\", \"H200\"], \"tp_size\": "
    "[1, 2], \"rank_by\": \"gpus\"}}",
    "{\"command\": \"sweep\", \"model\": \"llama-3.1-8b-instruct\", "
    "\"flags\": {\"gpu\": [\"H100-80GB\", \"L4\", \"H200\"], \"tp_size\": "
    "[1, 2], \"rank_by\": \"tokens\"}}",
    "{\"command\": \"sweep\", \"model\": \"qwen3-8b\", \"flags\": {\"gpu\": "
    "[\"L4\", \"H100-80GB\"], \"mem_fraction_static\": [0.8, 0.9], "
    "\"rank_by\": \"longest-request\"}}",
    "{\"command\": \"fit\", \"model\": \"gpt-oss-120b\", \"flags\": "
    "{\"gpu\": \"H100-80GB\", \"tp_size\": 2, \"context_length\": 8192}}"};
#define NT (sizeof threaded / sizeof *threaded)
static char *alone[NT];

static void *worker(void *arg)
{
    size_t k = (size_t)(uintptr_t)arg;
    int bad = 0;
    for (int round = 0; round < 5; round++) {
        for (size_t j = 0; j < NT; j++) {
            size_t i = (j + k) % NT;
            char *resp = NULL;
            kvplan_json(threaded[i], strlen(threaded[i]), &resp, NULL);
            bad += resp == NULL || strcmp(resp, alone[i]) != 0;
            kvplan_json_free(resp);
        }
    }
    return (void *)(uintptr_t)bad;
}

/* No request writes a file: the picture and the calibration come back in
 * the answer, and the command's file flags are not options. Run in an
 * empty folder, which stays empty. */
static void test_no_files(void)
{
    char dir[] = "/tmp/kvplan-test-json-dir-XXXXXX", here[4096];
    CHECK(mkdtemp(dir) != NULL);
    CHECK(getcwd(here, sizeof here) != NULL);
    CHECK_INT(chdir(dir), 0);
    static const char *const requests[] = {
        "{\"model\": \"qwen3-8b\", \"flags\": {\"gpu\": \"L4\"}, "
        "\"svg\": true}",
        "{\"command\": \"fit\", \"model\": \"qwen3-8b\", \"flags\": "
        "{\"concurrency\": 2}, \"svg\": true}",
        "{\"flags\": {\"svg\": \"out.svg\"}}",
        "{\"flags\": {\"svg\": true, \"json\": true}}",
        "{\"flags\": {\"--svg\": \"out.svg\"}}",
        "{\"command\": \"sweep\", \"flags\": {\"tp_size\": [1, 2], \"svg\": "
        "\"bars.svg\"}}",
        "{\"command\": \"log\", \"log\": \"x\", \"flags\": {\"calibrate\": "
        "\"cal.json\"}}",
        "{\"flags\": {\"calibration\": \"cal.json\"}}",
    };
    for (size_t i = 0; i < sizeof requests / sizeof *requests; i++) {
        int rc = -1;
        char *r = call(requests[i], &rc);
        CHECK(r != NULL);
        if (i < 2 && r != NULL) /* the picture, inline */
            CHECK_CONTAINS(r, "\"svg\": \"<?xml version=");
        kvplan_json_free(r);
    }
    /* a calibration comes back as a document */
    char path[4096], *text = NULL;
    snprintf(path, sizeof path,
             "%s/tests/logs/01-meta-llama-3-1-8b-instruct.log", source_dir);
    FILE *f = fopen(path, "rb");
    size_t n = 0;
    if (f != NULL) {
        text = calloc(1, 1 << 20);
        n = text ? fread(text, 1, (1 << 20) - 1, f) : 0;
        fclose(f);
    }
    json_t *req = json_pack("{s:s, s:s%, s:b, s:{s:s}}", "command", "log",
                            "log", text ? text : "", n, "calibrate", 1, "flags",
                            "gpu", "H100-80GB");
    char *body = json_dumps(req, 0);
    int rc = -1;
    char *r = body ? call(body, &rc) : NULL;
    CHECK_INT(rc, KVPLAN_OK);
    if (r != NULL) {
        CHECK_CONTAINS(r, "\"calibration\": {\"context_bytes\": ");
        CHECK_CONTAINS(r, "\"kvplan_calibration\": 1");
    }
    kvplan_json_free(r);
    free(body);
    json_decref(req);
    free(text);
    DIR *d = opendir(".");
    size_t entries = 0;
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL)
        entries += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d != NULL)
        closedir(d);
    CHECK_INT(entries, 0);
    CHECK_INT(chdir(here), 0);
    rmdir(dir);
}

/* A vLLM log through the request (the Python and web path): its reader,
 * the request's flags over the log's, the same document as kvplan log
 * --json; a calibration is refused, naming the key (tests/logs/vllm/02:
 * 29,053 blocks inside [29052, 29064] from its own 24.83 GiB). */
static void test_vllm_log_request(void)
{
    char path[4096], *text = calloc(1, 1 << 16);
    snprintf(path, sizeof path, "%s/tests/logs/vllm/02-qwen2-7b-a100-0.5.log",
             source_dir);
    FILE *f = fopen(path, "rb");
    size_t n = 0;
    if (f != NULL && text != NULL) {
        n = fread(text, 1, (1 << 16) - 1, f);
        fclose(f);
    }
    for (int calibrate = 0; calibrate < 2; calibrate++) {
        json_t *req =
            json_pack("{s:s, s:s%, s:b, s:{s:s, s:s}}", "command", "log", "log",
                      text ? text : "", n, "calibrate", calibrate, "flags",
                      "gpu", "A100-80GB", "model_path", "qwen2.5-7b-instruct");
        char *body = json_dumps(req, 0);
        int rc = -1;
        char *r = body ? call(body, &rc) : NULL;
        CHECK(r != NULL);
        if (r != NULL && !calibrate) {
            CHECK_INT(rc, KVPLAN_OK);
            CHECK_CONTAINS(r, "\"engine\": \"vllm\"");
            CHECK_CONTAINS(r, "\"blocks_lo\": 29052");
            CHECK_CONTAINS(r, "\"inside\": true");
            CHECK_CONTAINS(r, "\"vllm_version\": \"0.10-0.12\"");
        } else if (r != NULL) { /* test_vllm_log's figures for log 02 */
            CHECK_INT(rc, KVPLAN_OK);
            CHECK_CONTAINS(r, "\"activation_bytes\": 602730712");
            CHECK_CONTAINS(r, "\"rank_weight_bytes\": 15299532501");
            CHECK_CONTAINS(r, "\"folded\": true");
        }
        kvplan_json_free(r);
        free(body);
        json_decref(req);
    }
    free(text);
}

/* A TensorRT-LLM log through the request: its reader and the same
 * document as kvplan log --json (tests/logs/trtllm/01: max_tokens 86711
 * inside [86580, 86725] at gpt-oss-120b's 73728 bytes a token); a
 * calibration is refused, naming the key. */
static void test_trtllm_log_request(void)
{
    char path[4096], *text = calloc(1, 1 << 16);
    snprintf(path, sizeof path,
             "%s/tests/logs/trtllm/01-gpt-oss-120b-gb10-1.1.0rc3.log",
             source_dir);
    FILE *f = fopen(path, "rb");
    size_t n = 0;
    if (f != NULL && text != NULL) {
        n = fread(text, 1, (1 << 16) - 1, f);
        fclose(f);
    }
    for (int calibrate = 0; calibrate < 2; calibrate++) {
        json_t *req =
            json_pack("{s:s, s:s%, s:b, s:{s:s}}", "command", "log", "log",
                      text ? text : "", n, "calibrate", calibrate, "flags",
                      "model_path", "gpt-oss-120b");
        char *body = json_dumps(req, 0);
        int rc = -1;
        char *r = body ? call(body, &rc) : NULL;
        CHECK(r != NULL);
        if (r != NULL && !calibrate) {
            CHECK_INT(rc, KVPLAN_OK);
            CHECK_CONTAINS(r, "\"engine\": \"trtllm\"");
            CHECK_CONTAINS(r, "\"max_tokens_lo\": 86580");
            CHECK_CONTAINS(r, "\"bytes_per_token\": 73728");
            CHECK_CONTAINS(r, "\"inside\": true");
        } else if (r != NULL) {
            CHECK_INT(rc, KVPLAN_UNSUPPORTED);
            CHECK_CONTAINS(r, "\"field\": \"calibrate\"");
        }
        kvplan_json_free(r);
        free(body);
        json_decref(req);
    }
    free(text);
}

/* --dp-size 2: one GPU count whichever command asks (the fleet's rule). */
static void test_fleet(void)
{
    static const char *const requests[] = {
        "{\"flags\": {\"dp_size\": 2}}",
        ("{\"command\": \"sweep\", \"flags\": {\"dp_size\": 2, \"tp_size\": "
         "[1]}}"),
        "{\"command\": \"compare\", \"flags\": {\"dp_size\": 2}}"};
    for (size_t i = 0; i < 3; i++) {
        int rc = -1;
        char *r = call(requests[i], &rc);
        CHECK_INT(rc, KVPLAN_OK);
        json_t *doc = r ? json_loads(r, 0, NULL) : NULL;
        json_t *gpus =
            i == 0   ? json_object_get(json_object_get(doc, "fleet"), "gpus")
            : i == 1 ? json_object_get(json_array_get(doc, 0), "gpus")
                     : json_object_get(doc, "gpus");
        CHECK_INT(json_integer_value(gpus), 2);
        if (i == 0)
            CHECK_INT(json_integer_value(json_object_get(
                          json_object_get(doc, "gpu"), "count")),
                      2);
        json_decref(doc);
        kvplan_json_free(r);
    }
}

/* A session answers as kvplan_json does, its models kept between calls;
 * prepared scenarios answer as command pools. */
static void test_session(void)
{
    static const char *const requests[] = {
        "{\"model\": \"qwen3-8b\", \"flags\": {\"gpu\": \"L4\"}}",
        "{\"model\": \"qwen3-8b\", \"flags\": {\"gpu\": \"H200\"}}",
        "{\"model\": \"qwen3-8b\", \"flags\": {\"gpu\": \"H200\", "
        "\"json_model_override_args\": {\"max_position_embeddings\": 8192}}}",
        "{\"model\": \"llama-3.1-8b-instruct\", \"flags\": "
        "{\"speculative_algorithm\": \"EAGLE3\", "
        "\"speculative_draft_model_path\": \"eagle3-llama3.1-8b\"}}",
        "{\"config\": {\"architectures\": [\"LlamaForCausalLM\"], "
        "\"hidden_size\": 1024, \"num_attention_heads\": 8, "
        "\"num_hidden_layers\": 4, \"num_key_value_heads\": 2, "
        "\"vocab_size\": 1000}}",
        "{\"command\": \"fit\", \"model\": \"qwen3-8b\", \"flags\": "
        "{\"concurrency\": 4}}",
        "{\"model\": \"no-such-model\"}",
    };
    kvplan_json_session *session = kvplan_json_session_new();
    CHECK(session != NULL);
    for (int round = 0; round < 3; round++)
        for (size_t i = 0; i < sizeof requests / sizeof *requests; i++) {
            const char *r = requests[i];
            char *a = NULL, *b = NULL;
            kvplan_status sa = kvplan_json(r, strlen(r), &a, NULL);
            kvplan_status sb =
                kvplan_json_session_call(session, r, strlen(r), &b, NULL);
            CHECK_INT(sb, sa);
            CHECK(a != NULL && b != NULL && strcmp(a, b) == 0);
            kvplan_json_free(a);
            kvplan_json_free(b);
        }
    kvplan_json_session_free(session);
    kvplan_json_session_free(NULL);

    /* prepared scenarios: each one's results as command pools writes them */
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/data/golden/configurator.jsonl",
             source_dir);
    FILE *f = fopen(path, "rb");
    char *text = malloc(4 << 20);
    size_t n = f != NULL && text != NULL ? fread(text, 1, (4 << 20) - 1, f) : 0;
    if (f != NULL)
        fclose(f);
    CHECK(n > 100000);
    kvplan_scenarios *sc = NULL;
    kvplan_error err;
    CHECK_INT(kvplan_scenarios_load(text, n, &sc, &err), KVPLAN_OK);
    CHECK_INT(kvplan_scenarios_count(sc), 813);
    char *results = NULL;
    CHECK_INT(kvplan_scenarios_run(sc, &results, NULL), KVPLAN_OK);
    json_t *got = results ? json_loads(results, 0, NULL) : NULL;
    json_t *req =
        json_pack("{s:s, s:s%}", "command", "pools", "scenarios", text, n);
    char *body = json_dumps(req, 0), *answer = NULL;
    CHECK_INT(kvplan_json(body, strlen(body), &answer, NULL), KVPLAN_OK);
    json_t *want = answer ? json_loads(answer, 0, NULL) : NULL;
    CHECK_INT(json_array_size(got), 813);
    size_t same = 0;
    for (size_t i = 0; i < json_array_size(want); i++)
        same += json_equal(
                    json_array_get(got, i),
                    json_object_get(json_array_get(want, i), "results")) != 0;
    CHECK_INT(same, 813);
    json_decref(got);
    json_decref(want);
    json_decref(req);
    free(body);
    kvplan_json_free(answer);
    kvplan_json_free(results);
    kvplan_scenarios_free(sc);
    /* a scenario it cannot read names it and its field */
    const char *bad = "[{\"runner\": {}}]";
    CHECK_INT(kvplan_scenarios_load(bad, strlen(bad), &sc, &err), KVPLAN_PARSE);
    CHECK_STR(err.field, "/scenarios/0/model");
    free(text);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_json KVPLAN_BINARY SOURCE_DIR\n");
        return 2;
    }
    kvplan_bin = argv[1];
    source_dir = argv[2];

    /* the figure, and the document the command prints */
    int rc;
    char *r = call("{\"model\": \"llama-3.1-8b-instruct\", \"flags\": "
                   "{\"available_bytes\": 107374182400, \"page_size\": 64}}",
                   &rc);
    CHECK_INT(rc, 0);
    if (r != NULL)
        CHECK_CONTAINS(r, "\"max_total_num_tokens\": 819200,");
    kvplan_json_free(r);
    same("{\"model\": \"llama-3.1-8b-instruct\", \"flags\": "
         "{\"available_bytes\": 107374182400, \"page_size\": 64}}",
         "--model-path llama-3.1-8b-instruct --available-bytes 107374182400 "
         "--page-size 64 --json",
         NULL, 0);
    /* the default: the command with no argument */
    same("{}", "--json", NULL, 0);
    /* sglang's names for every kind of value: words, reals, store_true */
    same("{\"model\": \"gpt-oss-120b\", \"flags\": {\"gpu\": \"H100-80GB\", "
         "\"tp_size\": 2, \"kv_cache_dtype\": \"fp8_e4m3\", "
         "\"mem_fraction_static\": 0.85, \"disable_cuda_graph\": true, "
         "\"enable_dp_attention\": false, \"context_length\": null}}",
         "--model-path gpt-oss-120b --gpu H100-80GB --tp-size 2 "
         "--kv-cache-dtype fp8_e4m3 --mem-fraction-static 0.85 "
         "--disable-cuda-graph --json",
         NULL, 0);
    /* an object flag is its JSON text; "--flag" keys are taken as they are */
    same("{\"model\": \"qwen3-8b\", \"flags\": {\"--gpu\": \"L4\", "
         "\"json_model_override_args\": {\"max_position_embeddings\": 8192}}}",
         "--model-path qwen3-8b --gpu L4 --json-model-override-args "
         "'{\"max_position_embeddings\": 8192}' --json",
         NULL, 0);
    /* a string flag is passed whole, however long (an override of 5 KB) */
    {
        char *big = malloc(8192), *q = big;
        if (big != NULL) {
            q += sprintf(q, "{\"model\": \"qwen3-8b\", \"flags\": "
                            "{\"json_model_override_args\": \"{");
            for (int i = 0; i < 300; i++)
                q += sprintf(q, "\\\"k%03d\\\": %d, ", i, i);
            sprintf(q, "\\\"max_position_embeddings\\\": 4096}\"}}");
            r = call(big, &rc);
            CHECK_INT(rc, 0);
            if (r != NULL)
                CHECK_CONTAINS(r, "\"context_len\": 4096,");
            kvplan_json_free(r);
            free(big);
        }
    }
    /* speculative decoding with a draft: the catalog's EAGLE3 */
    same("{\"model\": \"deepseek-v3\", \"flags\": {\"gpu\": \"H200\", "
         "\"tp_size\": 8, \"speculative_algorithm\": \"EAGLE\", "
         "\"speculative_num_steps\": 3, \"speculative_eagle_topk\": 1, "
         "\"speculative_num_draft_tokens\": 4}}",
         "--model-path deepseek-v3 --gpu H200 --tp-size 8 "
         "--speculative-algorithm EAGLE --speculative-num-steps 3 "
         "--speculative-eagle-topk 1 --speculative-num-draft-tokens 4 --json",
         NULL, 0);
    /* a plan that does not fit: status 1, the command's error object */
    same("{\"model\": \"deepseek-v3\", \"flags\": {\"gpu\": \"L4\"}}",
         "--model-path deepseek-v3 --gpu L4 --json", NULL, 1);
    /* the other commands */
    same("{\"command\": \"fit\", \"model\": \"gpt-oss-120b\", \"flags\": "
         "{\"gpu\": \"H100-80GB\", \"tp_size\": 2, \"concurrency\": 8}}",
         "fit --model-path gpt-oss-120b --gpu H100-80GB --tp-size 2 "
         "--concurrency 8 --json",
         NULL, 0);
    same("{\"command\": \"solve\", \"model\": \"deepseek-v3\", \"flags\": "
         "{\"gpu\": \"H200\", \"tp_size\": 8, \"solve_for\": "
         "\"mem-fraction-static\", \"target_tokens\": 400000}}",
         "solve --model-path deepseek-v3 --gpu H200 --tp-size 8 --solve-for "
         "mem-fraction-static --target-tokens 400000 --json",
         NULL, 0);
    same("{\"command\": \"sweep\", \"model\": \"qwen3-8b\", \"flags\": "
         "{\"gpu\": [\"H100-80GB\", \"L4\"], \"tp_size\": [1, 2], "
         "\"mem_fraction_static\": [0.8, 0.9]}}",
         "sweep --model-path qwen3-8b --gpu H100-80GB,L4 --tp-size 1,2 "
         "--mem-fraction-static 0.8,0.9 --json",
         NULL, 0);
    /* a log's text, and golden scenarios, as the command reads them */
    char path[4096], *text = NULL;
    snprintf(path, sizeof path,
             "%s/tests/logs/01-meta-llama-3-1-8b-instruct.log", source_dir);
    FILE *f = fopen(path, "rb");
    size_t n = 0;
    if (f != NULL) {
        text = calloc(1, 1 << 20);
        n = text ? fread(text, 1, (1 << 20) - 1, f) : 0;
        fclose(f);
    }
    CHECK(text != NULL && n > 500);
    if (text != NULL) {
        /* the log as a JSON string: escape what JSON needs */
        char *req = malloc(2 * n + 6 * 256 + 64), *q = req;
        if (req != NULL) {
            q += sprintf(q, "{\"command\": \"log\", \"log\": \"");
            for (size_t i = 0; i < n; i++) {
                unsigned char c = (unsigned char)text[i];
                if (c == '"' || c == '\\')
                    q += sprintf(q, "\\%c", c);
                else if (c < 0x20)
                    q += sprintf(q, "\\u%04x", c);
                else
                    *q++ = (char)c;
            }
            strcpy(q, "\"}");
            char args[4200];
            snprintf(args, sizeof args, "log - --json");
            same(req, args, path, 0);
            free(req);
        }
        free(text);
    }
    snprintf(path, sizeof path, "%s/tests/data/golden/configurator.jsonl",
             source_dir);
    f = fopen(path, "rb");
    char line[65536];
    if (f != NULL && fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        char *req = malloc(strlen(line) + 64);
        char tmp[] = "/tmp/kvplan-test-json-XXXXXX";
        int fd = mkstemp(tmp);
        if (req != NULL && fd >= 0) {
            sprintf(req, "{\"command\": \"pools\", \"scenarios\": [%s]}", line);
            FILE *w = fdopen(fd, "w");
            fprintf(w, "%s\n", line);
            fclose(w);
            int prc = -1, crc = -1;
            char *resp = call(req, &prc), *out = command("pools", tmp, &crc);
            CHECK_INT(prc, 0);
            CHECK_INT(crc, 0);
            /* the answers, one a line, as one list */
            if (resp != NULL && out != NULL) {
                CHECK(resp[0] == '[' && resp[strlen(resp) - 1] == ']');
                CHECK(strncmp(resp + 1, out, strlen(out)) == 0);
                CHECK_INT(strlen(resp), strlen(out) + 2);
            }
            kvplan_json_free(resp);
            free(out);
            unlink(tmp);
        }
        free(req);
    }
    if (f != NULL)
        fclose(f);

    /* config.json inline, as an object and as text: the catalog's plan */
    snprintf(path, sizeof path,
             "%s/data/models/llama-3.1-8b-instruct/config.json", source_dir);
    f = fopen(path, "rb");
    char cfg[65536] = "";
    size_t cl = f != NULL ? fread(cfg, 1, sizeof cfg - 1, f) : 0;
    if (f != NULL)
        fclose(f);
    cfg[cl] = '\0';
    CHECK(cl > 100);
    char *req = malloc(2 * cl + 256);
    if (req != NULL) {
        sprintf(req, "{\"config\": %s, \"flags\": {\"gpu\": \"H100-80GB\"}}",
                cfg);
        char args[4200];
        snprintf(args, sizeof args, "--model-path - --gpu H100-80GB --json");
        same(req, args, path, 0);
        r = call(req, &rc);
        CHECK_INT(rc, 0);
        if (r != NULL) {
            CHECK_CONTAINS(r, "\"name\": \"config.json\"");
            CHECK_CONTAINS(r, "\"architecture\": \"LlamaForCausalLM\"");
        }
        kvplan_json_free(r);
        free(req);
    }

    /* the lists an interface offers */
    r = call("{\"command\": \"models\"}", &rc);
    CHECK_INT(rc, 0);
    if (r != NULL) {
        CHECK(r[0] == '[');
        CHECK_CONTAINS(r, "{\"architecture\": \"LlamaForCausalLM\", "
                          "\"draft_head\": false, "
                          "\"hf_id\": \"meta-llama/Llama-3.1-8B-Instruct\", "
                          "\"name\": \"llama-3.1-8b-instruct\"}");
        /* a draft head is marked, for a page's draft list */
        CHECK_CONTAINS(r, "{\"architecture\": \"LlamaForCausalLMEagle3\", "
                          "\"draft_head\": true, "
                          "\"hf_id\": \"lmsys/sglang-EAGLE3-LLaMA3.1-"
                          "Instruct-8B\", \"name\": \"eagle3-llama3.1-8b\"}");
    }
    kvplan_json_free(r);
    r = call("{\"command\": \"gpus\"}", &rc);
    if (r != NULL)
        CHECK_CONTAINS(r, "\"name\": \"H200\", \"total_mib\": 143771.0}");
    kvplan_json_free(r);
    r = call("{\"command\": \"flags\"}", &rc);
    if (r != NULL) {
        CHECK_CONTAINS(r, "\"flag\": \"--tp-size\"");
        CHECK_CONTAINS(
            r, "\"key\": \"tp_size\", \"kind\": \"integer\", "
               "\"question\": null, \"scope\": \"sglang\", "
               "\"sglang\": true, \"sweep\": true, \"trtllm\": \"--tp_size\", "
               "\"vllm\": \"--tensor-parallel-size\"");
        CHECK_CONTAINS(r, "\"key\": \"available_bytes\", \"kind\": "
                          "\"size\", \"question\": null, \"scope\": "
                          "\"kvplan\", \"sglang\": false");
        CHECK_CONTAINS(r, "\"key\": \"concurrency\", \"kind\": "
                          "\"integer\", \"question\": \"fit\"");
        CHECK_CONTAINS(r, "\"words\": [\"auto\", ");
    }
    kvplan_json_free(r);
    r = call("{\"command\": \"version\"}", &rc);
    if (r != NULL)
        CHECK_CONTAINS(r, kvplan_version());
    kvplan_json_free(r);
    /* the call's variables, as the process's are for the command; null
     * unsets one the process has */
    {
        int rc1 = -1, rc2 = -1, crc = -1;
        char *with =
            call("{\"model\": \"qwen3-next-80b-a3b-thinking\", "
                 "\"flags\": {\"gpu\": \"H100-80GB\", \"tp_size\": 4}, "
                 "\"env\": {\"SGLANG_MAMBA_SSM_DTYPE\": \"float16\"}}",
                 &rc1);
        setenv("SGLANG_MAMBA_SSM_DTYPE", "float16", 1);
        char *cmd = command("--model-path qwen3-next-80b-a3b-thinking --gpu "
                            "H100-80GB --tp-size 4 --json",
                            NULL, &crc);
        char *unset =
            call("{\"model\": \"qwen3-next-80b-a3b-thinking\", "
                 "\"flags\": {\"gpu\": \"H100-80GB\", \"tp_size\": 4}, "
                 "\"env\": {\"SGLANG_MAMBA_SSM_DTYPE\": null}}",
                 &rc2);
        unsetenv("SGLANG_MAMBA_SSM_DTYPE");
        char *plain = command("--model-path qwen3-next-80b-a3b-thinking --gpu "
                              "H100-80GB --tp-size 4 --json",
                              NULL, &crc);
        CHECK_INT(rc1, 0);
        CHECK_INT(rc2, 0);
        CHECK(with != NULL && cmd != NULL && strcmp(with, cmd) == 0);
        CHECK(unset != NULL && plain != NULL && strcmp(unset, plain) == 0);
        /* float16 halves the SSM state: 139 -> 272 requests */
        if (with != NULL && plain != NULL) {
            CHECK_CONTAINS(with, "\"max_running_requests\": 272,");
            CHECK_CONTAINS(plain, "\"max_running_requests\": 139,");
        }
        kvplan_json_free(with);
        kvplan_json_free(unset);
        free(cmd);
        free(plain);
    }
    refused("{\"env\": [1]}", KVPLAN_INVALID_ARGUMENT, 2, "env",
            "env must be an object");
    refused("{\"env\": {\"SGLANG_X\": 3}}", KVPLAN_INVALID_ARGUMENT, 2,
            "SGLANG_X", "a variable is a string, or null");
    /* the command's own flags are not options of a request */
    refused("{\"flags\": {\"help\": true}}", KVPLAN_INVALID_ARGUMENT, 2, "help",
            "help: unknown option");
    refused("{\"flags\": {\"json\": true}}", KVPLAN_INVALID_ARGUMENT, 2, "json",
            "json: unknown option");
    /* svg: the picture, a member of the answer */
    r = call("{\"model\": \"qwen3-8b\", \"flags\": {\"gpu\": \"L4\"}, "
             "\"svg\": true}",
             &rc);
    CHECK_INT(rc, 0);
    if (r != NULL) {
        CHECK_CONTAINS(r, ", \"svg\": \"<?xml version=");
        CHECK_CONTAINS(r, "</svg>\\n\", \"swa_max_total_num_tokens\"");
    }
    kvplan_json_free(r);

    /* the request's own errors name its member */
    refused("[1, 2", KVPLAN_PARSE, 2, "", "the request is not JSON: line 1");
    refused("[1, 2]", KVPLAN_PARSE, 2, "", "the request must be a JSON object");
    refused("{\"modle\": \"x\"}", KVPLAN_INVALID_ARGUMENT, 2, "modle",
            "unknown member 'modle'");
    refused("{\"command\": \"plot\"}", KVPLAN_INVALID_ARGUMENT, 2, "command",
            "command must be one of");
    refused("{\"model\": 3}", KVPLAN_INVALID_ARGUMENT, 2, "model",
            "model must be a string");
    refused("{\"flags\": [1]}", KVPLAN_INVALID_ARGUMENT, 2, "flags",
            "flags must be an object");
    refused("{\"config\": 3}", KVPLAN_INVALID_ARGUMENT, 2, "config",
            "config must be config.json");
    refused("{\"command\": \"log\"}", KVPLAN_INVALID_ARGUMENT, 2, "log",
            "command log needs log");
    refused("{\"log\": \"x\"}", KVPLAN_INVALID_ARGUMENT, 2, "log",
            "log is read by command log only");
    refused("{\"command\": \"sweep\", \"flags\": {\"tp_size\": [1, [2]]}}",
            KVPLAN_INVALID_ARGUMENT, 2, "tp_size",
            "a list holds numbers or words only");
    refused("{\"flags\": {\"tp_size\": [1, 2]}}", KVPLAN_INVALID_ARGUMENT, 2,
            "tp_size", "a list is a sweep's");
    refused("{\"svg\": 1}", KVPLAN_INVALID_ARGUMENT, 2, "svg",
            "svg must be true or false");
    refused("{\"command\": \"compare\", \"svg\": true}",
            KVPLAN_INVALID_ARGUMENT, 2, "svg", "svg is the picture of a plan");
    refused("{\"command\": \"pools\"}", KVPLAN_INVALID_ARGUMENT, 2, "scenarios",
            "command pools needs scenarios");
    refused("{\"command\": \"pools\", \"scenarios\": [{\"family\": 7}]}",
            KVPLAN_PARSE, 3, "", "kvplan pools: line 1");
    /* a refused scenario does not discard the others' answers: its error
     * stands in its place (review R22) */
    {
        int prc = -1;
        char gpath[4096], gline[65536], greq[70000];
        snprintf(gpath, sizeof gpath, "%s/tests/data/golden/configurator.jsonl",
                 source_dir);
        FILE *g = fopen(gpath, "r");
        CHECK(g != NULL && fgets(gline, sizeof gline, g) != NULL);
        if (g != NULL)
            fclose(g);
        gline[strcspn(gline, "\n")] = '\0';
        snprintf(greq, sizeof greq,
                 "{\"command\": \"pools\", \"scenarios\": [{\"family\": 7}, "
                 "%s]}",
                 gline);
        char *mixed = call(greq, &prc);
        CHECK_INT(prc, KVPLAN_PARSE);
        if (mixed != NULL) {
            CHECK_CONTAINS(mixed,
                           "\"line\": 1, \"message\": \"kvplan pools: line 1");
            CHECK_CONTAINS(mixed, "\"results\": ");
        }
        kvplan_json_free(mixed);
    }
    /* one option by two names, or the model twice: which is meant is not
     * known (issue 25: the last won silently) */
    refused("{\"flags\": {\"tp_size\": 1, \"--tp-size\": 8}}",
            KVPLAN_INVALID_ARGUMENT, 2, "--tp-size",
            "tp_size is given twice in the request");
    refused("{\"model\": \"qwen3-8b\", \"flags\": {\"model_path\": "
            "\"llama-3.1-8b-instruct\"}}",
            KVPLAN_INVALID_ARGUMENT, 2, "model_path",
            "the model is named by the request's model member already");
    /* a variable kvplan does not read: refused, with the nearest */
    refused("{\"env\": {\"SGLANG_SWA_EVICTON_INTERVAL\": \"64\"}}",
            KVPLAN_INVALID_ARGUMENT, 2, "SGLANG_SWA_EVICTON_INTERVAL",
            "did you mean SGLANG_SWA_EVICTION_INTERVAL?");
    /* review R13: a request may not say where the Hub is, its token or its
     * cache (it could send a file's first word to any server) */
    static const char *const process_only[] = {"HF_ENDPOINT",   "HF_TOKEN",
                                               "HF_TOKEN_PATH", "HF_HOME",
                                               "HF_HUB_CACHE",  "HOME"};
    for (size_t i = 0; i < sizeof process_only / sizeof *process_only; i++) {
        char rq[200];
        snprintf(rq, sizeof rq,
                 "{\"model\": \"ok/m\", \"env\": {\"%s\": \"/etc/x\"}}",
                 process_only[i]);
        refused(rq, KVPLAN_INVALID_ARGUMENT, 2, process_only[i],
                "come from the process's environment");
    }
    /* what a question does not read is refused, not dropped */
    refused("{\"command\": \"sweep\", \"flags\": {\"explain\": true, "
            "\"tp_size\": [1, 2]}}",
            KVPLAN_INVALID_ARGUMENT, 2, "explain",
            "kvplan sweep has no terms to explain");
    /* a question that answers for sglang refuses another engine */
    refused("{\"command\": \"fit\", \"flags\": {\"engine\": \"vllm\", "
            "\"concurrency\": 4}}",
            KVPLAN_INVALID_ARGUMENT, 2, "engine",
            "fit answers for sglang's pools only");
    /* another engine's option in an sglang plan: warned, with sglang's
     * (a document's warnings are the command's, in its flags) */
    {
        int wrc = -1;
        char *warned = call("{\"flags\": {\"max_model_len\": 32768}}", &wrc);
        CHECK_INT(wrc, KVPLAN_OK);
        if (warned != NULL)
            CHECK_CONTAINS(warned, "--max-model-len is not read by an sglang "
                                   "plan (it is vLLM's and TensorRT-LLM's); "
                                   "the same for sglang is --context-length");
        kvplan_json_free(warned);
    }
    /* the options' errors name the request's key, in its spelling */
    refused("{\"flags\": {\"tp_sizee\": 2}}", KVPLAN_INVALID_ARGUMENT, 2,
            "tp_sizee", "tp_sizee: unknown option; did you mean tp_size?");
    refused("{\"flags\": {\"tp_size\": 0}}", KVPLAN_PARSE, 2, "tp_size",
            "tp_size: expected a positive integer, got '0'");
    refused("{\"flags\": {\"gpu\": \"H100\"}}", KVPLAN_PARSE, 2, "gpu",
            "did you mean H100-80GB or H100-NVL?");
    refused("{\"flags\": {\"concurrency\": 4}}", KVPLAN_INVALID_ARGUMENT, 2,
            "concurrency", "concurrency is read by command fit only");
    refused("{\"model\": \"no-such-model\"}", KVPLAN_IO, 3, "model",
            "not a model of the built-in catalog");
    refused("{\"config\": {\"architectures\": [\"LlamaForCausalLM\"]}}",
            KVPLAN_PARSE, 3, "/num_attention_heads", "config.json");
    refused("{\"config\": \"{\\\"hidden_size\\\": \"}", KVPLAN_PARSE, 3, "",
            "config.json:1:");
    /* true or false for a valued option is refused, as the wrong type of
     * any value is: never a flag alone, never left out */
    refused("{\"flags\": {\"tp_size\": true}}", KVPLAN_PARSE, 2, "tp_size",
            "tp_size: expected a positive integer, got true");
    refused("{\"flags\": {\"tp_size\": false}}", KVPLAN_PARSE, 2, "tp_size",
            "tp_size: expected a positive integer, got false");
    refused("{\"flags\": {\"kv_cache_dtype\": true}}", KVPLAN_PARSE, 2,
            "kv_cache_dtype", "kv_cache_dtype: expected one of auto,");
    refused("{\"flags\": {\"disable_radix_cache\": 1}}", KVPLAN_PARSE, 2,
            "disable_radix_cache",
            "disable_radix_cache: expected true or false, got 1");
    refused("{\"flags\": {\"page_size\": 1.5}}", KVPLAN_PARSE, 2, "page_size",
            "page_size: expected a positive integer, got '1.5'");
    char *none = (char *)1;
    CHECK_INT(kvplan_json(NULL, 0, &none, NULL), KVPLAN_INVALID_ARGUMENT);
    CHECK(none != NULL && strstr(none, "needs a request") != NULL);
    kvplan_json_free(none);
    CHECK_INT(kvplan_json("{}", 2, NULL, NULL), KVPLAN_INVALID_ARGUMENT);

    test_no_files();
    test_fleet();
    test_vllm_log_request();
    test_trtllm_log_request();
    test_session();

    /* eight threads at once answer as one alone */
    for (size_t i = 0; i < NT; i++)
        alone[i] = call(threaded[i], &rc);
    /* the sweeps are ranked by their own keys: gpus first, tokens first */
    CHECK(alone[4] != NULL && alone[5] != NULL &&
          strcmp(alone[4], alone[5]) != 0);
    pthread_t t[8];
    for (size_t k = 0; k < 8; k++)
        pthread_create(&t[k], NULL, worker, (void *)(uintptr_t)k);
    uintptr_t bad = 0;
    for (size_t k = 0; k < 8; k++) {
        void *b;
        pthread_join(t[k], &b);
        bad += (uintptr_t)b;
    }
    CHECK_INT(bad, 0);
    for (size_t i = 0; i < NT; i++)
        kvplan_json_free(alone[i]);
    return check_report();
}
