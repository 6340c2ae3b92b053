/*
 * cmd_check.c: kvplan check FILE|- [kvplan flags] [--gpu NAME] [--json]:
 * the pre-flight gate for Kubernetes manifests (docs/kubernetes.md).
 * Every container that starts sglang, vLLM or TensorRT-LLM (k8s.c) is
 * planned as its command pasted after "--" would be, on the GPU its pod is
 * scheduled on: it starts, with its tokens and concurrency, or it does not,
 * with the engine's own start-up error and the smallest change that
 * starts it (tried, not guessed: each candidate is planned again).
 */
#include "check.h"
#include "cli.h"
#include "flags.h"
#include "k8s.h"
#include "k8s_words.h"
#include "launch.h"
#include "report.h"
#include "json/doc.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const verdict_names[] = {"starts", "starts_with_warning",
                                            "does_not_start", "not_checked"};

typedef struct outcome {
    verdict v;
    kvplan_engine engine;
    char model[256];
    char gpu[32];
    const char *gpu_from; /* where the GPU was read */
    int64_t gpus_needed, gpus_given;
    int64_t tokens, context;
    double concurrency;
    const char *tokens_as; /* the engine's name for its token count */
    char binding[48];
    char field[128];
    char message[600];
    char fix[320];
    int64_t longest; /* sglang: the longest request the pool holds */
    cli_k8s_rules rules;
    size_t num_notes;
    char notes[3][600]; /* flags not read, the rules' release, the model's
                           source */
} outcome;

static void say(outcome *o, verdict v, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void say(outcome *o, verdict v, const char *field, const char *fmt, ...)
{
    o->v = v;
    snprintf(o->field, sizeof o->field, "%s", field);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->message, sizeof o->message, fmt, ap);
    va_end(ap);
}

static const char *flag_of(kvplan_engine e, const char *sglang,
                           const char *vllm, const char *trtllm)
{
    return e == KVPLAN_ENGINE_VLLM     ? vllm
           : e == KVPLAN_ENGINE_TRTLLM ? trtllm
                                       : sglang;
}

/* The GPUs the server's ranks take, and too few of them as the engine
 * says it (vllm#15217's message; sglang and TensorRT-LLM fail on the
 * first rank without a device). */
static bool gpu_count(const cli_k8s_launch *l, const cli_args *cli,
                      int64_t gpus, outcome *o)
{
    const kvplan_server_args *s = &cli->o.plan.server;
    int64_t n = s->tp_size * s->pp_size;
    if (o->engine == KVPLAN_ENGINE_SGLANG && s->dp_size > 1 &&
        !s->enable_dp_attention)
        n *= s->dp_size;
    int64_t per_pod = gpus > 0 ? gpus : l->gpus;
    if (gpus <= 0 && l->visible >= 0 && (per_pod < 0 || l->visible < per_pod))
        per_pod = l->visible;
    o->gpus_needed = n;
    o->gpus_given = per_pod < 0 ? 0 : per_pod * l->pods;
    const char *key = l->gpu_key ? l->gpu_key : "nvidia.com/gpu";
    if (per_pod <= 0) {
        say(o, V_FAILS, "resources.limits",
            "the container asks for no GPU (resources.limits %s): the "
            "engine finds no CUDA device",
            key);
        snprintf(o->fix, sizeof o->fix, "resources.limits %s: %lld", key,
                 (long long)(n + l->pods - 1) / l->pods);
        return false;
    }
    if (n <= o->gpus_given)
        return true;
    if (o->engine == KVPLAN_ENGINE_VLLM)
        say(o, V_FAILS, "--tensor-parallel-size",
            "RuntimeError: please ensure that world_size (%lld) is less than "
            "than max local gpu count (%lld) (vLLM)",
            (long long)n, (long long)o->gpus_given);
    else
        say(o, V_FAILS, flag_of(o->engine, "--tp-size", "", "--tp_size"),
            "%lld ranks (tp x pp) on %lld GPUs: rank %lld finds no device "
            "(CUDA error: invalid device ordinal)",
            (long long)n, (long long)o->gpus_given, (long long)o->gpus_given);
    snprintf(o->fix, sizeof o->fix, "resources.limits %s: %lld", key,
             (long long)((n + l->pods - 1) / l->pods));
    return false;
}

/* An image path the checking machine does not have. */
static bool path_missing(const char *m)
{
    return m != NULL && (m[0] == '/' || m[0] == '.' || m[0] == '~') &&
           access(m, R_OK) != 0;
}

/* A refusal of what kvplan does not model (or was not given) leaves the
 * server not checked, not "does not start". */
static bool unknown(kvplan_status st)
{
    return st == KVPLAN_INVALID_ARGUMENT || st == KVPLAN_UNSUPPORTED;
}

static void plan_sglang(const kvplan_model *m, cli_args *cli, outcome *o)
{
    kvplan_plan *plan = malloc(sizeof *plan);
    kvplan_error err;
    if (plan == NULL) {
        say(o, V_UNKNOWN, "", "out of memory");
        return;
    }
    if (kvplan_plan_compute(m, &cli->o.plan, plan, &err) != KVPLAN_OK) {
        say(o, unknown(err.code) ? V_UNKNOWN : V_FAILS, err.field, "%s",
            err.message);
        free(plan);
        return;
    }
    o->v = V_STARTS;
    o->tokens = plan->max_total_num_tokens;
    o->tokens_as = "max_total_num_tokens";
    o->context = plan->context_len;
    o->concurrency = (double)plan->capacity.max_concurrency_at_context_len;
    o->longest = plan->longest_request;
    snprintf(o->binding, sizeof o->binding, "%s",
             kvplan_limit_name(plan->capacity.binding));
    /* the sliding-window floor first: later sglang refuses it */
    for (int pass = 0; pass < 2 && o->v == V_STARTS; pass++)
        for (size_t i = 0; i < plan->num_warnings; i++) {
            const kvplan_warning *w = &plan->warnings[i];
            if (w->code == (pass == 0 ? KVPLAN_WARN_SWA_BELOW_WINDOW
                                      : KVPLAN_WARN_CONTEXT_TOO_LONG)) {
                say(o, V_WARNS, w->field, "%s", w->message);
                break;
            }
        }
    free(plan);
}

static void plan_engine(const kvplan_model *m, cli_args *cli, outcome *o)
{
    kvplan_engine_options eo;
    kvplan_options_engine(&cli->o, cli->o.engine, &eo);
    kvplan_engine_plan p;
    kvplan_error err;
    if (kvplan_engine_compute(m, &eo, &p, &err) != KVPLAN_OK) {
        say(o, unknown(err.code) ? V_UNKNOWN : V_FAILS, err.field, "%s",
            err.message);
        return;
    }
    o->v = V_STARTS;
    o->tokens = p.kv_cache_tokens;
    o->tokens_as =
        o->engine == KVPLAN_ENGINE_VLLM ? "GPU KV cache size" : "max_tokens";
    o->context = p.max_model_len;
    o->concurrency = p.max_concurrency;
}

/* One launch, with `extra` words after its command (a fix tried). */
static void evaluate(const cli_k8s_launch *l, const cli_check_args *c,
                     const char *const *extra, int nextra, int64_t gpus,
                     outcome *o)
{
    memset(o, 0, sizeof *o);
    o->engine = KVPLAN_ENGINE_SGLANG;
    if (c->deadline > 0 && cli_now() > c->deadline) {
        say(o, V_UNKNOWN, "",
            "the request's time limit passed before this server was planned");
        return;
    }
    if (l->unread[0] != '\0') {
        say(o, V_UNKNOWN, "command", "the command was not read whole: %s",
            l->unread);
        return;
    }
    const char *gpu = c->gpu ? c->gpu : l->gpu[0] ? l->gpu : NULL;
    if (gpu == NULL) {
        say(o, V_UNKNOWN, "nodeSelector",
            "the GPU model is not told%s%s: add nodeSelector "
            "nvidia.com/gpu.product (NVIDIA-H100-80GB-HBM3, ...), the "
            "annotation kvplan.dev/gpu: H100-80GB, or --gpu",
            l->gpu_seen[0] ? "; seen: " : "", l->gpu_seen);
        return;
    }
    snprintf(o->gpu, sizeof o->gpu, "%s", gpu);
    o->gpu_from = c->gpu ? "--gpu" : l->gpu_from;
    enum { MAX = CLI_K8S_MAX_WORDS + 64 };
    char *argv[MAX];
    int n = 0;
    if (c->argc + l->argc + nextra + 5 > MAX) {
        say(o, V_UNKNOWN, "", "more than %d flags for every container",
            MAX - CLI_K8S_MAX_WORDS - 8);
        return;
    }
    argv[n++] = "kvplan";
    for (int i = 0; i < c->argc; i++)
        argv[n++] = c->argv[i];
    argv[n++] = "--gpu";
    argv[n++] = (char *)gpu;
    argv[n++] = "--";
    for (int i = 0; i < l->argc; i++)
        argv[n++] = l->argv[i];
    for (int i = 0; i < nextra; i++)
        argv[n++] = (char *)extra[i];
    argv[n] = NULL;
    cli_args *cli = malloc(sizeof *cli);
    kvplan_error err;
    if (cli == NULL) {
        say(o, V_UNKNOWN, "", "out of memory");
        return;
    }
    if (cli_parse_in_container(n, argv, 1, cli, &err) != KVPLAN_OK) {
        say(o, V_UNKNOWN, err.field, "the command cannot be read: %s",
            err.message);
        free(cli);
        return;
    }
    o->engine = cli->o.engine;
    const char *model = c->model ? c->model : l->model[0] ? l->model : NULL;
    if (model != NULL)
        cli->o.model_path = model;
    snprintf(o->model, sizeof o->model, "%s",
             cli->o.model_path ? cli->o.model_path : KVPLAN_DEFAULT_MODEL);
    if (!gpu_count(l, cli, gpus, o)) {
        /* said: too few GPUs, or none */
    } else if (path_missing(cli->o.model_path)) {
        say(o, V_UNKNOWN, "kvplan.dev/model",
            "the model is a path inside the image (%.120s): add the "
            "annotation kvplan.dev/model (a Hub id or a catalog name), or "
            "--model-path",
            cli->o.model_path);
    } else {
        kvplan_model *m = NULL, *draft = NULL;
        if (cli_launch_note_text(cli, true, o->notes[0], sizeof o->notes[0]))
            o->num_notes = 1;
        if (cli_k8s_image_version(l->image, cli, o->notes[o->num_notes],
                                  sizeof o->notes[0], &o->rules))
            o->num_notes++;
        if (cli_load(cli, &m, &draft, &err) != KVPLAN_OK) {
            say(o, V_UNKNOWN, err.field, "%s", err.message);
        } else {
            if (cli->loaded.note[0] != '\0') /* where the model was read */
                snprintf(o->notes[o->num_notes++], sizeof o->notes[0], "%s",
                         cli->loaded.note);
            if (cli->o.engine == KVPLAN_ENGINE_SGLANG)
                plan_sglang(m, cli, o);
            else
                plan_engine(m, cli, o);
        }
        kvplan_model_free(m);
        kvplan_model_free(draft);
    }
    free(cli);
}

/* ---- the smallest change that starts it ----------------------------------
 * Candidates in the order of how little they change, each planned again:
 * the engine's own bound (the longest context, the sequences the mamba
 * blocks hold), then the memory share, then twice, four and eight times
 * the tensor parallelism. */

static bool try_fix(const cli_k8s_launch *l, const cli_check_args *c,
                    const char *flag, const char *value, int64_t gpus,
                    outcome *o, const char *why)
{
    const char *extra[] = {flag, value};
    outcome t;
    evaluate(l, c, extra, 2, gpus, &t);
    /* a server that does not start is fixed when it starts, with a
     * warning or not; one that warns, when it no longer does */
    if (o->v == V_FAILS ? t.v > V_WARNS : t.v != V_STARTS)
        return false;
    snprintf(o->fix, sizeof o->fix, "%s %s (%s: %lld tokens)", flag, value, why,
             (long long)t.tokens);
    return true;
}

/* A number after `key` in an engine's message ("at most 642"). */
static bool number_after(const char *msg, const char *key, char *out,
                         size_t size)
{
    const char *p = strstr(msg, key);
    if (p == NULL)
        return false;
    p += strlen(key);
    size_t n = strspn(p, "0123456789");
    if (n == 0 || n >= size)
        return false;
    snprintf(out, size, "%.*s", (int)n, p);
    return true;
}

static void find_fix(const cli_k8s_launch *l, const cli_check_args *c,
                     outcome *o)
{
    char v[32];
    kvplan_engine e = o->engine;
    if (o->v == V_UNKNOWN)
        return;
    if (o->v == V_WARNS && o->longest > 0 &&
        strcmp(o->field, "--context-length") == 0) {
        snprintf(v, sizeof v, "%lld", (long long)o->longest);
        if (try_fix(l, c, "--context-length", v, 0, o,
                    "the longest request the pool holds"))
            return;
    }
    if (o->v == V_WARNS && strcmp(o->field, "--swa-full-tokens-ratio") != 0)
        return;
    if (o->v == V_STARTS || o->fix[0] != '\0')
        return;
    if (e == KVPLAN_ENGINE_VLLM && strcmp(o->field, "--max-model-len") == 0 &&
        number_after(o->message, "maximum model length is ", v, sizeof v) &&
        try_fix(l, c, "--max-model-len", v, 0, o, "the longest that fits"))
        return;
    if (strcmp(o->field, "--max-num-seqs") == 0 &&
        number_after(o->message, "at most ", v, sizeof v) &&
        try_fix(l, c, "--max-num-seqs", v, 0, o, "the mamba blocks it holds"))
        return;
    if (strcmp(o->field, "--swa-full-tokens-ratio") == 0) {
        static const char *const ratios[] = {"0.2", "0.4", "0.6", "0.8", "1.0"};
        for (size_t i = 0; i < 5; i++)
            if (try_fix(l, c, "--swa-full-tokens-ratio", ratios[i], 0, o,
                        "the sliding-window pool holds a window"))
                return;
    }
    const char *share =
        flag_of(e, "--mem-fraction-static", "--gpu-memory-utilization", NULL);
    if (share != NULL &&
        try_fix(l, c, share, e == KVPLAN_ENGINE_VLLM ? "0.95" : "0.9", 0, o,
                "a larger share of the GPU"))
        return;
    const char *tp =
        flag_of(e, "--tp-size", "--tensor-parallel-size", "--tp_size");
    for (int64_t k = 2; k <= 8; k *= 2) {
        int64_t want = o->gpus_needed * k;
        if (want > 8 * l->pods)
            break;
        snprintf(v, sizeof v, "%lld", (long long)(want / l->pods));
        if (!try_fix(l, c, tp, v, want / l->pods, o,
                     "the weights spread wider"))
            continue;
        size_t used = strlen(o->fix);
        if (want > o->gpus_given)
            snprintf(o->fix + used, sizeof o->fix - used,
                     ", with resources.limits %s: %lld",
                     l->gpu_key ? l->gpu_key : "nvidia.com/gpu",
                     (long long)(want / l->pods));
        return;
    }
    if (strcmp(o->field, "--swa-full-tokens-ratio") == 0)
        snprintf(o->fix, sizeof o->fix,
                 "none found by the ratio alone: a larger pool "
                 "(--max-total-tokens, --mem-fraction-static)");
    else
        snprintf(o->fix, sizeof o->fix,
                 "none found within 8 GPUs a pod: a GPU with more memory, or "
                 "a smaller (quantized) model");
}

/* ---- the report --------------------------------------------------------- */

static void text_one(FILE *out, const cli_k8s_launch *l, const outcome *o)
{
    char prog[200];
    fprintf(out, "\n%s %s%s%s, container %s%s%s (%s)\n", l->kind,
            l->ns[0] ? l->ns : "", l->ns[0] ? "/" : "", l->name, l->container,
            l->role[0] ? ", " : "", l->role,
            cli_k8s_program(l, prog, sizeof prog));
    if (o->gpu[0] != '\0')
        fprintf(out, "  gpu      %lld x %s (%s%s)%s\n",
                (long long)o->gpus_given, o->gpu, o->gpu_from,
                l->pods > 1 ? ", over the replica's pods" : "",
                o->gpus_needed > 0 && o->gpus_needed < o->gpus_given
                    ? "; the server's ranks take fewer"
                    : "");
    if (o->model[0] != '\0')
        fprintf(out, "  model    %s\n", o->model);
    if (o->v == V_STARTS || o->v == V_WARNS) {
        char t[40], ctx[40], conc[40];
        if (o->engine == KVPLAN_ENGINE_SGLANG)
            snprintf(conc, sizeof conc, "%lld", (long long)o->concurrency);
        else
            snprintf(conc, sizeof conc, "%.2f", o->concurrency);
        fprintf(out, "  starts   %s %s tokens; %s requests of %s tokens",
                o->tokens_as, kvplan__grouped(o->tokens, t, sizeof t), conc,
                kvplan__grouped(o->context, ctx, sizeof ctx));
        if (o->binding[0])
            fprintf(out, " (binds: %s)", o->binding);
        fprintf(out, "\n");
    }
    if (o->v == V_WARNS)
        fprintf(out, "  warning  %s\n", o->message);
    else if (o->v == V_FAILS)
        fprintf(out, "  does not start: %s\n", o->message);
    else if (o->v == V_UNKNOWN)
        fprintf(out, "  not checked: %s\n", o->message);
    if (o->fix[0] != '\0')
        fprintf(out, "  fix      %s\n", o->fix);
    for (size_t i = 0; i < o->num_notes; i++)
        fprintf(out, "  note     %s\n", o->notes[i]);
    for (size_t i = 0; i < l->num_notes; i++)
        fprintf(out, "  note     %s\n", l->notes[i]);
}

static json_t *json_one(const cli_k8s_launch *l, const outcome *o)
{
    json_t *notes = json_array();
    for (size_t i = 0; i < o->num_notes; i++)
        json_array_append_new(notes, json_string(o->notes[i]));
    for (size_t i = 0; i < l->num_notes; i++)
        json_array_append_new(notes, json_string(l->notes[i]));
    json_t *j = json_pack(
        "{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:{s:s?, s:I, s:I, s:s?}, "
        "s:o}",
        "kind", l->kind, "namespace", l->ns, "name", l->name, "container",
        l->container, "role", l->role, "engine", kvplan_engine_name(o->engine),
        "model", o->model, "verdict", verdict_names[o->v], "gpu", "name",
        o->gpu[0] ? o->gpu : NULL, "count", (json_int_t)o->gpus_given, "needed",
        (json_int_t)o->gpus_needed, "from", o->gpu[0] ? o->gpu_from : NULL,
        "notes", notes);
    if (j == NULL)
        return NULL;
    if (o->v == V_STARTS || o->v == V_WARNS) {
        json_object_set_new(j, "tokens", json_integer(o->tokens));
        json_object_set_new(j, "tokens_as", json_string(o->tokens_as));
        json_object_set_new(j, "context_len", json_integer(o->context));
        json_object_set_new(j, "concurrency", json_real(o->concurrency));
    }
    if (o->v != V_STARTS) {
        json_object_set_new(j, "field", json_string(o->field));
        json_object_set_new(j, "message", json_string(o->message));
    }
    json_object_set_new(j, "fix",
                        o->fix[0] ? json_string(o->fix) : json_null());
    if (o->rules.from != NULL) /* whose rules, where planned */
        json_object_set_new(
            j, "rules",
            json_pack("{s:s?, s:s?, s:s}", "release",
                      o->rules.release[0] ? o->rules.release : NULL, "profile",
                      o->rules.profile, "from", o->rules.from));
    return j;
}

/* ---- the command -------------------------------------------------------- */

#define MAX_MANIFEST_BYTES (8u << 20)

static int usage(FILE *out)
{
    fprintf(out,
            "usage: kvplan check FILE|- [--gpu NAME] [--model-path MODEL] "
            "[kvplan flags] [--json]\n"
            "  Plans every container of a Kubernetes manifest (YAML or JSON; "
            "Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, "
            "CronJob, LeaderWorkerSet, KServe InferenceService and "
            "ServingRuntime) that starts sglang, vLLM or TensorRT-LLM, on "
            "the GPU its pod is scheduled on: it starts, or the engine's "
            "own start-up error and the smallest change that starts it.\n"
            "  --gpu NAME, --model-path MODEL: for every container (over the "
            "manifest's node selector and the annotations kvplan.dev/gpu, "
            "kvplan.dev/model)\n"
            "  kvplan flags (--sglang-version, --vllm-version, ...): for every "
            "container\n"
            "  exit 0: all start; 1: one does not; 2: usage; 3: bad input or "
            "a container that cannot be checked\n");
    return out == stdout ? CLI_EXIT_OK : CLI_EXIT_USAGE;
}

json_t *cli_check_document(const char *name, const cli_k8s *k,
                           const cli_check_args *c, size_t count[4], FILE *text)
{
    json_t *list = text == NULL ? json_array() : NULL;
    memset(count, 0, 4 * sizeof count[0]);
    if (text != NULL)
        fprintf(text,
                "kvplan check %s: %zu server%s in %zu workload%s (%zu "
                "container%s, %zu document%s)\n",
                name, k->n, k->n == 1 ? "" : "s", k->workloads,
                k->workloads == 1 ? "" : "s", k->containers,
                k->containers == 1 ? "" : "s", k->documents,
                k->documents == 1 ? "" : "s");
    for (size_t i = 0; i < k->n; i++) {
        outcome o;
        evaluate(&k->launches[i], c, NULL, 0, 0, &o);
        find_fix(&k->launches[i], c, &o);
        count[o.v]++;
        if (text == NULL)
            json_array_append_new(list, json_one(&k->launches[i], &o));
        else
            text_one(text, &k->launches[i], &o);
    }
    if (text == NULL)
        return json_pack("{s:s, s:s, s:o, s:{s:I, s:I, s:I, s:I}}",
                         "kvplan_version", kvplan_version(), "file", name,
                         "servers", list, "summary", "starts",
                         (json_int_t)(count[V_STARTS] + count[V_WARNS]),
                         "with_warning", (json_int_t)count[V_WARNS],
                         "does_not_start", (json_int_t)count[V_FAILS],
                         "not_checked", (json_int_t)count[V_UNKNOWN]);
    if (k->n == 0)
        fprintf(text, "no container starts sglang, vLLM or TensorRT-LLM: "
                      "nothing to check\n");
    else
        fprintf(text, "\n%zu start%s, %zu do%s not start, %zu not checked\n",
                count[V_STARTS] + count[V_WARNS],
                count[V_STARTS] + count[V_WARNS] == 1 ? "s" : "",
                count[V_FAILS], count[V_FAILS] == 1 ? "es" : "",
                count[V_UNKNOWN]);
    return NULL;
}

static int report(const char *path, const cli_k8s *k, const cli_check_args *c)
{
    size_t count[4];
    json_t *doc =
        cli_check_document(path, k, c, count, c->json ? NULL : stdout);
    if (c->json) {
        int bad = doc == NULL || json_dumpf(doc, stdout, JSON_SORT_KEYS) != 0 ||
                  fputc('\n', stdout) == EOF;
        json_decref(doc);
        if (bad)
            return CLI_EXIT_INTERNAL;
    }
    return count[V_FAILS]     ? CLI_EXIT_DOES_NOT_FIT
           : count[V_UNKNOWN] ? CLI_EXIT_BAD_INPUT
                              : CLI_EXIT_OK;
}

int cli_cmd_check(int argc, char **argv)
{
    if (argc < 3 || strcmp(argv[2], "--help") == 0 ||
        strcmp(argv[2], "-h") == 0)
        return usage(argc < 3 ? stderr : stdout);
    cli_check_args c = {0, NULL, NULL, NULL, false, 0};
    char **rest = malloc(sizeof *rest * (size_t)argc);
    if (rest == NULL) {
        fprintf(stderr, "kvplan check: out of memory\n");
        return CLI_EXIT_INTERNAL;
    }
    for (int i = 3; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            c.json = true;
        else if (strcmp(argv[i], "--gpu") == 0 && i + 1 < argc)
            c.gpu = argv[++i];
        else if (strcmp(argv[i], "--model-path") == 0 && i + 1 < argc)
            c.model = argv[++i];
        else
            rest[c.argc++] = argv[i];
    }
    c.argv = rest;
    kvplan_error err;
    size_t len = 0;
    int rc;
    char *text = cli_read_file(argv[2], MAX_MANIFEST_BYTES, "FILE",
                               "a manifest", &len, &err);
    cli_k8s k = {0};
    if (c.gpu != NULL && !kvplan_gpu_preset(c.gpu, &(kvplan_gpu){0})) {
        cli_usage_error(&err, "--gpu",
                        "--gpu %.60s: not a preset (kvplan --list-gpus)",
                        c.gpu);
        rc = cli_error("kvplan check", &err, CLI_EXIT_USAGE, c.json);
    } else if (text == NULL) {
        rc = cli_error("kvplan check", &err, cli_exit_for(err.code), c.json);
    } else if (cli_k8s_read(text, len, &k, &err) != KVPLAN_OK) {
        char m[sizeof err.message];
        snprintf(m, sizeof m, "%s", err.message);
        snprintf(err.message, sizeof err.message, "%.200s: %.300s", argv[2], m);
        rc = cli_error("kvplan check", &err, cli_exit_for(err.code), c.json);
    } else {
        rc = report(argv[2], &k, &c);
    }
    cli_k8s_free(&k);
    free(text);
    free(rest);
    return rc;
}
