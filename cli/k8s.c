/*
 * k8s.c: Kubernetes manifests into launches (k8s.h), read with libyaml's
 * document loader. The workload kinds are data (where each keeps its pod
 * template, how many pods one replica spans); the GPU model comes from the
 * node selector or the required node affinity (NVIDIA GPU Feature
 * Discovery's nvidia.com/gpu.product, GKE's gke-accelerator, the clouds'
 * instance types) or the annotation kvplan.dev/gpu; the command from
 * command + args with $(VAR) expanded as the kubelet expands it, and a
 * sh -c / bash -c wrapper opened.
 */
#include "k8s.h"

#include "cli.h"
#include "k8s_words.h"
#include "launch.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* ---- the workload kinds ---------------------------------------------------
 * Where each kind keeps its pod spec (paths of mapping keys) and how many
 * pods one replica spans. The core kinds: kubernetes.io/docs/concepts/
 * workloads; LeaderWorkerSet (lws.sigs.k8s.io/docs/reference): a leader
 * and size - 1 workers are one replica, the worker template serving the
 * leader too when it has none; KServe (kserve.github.io/website,
 * InferenceService and ServingRuntime): the predictor and the runtime
 * are pod specs inline. */
typedef struct kind_row {
    const char *kind;
    const char *pod;    /* the pod spec */
    const char *leader; /* LeaderWorkerSet: the leader's, when given */
    const char *size;   /* pods one replica spans; NULL: 1 */
} kind_row;

static const kind_row kinds[] = {
    {"Pod", "spec", NULL, NULL},
    {"Deployment", "spec.template.spec", NULL, NULL},
    {"StatefulSet", "spec.template.spec", NULL, NULL},
    {"DaemonSet", "spec.template.spec", NULL, NULL},
    {"ReplicaSet", "spec.template.spec", NULL, NULL},
    {"ReplicationController", "spec.template.spec", NULL, NULL},
    {"Job", "spec.template.spec", NULL, NULL},
    {"CronJob", "spec.jobTemplate.spec.template.spec", NULL, NULL},
    {"PodTemplate", "template.spec", NULL, NULL},
    {"LeaderWorkerSet", "spec.leaderWorkerTemplate.workerTemplate.spec",
     "spec.leaderWorkerTemplate.leaderTemplate.spec",
     "spec.leaderWorkerTemplate.size"},
    {"InferenceService", "spec.predictor", NULL, NULL},
    {"ServingRuntime", "spec", NULL, NULL},
    {"ClusterServingRuntime", "spec", NULL, NULL},
};

/* ---- libyaml's document ------------------------------------------------- */

typedef struct reader {
    yaml_document_t *doc;
    cli_k8s *out;
    kvplan_error *err;
} reader;

static const char *scalar(const reader *r, const yaml_node_t *n)
{
    (void)r;
    return n != NULL && n->type == YAML_SCALAR_NODE
               ? (const char *)n->data.scalar.value
               : NULL;
}

static yaml_node_t *member(const reader *r, const yaml_node_t *map,
                           const char *key, size_t len)
{
    if (map == NULL || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
         p < map->data.mapping.pairs.top; p++) {
        const char *k = scalar(r, yaml_document_get_node(r->doc, p->key));
        if (k != NULL && strlen(k) == len && strncmp(k, key, len) == 0)
            return yaml_document_get_node(r->doc, p->value);
    }
    return NULL;
}

/* A dotted path of keys ("spec.template.spec"). */
static yaml_node_t *at(const reader *r, yaml_node_t *n, const char *path)
{
    while (n != NULL && *path) {
        const char *dot = strchr(path, '.');
        size_t len = dot ? (size_t)(dot - path) : strlen(path);
        n = member(r, n, path, len);
        path += len + (dot != NULL);
    }
    return n;
}

static const char *text_at(const reader *r, yaml_node_t *n, const char *path)
{
    return scalar(r, at(r, n, path));
}

static size_t items(const yaml_node_t *seq)
{
    return seq != NULL && seq->type == YAML_SEQUENCE_NODE
               ? (size_t)(seq->data.sequence.items.top -
                          seq->data.sequence.items.start)
               : 0;
}

static yaml_node_t *item(const reader *r, const yaml_node_t *seq, size_t i)
{
    return yaml_document_get_node(r->doc, seq->data.sequence.items.start[i]);
}

static void copy(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src ? src : "");
}

static kvplan_status fail(kvplan_error *err, kvplan_status code,
                          const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static kvplan_status fail(kvplan_error *err, kvplan_status code,
                          const char *fmt, ...)
{
    memset(err, 0, sizeof *err);
    err->code = code;
    snprintf(err->field, sizeof err->field, "FILE");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return code;
}

/* ---- the GPU: annotation, node selector, required node affinity -------- */

static bool gpu_from(cli_k8s_launch *l, const char *key, const char *value,
                     const char *where)
{
    const char *g = cli_k8s_gpu_of(value);
    if (g == NULL) {
        if (l->gpu_seen[0] == '\0')
            snprintf(l->gpu_seen, sizeof l->gpu_seen, "%s %s=%s", where, key,
                     value);
        return false;
    }
    if (cli_k8s_is_mig(value)) {
        snprintf(l->gpu_seen, sizeof l->gpu_seen,
                 "%s %s=%s (a MIG slice: kvplan plans whole GPUs)", where, key,
                 value);
        return false;
    }
    copy(l->gpu, sizeof l->gpu, g);
    snprintf(l->gpu_from, sizeof l->gpu_from, "%s %s=%s", where, key, value);
    return true;
}

static void pod_gpu(const reader *r, yaml_node_t *pod, cli_k8s_launch *l)
{
    yaml_node_t *sel = at(r, pod, "nodeSelector");
    if (sel != NULL && sel->type == YAML_MAPPING_NODE)
        for (yaml_node_pair_t *p = sel->data.mapping.pairs.start;
             p < sel->data.mapping.pairs.top; p++) {
            const char *k = scalar(r, yaml_document_get_node(r->doc, p->key));
            const char *v = scalar(r, yaml_document_get_node(r->doc, p->value));
            if (k && v && cli_k8s_gpu_key(k) &&
                gpu_from(l, k, v, "nodeSelector"))
                return;
        }
    yaml_node_t *terms = at(r, pod,
                            "affinity.nodeAffinity.requiredDuringScheduling"
                            "IgnoredDuringExecution.nodeSelectorTerms");
    for (size_t t = 0; t < items(terms); t++) {
        yaml_node_t *exprs = at(r, item(r, terms, t), "matchExpressions");
        for (size_t e = 0; e < items(exprs); e++) {
            yaml_node_t *x = item(r, exprs, e);
            const char *k = text_at(r, x, "key");
            const char *op = text_at(r, x, "operator");
            yaml_node_t *vals = at(r, x, "values");
            if (k == NULL || !cli_k8s_gpu_key(k) || op == NULL ||
                strcmp(op, "In") != 0 || items(vals) == 0)
                continue;
            const char *v = scalar(r, item(r, vals, 0));
            if (items(vals) > 1) { /* the scheduler may pick any */
                snprintf(l->gpu_seen, sizeof l->gpu_seen,
                         "node affinity %s In [%zu values]: any of them may "
                         "be chosen",
                         k, items(vals));
                return;
            }
            if (v && gpu_from(l, k, v, "node affinity"))
                return;
        }
    }
}

/* ---- the container: GPUs, environment, command -------------------------- */

static int64_t quantity(const char *s)
{
    char *end;
    long long v = s ? strtoll(s, &end, 10) : -1;
    return s && *s && *end == '\0' && v >= 0 ? (int64_t)v : -1;
}

static void container_gpus(const reader *r, yaml_node_t *c, cli_k8s_launch *l)
{
    static const char *const keys[] = {"nvidia.com/gpu", "amd.com/gpu"};
    l->gpus = -1;
    for (int part = 0; part < 2 && l->gpus < 0; part++) {
        yaml_node_t *res =
            at(r, c, part == 0 ? "resources.limits" : "resources.requests");
        for (size_t i = 0; i < 2 && l->gpus < 0; i++) {
            const char *v = scalar(r, member(r, res, keys[i], strlen(keys[i])));
            if (v != NULL) {
                l->gpus = quantity(v);
                l->gpu_key = keys[i];
                if (l->gpus < 0)
                    cli_k8s_note(l, "%s: '%s' is not a count of GPUs", keys[i],
                                 v);
            }
        }
    }
}

/* The container's literal variables into `env`; the others named as not
 * read. */
static void container_env(const reader *r, yaml_node_t *c, cli_k8s_launch *l,
                          cli_k8s_env *env)
{
    yaml_node_t *list = at(r, c, "env");
    char from[200] = "";
    for (size_t i = 0; i < items(list); i++) {
        yaml_node_t *e = item(r, list, i);
        const char *name = text_at(r, e, "name");
        const char *value = text_at(r, e, "value");
        if (name == NULL)
            continue;
        if (value == NULL && at(r, e, "valueFrom") != NULL) {
            size_t used = strlen(from);
            snprintf(from + used, sizeof from - used, "%s%s", used ? ", " : "",
                     name);
            continue;
        }
        if (env->n == CLI_K8S_MAX_ENV) {
            cli_k8s_unread(l, "more than %d variables in env", CLI_K8S_MAX_ENV);
            break;
        }
        env->name[env->n] = name;
        env->value[env->n++] = value ? value : "";
    }
    if (from[0] != '\0')
        cli_k8s_note(
            l,
            "env %s: from a secret, config map or field, not read (the "
            "engine may read it)",
            from);
    if (items(at(r, c, "envFrom")) > 0)
        cli_k8s_note(l,
                     "envFrom: the variables of a config map or secret are not "
                     "read");
}

/* command + args, $(VAR) expanded, into l->argv from the server's word,
 * the engine's variables first. */
static void container_command(const reader *r, yaml_node_t *c,
                              cli_k8s_launch *l, const cli_k8s_env *env,
                              cli_k8s_arena *a)
{
    char *words[CLI_K8S_MAX_WORDS];
    int n = 0;
    yaml_node_t *cmd = at(r, c, "command"), *args = at(r, c, "args");
    const char *const *entry =
        items(cmd) == 0 ? cli_k8s_entrypoint(l->image) : NULL;
    for (; entry && entry[n] && n < CLI_K8S_MAX_WORDS; n++)
        words[n] = (char *)entry[n];
    for (int part = 0; part < 2; part++) {
        yaml_node_t *seq = part == 0 ? cmd : args;
        for (size_t i = 0; i < items(seq); i++) {
            const char *w = scalar(r, item(r, seq, i));
            char *x = w ? cli_k8s_expand(a, w, env, l) : NULL;
            if (n == CLI_K8S_MAX_WORDS || (w != NULL && x == NULL)) {
                cli_k8s_unread(l,
                               "command and args are over %d words or %zu "
                               "bytes",
                               CLI_K8S_MAX_WORDS, a->size);
                return;
            }
            if (x != NULL)
                words[n++] = x;
        }
    }
    if (n == 0)
        return;
    char *sw[CLI_K8S_MAX_WORDS];
    const char *script = cli_k8s_shell_script(n, words);
    int first = -1, count = 0;
    if (script != NULL) {
        char *x = cli_k8s_expand_shell(a, script, env);
        if (x == NULL) {
            cli_k8s_unread(l, "the script is over %zu bytes", a->size);
            return;
        }
        count = cli_k8s_script_launch(a, x, sw, CLI_K8S_MAX_WORDS, l);
        first = count > 0 ? 0 : -1;
    } else {
        first = cli_launch_find(n, words);
        while (first > 0 && strchr(words[first - 1], '=') != NULL)
            first--;
        count = first >= 0 ? n - first : 0;
    }
    if (first < 0)
        return;
    for (size_t i = 0; i < env->n; i++) { /* the engines' own variables */
        const char *name = env->name[i];
        if (strncmp(name, "SGLANG_", 7) != 0 && strncmp(name, "VLLM_", 5) != 0)
            continue;
        char kv[600];
        int k = snprintf(kv, sizeof kv, "%s=%s", name, env->value[i]);
        char *w = k > 0 && (size_t)k < sizeof kv && l->argc < 32
                      ? cli_k8s_arena_put(a, kv, (size_t)k)
                      : NULL;
        if (w == NULL) {
            cli_k8s_unread(l,
                           "%s: over 32 engine variables, or one over %zu "
                           "bytes",
                           name, sizeof kv);
            return;
        }
        l->argv[l->argc++] = w;
    }
    if (l->argc + count > CLI_K8S_MAX_WORDS) {
        cli_k8s_unread(l, "the server's command is over %d words",
                       CLI_K8S_MAX_WORDS);
        return;
    }
    for (int i = 0; i < count; i++)
        l->argv[l->argc++] = script ? sw[i] : words[first + i];
}

static void visible_devices(cli_k8s_launch *l, const cli_k8s_env *env)
{
    const char *v = cli_k8s_env_get(env, "CUDA_VISIBLE_DEVICES", 20);
    l->visible = v == NULL ? -1 : *v ? 1 : 0;
    for (const char *p = v ? v : ""; *p; p++)
        l->visible += *p == ',';
    for (size_t i = 0; i < env->n; i++)
        if (strncmp(env->name[i], "HF_", 3) == 0) {
            cli_k8s_note(l, "%s: the pod's Hub settings are not applied here",
                         env->name[i]);
            break;
        }
}

/* ---- workloads ---------------------------------------------------------- */

static kvplan_status push(reader *r, const cli_k8s_launch *l)
{
    cli_k8s *k = r->out;
    if (k->n == CLI_K8S_MAX_LAUNCHES)
        return fail(r->err, KVPLAN_INVALID_ARGUMENT,
                    "more than %d servers in one manifest",
                    CLI_K8S_MAX_LAUNCHES);
    if (k->n % 16 == 0) {
        cli_k8s_launch *g =
            realloc(k->launches, (k->n + 16) * sizeof k->launches[0]);
        if (g == NULL)
            return fail(r->err, KVPLAN_NOMEM, "out of memory");
        k->launches = g;
    }
    k->launches[k->n++] = *l;
    return KVPLAN_OK;
}

static const kind_row *kind_of(const char *kind)
{
    for (size_t i = 0; kind && i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(kinds[i].kind, kind) == 0)
            return &kinds[i];
    return NULL;
}

/* An annotation of the workload or its pod template. */
static const char *annotation(const reader *r, yaml_node_t *w,
                              yaml_node_t *meta, const char *key)
{
    size_t n = strlen(key);
    const char *v = scalar(r, member(r, at(r, meta, "annotations"), key, n));
    return v ? v
             : scalar(r, member(r, at(r, w, "metadata.annotations"), key, n));
}

/* One pod spec's containers that start a server. */
static kvplan_status pod_launches(reader *r, yaml_node_t *w, const char *path,
                                  const char *role, int64_t pods)
{
    yaml_node_t *pod = at(r, w, path);
    char meta_path[128]; /* the pod template's metadata: ...spec -> ...metadata
                          */
    snprintf(meta_path, sizeof meta_path, "%.*smetadata",
             (int)(strlen(path) - 4), path);
    yaml_node_t *meta =
        strcmp(path, "spec") == 0 ? at(r, w, "metadata") : at(r, w, meta_path);
    yaml_node_t *list = at(r, pod, "containers");
    for (size_t i = 0; i < items(list); i++) {
        yaml_node_t *c = item(r, list, i);
        r->out->containers++;
        cli_k8s_launch l;
        memset(&l, 0, sizeof l);
        copy(l.kind, sizeof l.kind, text_at(r, w, "kind"));
        copy(l.name, sizeof l.name, text_at(r, w, "metadata.name"));
        copy(l.ns, sizeof l.ns, text_at(r, w, "metadata.namespace"));
        copy(l.container, sizeof l.container, text_at(r, c, "name"));
        copy(l.image, sizeof l.image, text_at(r, c, "image"));
        copy(l.model, sizeof l.model,
             annotation(r, w, meta, "kvplan.dev/model"));
        l.role = role;
        l.pods = pods;
        const char *g = annotation(r, w, meta, "kvplan.dev/gpu");
        if (g != NULL && kvplan_gpu_preset(g, &(kvplan_gpu){0})) {
            copy(l.gpu, sizeof l.gpu, g);
            snprintf(l.gpu_from, sizeof l.gpu_from,
                     "annotation kvplan.dev/gpu=%s", g);
        } else if (g != NULL) {
            snprintf(l.gpu_seen, sizeof l.gpu_seen,
                     "annotation kvplan.dev/gpu=%s, not a preset "
                     "(kvplan --list-gpus)",
                     g);
        } else {
            pod_gpu(r, pod, &l);
        }
        container_gpus(r, c, &l);
        cli_k8s_env env = {0};
        container_env(r, c, &l, &env);
        visible_devices(&l, &env);
        cli_k8s_arena a = {malloc(1u << 16), 0, 1u << 16};
        if (a.buf == NULL)
            return fail(r->err, KVPLAN_NOMEM, "out of memory");
        container_command(r, c, &l, &env, &a);
        /* a container that starts no server is counted, not planned; one
         * whose command was not read whole is answered "not checked" */
        if (l.unread[0] == '\0' &&
            (l.argc == 0 || cli_launch_find(l.argc, l.argv) < 0)) {
            free(a.buf);
            continue;
        }
        l.text = a.buf;
        kvplan_status st = push(r, &l);
        if (st != KVPLAN_OK) {
            free(a.buf);
            return st;
        }
    }
    return KVPLAN_OK;
}

static kvplan_status workload(reader *r, yaml_node_t *w)
{
    const kind_row *k = kind_of(text_at(r, w, "kind"));
    if (k == NULL)
        return KVPLAN_OK; /* a Service, a ConfigMap, ... */
    r->out->workloads++;
    int64_t pods = k->size ? quantity(text_at(r, w, k->size)) : 1;
    if (pods < 1)
        pods = 1; /* LeaderWorkerSet's default size */
    bool leader = k->leader != NULL && at(r, w, k->leader) != NULL;
    return pod_launches(r, w, leader ? k->leader : k->pod,
                        leader ? "leader" : "", pods);
}

kvplan_status cli_k8s_read(const char *text, size_t len, cli_k8s *out,
                           kvplan_error *err)
{
    memset(out, 0, sizeof *out);
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return fail(err, KVPLAN_NOMEM, "out of memory");
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    kvplan_status st = KVPLAN_OK;
    for (;;) {
        yaml_document_t doc;
        if (!yaml_parser_load(&parser, &doc)) {
            st = fail(err, KVPLAN_PARSE, "YAML, line %zu column %zu: %s",
                      parser.problem_mark.line + 1,
                      parser.problem_mark.column + 1,
                      parser.problem ? parser.problem : "not YAML");
            err->line = (uint32_t)parser.problem_mark.line + 1;
            err->column = (uint32_t)parser.problem_mark.column + 1;
            break;
        }
        reader r = {&doc, out, err};
        yaml_node_t *root = yaml_document_get_root_node(&doc);
        if (root == NULL) { /* the stream's end */
            yaml_document_delete(&doc);
            break;
        }
        out->documents++;
        const char *kind = text_at(&r, root, "kind");
        yaml_node_t *list = at(&r, root, "items");
        if (kind != NULL && strcmp(kind, "List") == 0)
            for (size_t i = 0; i < items(list) && st == KVPLAN_OK; i++)
                st = workload(&r, item(&r, list, i));
        else
            st = workload(&r, root);
        yaml_document_delete(&doc);
        if (st != KVPLAN_OK)
            break;
    }
    yaml_parser_delete(&parser);
    if (st != KVPLAN_OK)
        cli_k8s_free(out);
    return st;
}

void cli_k8s_free(cli_k8s *k)
{
    for (size_t i = 0; i < k->n; i++)
        free(k->launches[i].text);
    free(k->launches);
    memset(k, 0, sizeof *k);
}
