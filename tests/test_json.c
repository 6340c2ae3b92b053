/*
 * test_json.c: kvplan_json, the JSON entry point, as an embedder links it
 * (the shared library). Each request's answer is compared byte for byte
 * with what the kvplan command prints for the same command line; the
 * request's own errors name the member; calls on eight threads at once
 * answer as one alone does.
 *
 *   test_json KVPLAN_BINARY SOURCE_DIR
 */
#include "check.h"
#include "kvplan.h"

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
    *rc = kvplan_json(request, strlen(request), &resp, &len);
    CHECK(resp != NULL);
    if (resp != NULL)
        CHECK_INT(strlen(resp), len);
    return resp;
}

/* The request answers as `kvplan ARGS` does. */
static void same(const char *request, const char *args, const char *in,
                 int want_rc)
{
    int rc = -1, crc = -1;
    char *resp = call(request, &rc);
    char *out = command(args, in, &crc);
    CHECK_INT(rc, want_rc);
    CHECK_INT(crc, want_rc);
    if (resp != NULL && out != NULL && strcmp(resp, out) != 0)
        fprintf(stderr, "request %s\n  answered %.300s\n  command  %.300s\n",
                request, resp, out);
    CHECK(resp != NULL && out != NULL && strcmp(resp, out) == 0);
    kvplan_json_free(resp);
    free(out);
}

/* The request is refused with `rc`, the member `field` named. */
static void refused(const char *request, int want_rc, const char *field,
                    const char *says)
{
    int rc = -1;
    char *resp = call(request, &rc);
    CHECK_INT(rc, want_rc);
    if (resp != NULL) {
        char want[160];
        snprintf(want, sizeof want, "\"field\": \"%s\"", field);
        if (field[0] != '\0')
            CHECK_CONTAINS(resp, want);
        CHECK_CONTAINS(resp, says);
        CHECK_CONTAINS(resp, "\"error\": ");
    }
    kvplan_json_free(resp);
}

static const char *const threaded[] = {
    "{\"model\": \"gpt-oss-120b\", \"flags\": {\"gpu\": \"H100-80GB\", "
    "\"tp_size\": 2}}",
    "{\"model\": \"deepseek-v3\", \"flags\": {\"gpu\": \"H200\", "
    "\"tp_size\": 8}}",
    "{\"model\": \"llama-3.1-8b-instruct\", \"flags\": {\"tp_sizee\": 2}}",
    "{\"command\": \"fit\", \"model\": \"qwen3-8b\", \"flags\": {\"gpu\": "
    "\"L4\", \"concurrency\": 4}}"};
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
        CHECK_CONTAINS(r, "\"key\": \"tp_size\", \"kind\": \"integer\", "
                          "\"sglang\": true");
        CHECK_CONTAINS(r, "\"key\": \"available_bytes\", \"kind\": "
                          "\"integer\", \"sglang\": false");
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
    refused("{\"env\": [1]}", 2, "env", "env must be an object");
    refused("{\"env\": {\"SGLANG_X\": 3}}", 2, "SGLANG_X",
            "a variable is a string, or null");
    /* text that is not JSON (--help) comes wrapped */
    r = call("{\"flags\": {\"help\": true}}", &rc);
    CHECK_INT(rc, 0);
    if (r != NULL)
        CHECK_CONTAINS(r, "{\"exit_status\": 0, \"text\": \"usage: kvplan");
    kvplan_json_free(r);
    /* svg: the picture, as the answer's last member */
    r = call("{\"model\": \"qwen3-8b\", \"flags\": {\"gpu\": \"L4\"}, "
             "\"svg\": true}",
             &rc);
    CHECK_INT(rc, 0);
    if (r != NULL) {
        CHECK_CONTAINS(r, ", \"svg\": \"<?xml version=");
        CHECK_CONTAINS(r, "</svg>\\n\"}");
    }
    kvplan_json_free(r);

    /* the request's own errors name its member */
    refused("[1, 2", 2, "", "the request is not JSON: line 1");
    refused("[1, 2]", 2, "", "the request must be a JSON object");
    refused("{\"modle\": \"x\"}", 2, "modle", "unknown member 'modle'");
    refused("{\"command\": \"plot\"}", 2, "command", "command must be one of");
    refused("{\"model\": 3}", 2, "model", "model must be a string");
    refused("{\"flags\": [1]}", 2, "flags", "flags must be an object");
    refused("{\"config\": 3}", 2, "config", "config must be config.json");
    refused("{\"command\": \"log\"}", 2, "log", "command log needs log");
    refused("{\"log\": \"x\"}", 2, "log", "log is read by command log only");
    refused("{\"command\": \"sweep\", \"flags\": {\"tp_size\": [1, [2]]}}", 2,
            "tp_size", "a list holds numbers or words only");
    refused("{\"svg\": 1}", 2, "svg", "svg must be true or false");
    refused("{\"command\": \"pools\"}", 2, "scenarios",
            "command pools needs scenarios");
    refused("{\"command\": \"pools\", \"scenarios\": [{\"family\": 7}]}", 3, "",
            "kvplan pools: line 1");
    /* and the command's errors name the flag by the request's key */
    refused("{\"flags\": {\"tp_sizee\": 2}}", 2, "tp_sizee",
            "--tp-sizee: unknown option; did you mean --tp-size?");
    refused("{\"flags\": {\"tp_size\": 0}}", 2, "tp_size",
            "expected a positive integer, got '0'");
    refused("{\"flags\": {\"gpu\": \"H100\"}}", 2, "gpu",
            "did you mean H100-80GB or H100-NVL?");
    refused("{\"model\": \"no-such-model\"}", 3, "model",
            "not a model of the built-in catalog");
    refused("{\"config\": {\"architectures\": [\"LlamaForCausalLM\"]}}", 3, "",
            "config.json");
    refused("{\"config\": \"{\\\"hidden_size\\\": \"}", 3, "",
            "config.json:1:");
    char *none = (char *)1;
    CHECK_INT(kvplan_json(NULL, 0, &none, NULL), 2);
    CHECK(none != NULL && strstr(none, "needs a request") != NULL);
    kvplan_json_free(none);
    CHECK_INT(kvplan_json("{}", 2, NULL, NULL), 2);

    /* eight threads at once answer as one alone */
    for (size_t i = 0; i < NT; i++)
        alone[i] = call(threaded[i], &rc);
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
