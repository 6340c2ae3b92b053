/*
 * launch_trtllm.c: a pasted trtllm-serve command's own spellings and its
 * YAML (launch_trtllm.h), as trtllm-serve reads them, restated from
 * tensorrt_llm/commands/serve.py (read at 00209af, 2026) and
 * update_llm_args_with_extra_dict (tensorrt_llm/llmapi/llm_args.py at
 * fcd3f31):
 *
 * - its click options' other names: --tensor_parallel_size (--tp_size),
 *   --pipeline_parallel_size (--pp_size), --free_gpu_memory_fraction
 *   (--kv_cache_free_gpu_memory_fraction), --moe_expert_parallel_size
 *   (--ep_size), --context_parallel_size (--cp_size),
 *   --moe_cluster_parallel_size (--cluster_size);
 * - --backend: kvplan plans the PyTorch flow (its default); the TensorRT
 *   engine flow and AutoDeploy are refused, named;
 * - --config / --extra_llm_api_options FILE: yaml.safe_load of the file,
 *   merged over the command's arguments at the top level
 *   (`llm_args | llm_args_dict`), so the YAML's value wins, and a
 *   kv_cache_config in it replaces the command's whole: the command's
 *   --kv_cache_free_gpu_memory_fraction is lost unless the YAML sets it
 *   again (said in a note). Its members kvplan reads set kvplan's options;
 *   the others are listed as not read, with what they change in GPU memory
 *   where they change it. A value kvplan refuses names its member and the
 *   file.
 */
#include "launch_trtllm.h"

#include "cli.h"
#include "launch.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "yaml_file.h"

/* ---- the command's flags ------------------------------------------------ */

const char *cli_trtllm_canonical(const char *flag, size_t len)
{
    static const struct {
        const char *other, *flag;
    } names[] = {
        {"--tensor_parallel_size", "--tp_size"},
        {"--pipeline_parallel_size", "--pp_size"},
        {"--free_gpu_memory_fraction", "--kv_cache_free_gpu_memory_fraction"},
        {"--moe_expert_parallel_size", "--ep_size"},
        {"--context_parallel_size", "--cp_size"},
        {"--moe_cluster_parallel_size", "--cluster_size"},
    };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strlen(names[k].other) == len &&
            memcmp(names[k].other, flag, len) == 0)
            return names[k].flag;
    return NULL;
}

/* What trtllm-serve's flags and YAML members that kvplan does not read
 * change in GPU memory; the others change none that kvplan plans. */
static const struct {
    const char *name, *changes;
} memory[] = {
    {"--ep_size", "the MoE layers' all-to-all buffers"},
    {"--cp_size", "the KV cache split over context-parallel ranks"},
    {"--cluster_size", "the MoE layers' experts a rank holds"},
    {"--max_beam_width", "each request's beams"},
    {"--config", "its kv_cache_config and the rest of its YAML"},
    {"--extra_llm_api_options", "its kv_cache_config and the rest of its YAML"},
    {"moe_expert_parallel_size", "the MoE layers' all-to-all buffers"},
    {"moe_cluster_parallel_size", "the MoE layers' experts a rank holds"},
    {"context_parallel_size", "the KV cache split over context-parallel ranks"},
    {"enable_attention_dp", "each rank's KV cache holds every KV head"},
    {"max_beam_width", "each request's beams"},
    {"speculative_config", "a draft's layers, weights and KV cache"},
    {"cuda_graph_config", "the CUDA graphs captured"},
    {"moe_config", "the MoE backend's workspace"},
    {"lora_config", "LoRA adapters' weights"},
    {"quant_config", "the weights' and the KV cache's precision"},
    {"kv_cache_config.pool_ratio", "V2's first split of its pools"},
    {"kv_cache_config.sink_token_length", "the sink tokens' blocks"},
    {"kv_cache_config.enable_swa_scratch_reuse", "V2's sliding-window pools"},
    {"kv_cache_config.cross_kv_cache_fraction",
     "an encoder-decoder's cross-attention share"},
    {"kv_cache_config.use_uvm", "where the KV cache lives"},
    {"kv_cache_config.mamba_state_config", "a mamba hybrid's state snapshots"},
    {"kv_cache_config.mixed_precision_first_n", "the KV cache's precision"},
    {"kv_cache_config.mixed_precision_last_n", "the KV cache's precision"},
};

const char *cli_trtllm_memory_effect(const char *name, size_t len)
{
    for (size_t k = 0; k < sizeof memory / sizeof memory[0]; k++) {
        size_t n = strlen(memory[k].name);
        /* a member's own members change what it changes */
        if ((n == len || (n < len && name[n] == '.' && name[0] != '-')) &&
            memcmp(memory[k].name, name, n) == 0)
            return memory[k].changes;
    }
    return NULL;
}

bool cli_trtllm_flag(int argc, char **argv, int *i, cli_args *cli,
                     kvplan_status *st, kvplan_error *err)
{
    cli_launch *l = &cli->launch;
    const char *arg = argv[*i], *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    bool backend = len == 9 && memcmp(arg, "--backend", 9) == 0;
    bool config =
        (len == 8 && memcmp(arg, "--config", 8) == 0) ||
        (len == 23 && memcmp(arg, "--extra_llm_api_options", 23) == 0);
    if (!backend && !config)
        return false;
    const char *v = eq ? eq + 1 : *i + 1 < argc ? argv[++*i] : NULL;
    *st = KVPLAN_OK;
    if (v == NULL) {
        *st = cli_usage_error(err, arg, "%.*s needs a value", (int)len, arg);
    } else if (backend) {
        /* serve.py's ChoiceWithAlias: pytorch, tensorrt (trt), _autodeploy */
        if (strcmp(v, "pytorch") != 0)
            *st = cli_usage_error(
                err, "--backend",
                "--backend %.40s: kvplan plans TensorRT-LLM's PyTorch flow "
                "(KvCacheCreator, its default backend); the TensorRT engine "
                "flow sizes its cache from a built engine and AutoDeploy by "
                "its own rules, neither modelled",
                v);
    } else if (cli->files_remote) {
        cli_launch_not_read(l, "--config"); /* a file in the container */
    } else {
        l->config_flag = len == 8 ? "--config" : "--extra_llm_api_options";
        l->config_path = v;
    }
    return true;
}

/* ---- its YAML ----------------------------------------------------------- */

#ifdef KVPLAN_NO_YAML

kvplan_status cli_trtllm_config(cli_args *cli, kvplan_error *err)
{
    (void)err;
    if (cli->launch.config_path != NULL &&
        cli->launch.engine == KVPLAN_ENGINE_TRTLLM)
        cli_launch_not_read(&cli->launch, cli->launch.config_flag);
    cli->launch.config_path = NULL; /* listed, not read */
    return KVPLAN_OK;
}

#else

/* How a member's value sets kvplan's option. */
typedef enum how {
    SET,        /* the value as it is */
    INVERSE,    /* a bool, the option its negation */
    SWITCH,     /* a bool or "auto" (the model's own choice) */
    LIST,       /* a sequence of numbers, written W,W,... */
    NONE_EAGER, /* null: no CUDA graphs (--enforce-eager) */
    BACKEND     /* --backend's words */
} how;

static const struct member {
    const char *path, *flag;
    how how;
} members[] = {
    {"max_batch_size", "--max-num-seqs", SET},
    {"max_num_tokens", "--max-num-batched-tokens", SET},
    {"max_seq_len", "--max-model-len", SET},
    {"tensor_parallel_size", "--tp-size", SET},
    {"pipeline_parallel_size", "--pp-size", SET},
    {"dtype", "--dtype", SET},
    {"backend", "--backend", BACKEND},
    {"cuda_graph_config", "--enforce-eager", NONE_EAGER},
    {"kv_cache_config.free_gpu_memory_fraction", "--free-gpu-memory-fraction",
     SET},
    {"kv_cache_config.max_tokens", "--max-tokens", SET},
    {"kv_cache_config.enable_block_reuse", "--no-enable-prefix-caching",
     INVERSE},
    {"kv_cache_config.tokens_per_block", "--tokens-per-block", SET},
    {"kv_cache_config.dtype", "--kv-cache-dtype", SET},
    {"kv_cache_config.max_attention_window", "--max-attention-window", LIST},
    {"kv_cache_config.max_gpu_total_bytes", "--max-gpu-total-bytes", SET},
    {"kv_cache_config.host_cache_size", "--host-cache-size", SET},
    {"kv_cache_config.mamba_state_cache_interval",
     "--mamba-state-cache-interval", SET},
    {"kv_cache_config.mamba_ssm_cache_dtype", "--mamba-ssm-cache-dtype", SET},
    {"kv_cache_config.use_kv_cache_manager_v2", "--use-kv-cache-manager-v2",
     SWITCH},
    {"kv_cache_config.max_util_for_resume", "--max-util-for-resume", SET},
    {"kv_cache_config.avg_seq_len", "--avg-seq-len", SET},
};

typedef struct reading {
    cli_args *cli;
    yaml_document_t *doc;
    const char *file;
    kvplan_error *err;
} reading;

static kvplan_status refuse(reading *r, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static kvplan_status refuse(reading *r, const char *path, const char *fmt, ...)
{
    char why[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    char field[96];
    snprintf(field, sizeof field, "%s", path);
    return cli_usage_error(r->err, field, "%.200s: %s: %s", r->file, path, why);
}

/* Sets kvplan's `flag` to `text`; a refusal names the member. */
static kvplan_status set(reading *r, const char *path, const char *flag,
                         const char *text)
{
    const char *v = cli_yaml_keep(&r->cli->launch, text);
    if (v == NULL)
        return refuse(r, path, "%s",
                      "the YAML's values are too long for kvplan");
    kvplan_error e;
    kvplan_status st = kvplan_options_set(&r->cli->o, flag, v, &e);
    if (st == KVPLAN_OK || e.code == KVPLAN_NOMEM) {
        if (st != KVPLAN_OK)
            *r->err = e;
        return st;
    }
    size_t n = strlen(flag); /* "--flag: why": the member says which */
    bool named = strncmp(e.message, flag, n) == 0 && e.message[n] == ':' &&
                 e.message[n + 1] == ' ';
    return refuse(r, path, "%s", named ? e.message + n + 2 : e.message);
}

/* A sequence of scalars as W,W,... */
static kvplan_status list(reading *r, const char *path, const char *flag,
                          const yaml_node_t *n)
{
    char text[4096]; /* a window a layer: 94 layers of 131072 fit */
    size_t used = 0;
    if (n->type != YAML_SEQUENCE_NODE ||
        n->data.sequence.items.top == n->data.sequence.items.start)
        return refuse(r, path, "%s", "expected a list of windows");
    for (yaml_node_item_t *it = n->data.sequence.items.start;
         it < n->data.sequence.items.top; it++) {
        yaml_node_t *x = yaml_document_get_node(r->doc, *it);
        if (x == NULL || x->type != YAML_SCALAR_NODE)
            return refuse(r, path, "%s", "expected a list of windows");
        int w = snprintf(text + used, sizeof text - used, "%s%s",
                         used ? "," : "", (const char *)x->data.scalar.value);
        if (w < 0 || (size_t)w >= sizeof text - used)
            return refuse(r, path, "%s", "the list is too long for kvplan");
        used += (size_t)w;
    }
    return set(r, path, flag, text);
}

/* A bool as TensorRT-LLM's pydantic config takes it (lax mode, pydantic's
 * conversion table): YAML's own true and false, or a scalar that is any
 * case of "0", "off", "f", "false", "n", "no" or "1", "on", "t", "true",
 * "y", "yes" (quoted "false" and a plain 0 are false there); -1 else. */
static int pydantic_bool(const yaml_node_t *n)
{
    static const char *const words[2][6] = {
        {"0", "off", "f", "false", "n", "no"},
        {"1", "on", "t", "true", "y", "yes"}};
    int b = cli_yaml_bool(n);
    for (int v = 0; b < 0 && n->type == YAML_SCALAR_NODE && v < 2; v++)
        for (size_t k = 0; k < 6; k++)
            if (strcasecmp((const char *)n->data.scalar.value, words[v][k]) ==
                0)
                b = v;
    return b;
}

static kvplan_status member(reading *r, const struct member *m,
                            const yaml_node_t *n)
{
    if (cli_yaml_null(n)) /* None: TensorRT-LLM's default; no graphs */
        return m->how == NONE_EAGER ? set(r, m->path, m->flag, "true")
                                    : KVPLAN_OK;
    if (m->how == LIST)
        return list(r, m->path, m->flag, n);
    if (m->how == NONE_EAGER) { /* a mapping: graphs, as by default */
        if (n->type != YAML_MAPPING_NODE)
            return refuse(r, m->path, "%s", "expected a mapping or null");
        cli_launch_not_read(&r->cli->launch, m->path);
        return KVPLAN_OK;
    }
    if (n->type != YAML_SCALAR_NODE)
        return refuse(r, m->path, "%s", "expected one value");
    const char *s = (const char *)n->data.scalar.value;
    int b = cli_yaml_bool(n);
    switch (m->how) {
    case BACKEND:
        if (strcmp(s, "pytorch") != 0)
            return refuse(r, m->path,
                          "%s: kvplan plans TensorRT-LLM's PyTorch flow "
                          "(KvCacheCreator); the TensorRT engine flow and "
                          "AutoDeploy are not modelled",
                          s);
        return KVPLAN_OK;
    case INVERSE:
        b = pydantic_bool(n);
        if (b < 0)
            return refuse(r, m->path, "%s: expected true or false", s);
        return set(r, m->path, m->flag, b ? "false" : "true");
    case SWITCH: /* use_kv_cache_manager_v2; auto: the release's default
                    for the model, as neither flag */
        b = pydantic_bool(n);
        if (b < 0 && strcmp(s, "auto") != 0)
            return refuse(r, m->path, "%s: expected true, false or auto", s);
        if (set(r, m->path, m->flag, b > 0 ? "true" : "false") != KVPLAN_OK)
            return r->err->code;
        return set(r, m->path, "--no-use-kv-cache-manager-v2",
                   b == 0 ? "true" : "false");
    default:
        break;
    }
    if (b >= 0)
        return refuse(r, m->path, "%s: expected a number or a word", s);
    return set(r, m->path, m->flag, s);
}

/* The mapping at `n` under `prefix` ("" or "kv_cache_config"). */
static kvplan_status mapping(reading *r, const yaml_node_t *n,
                             const char *prefix)
{
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
         p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(r->doc, p->value);
        if (k == NULL || v == NULL || k->type != YAML_SCALAR_NODE)
            return refuse(r, prefix[0] ? prefix : "(top)", "%s",
                          "expected a mapping of names");
        char path[96];
        snprintf(path, sizeof path, "%s%s%s", prefix, prefix[0] ? "." : "",
                 (const char *)k->data.scalar.value);
        if (prefix[0] == '\0' && strcmp(path, "kv_cache_config") == 0) {
            if (cli_yaml_null(v))
                continue;
            if (v->type != YAML_MAPPING_NODE)
                return refuse(r, path, "%s", "expected a mapping");
            CLI_TRY(mapping(r, v, "kv_cache_config"));
            continue;
        }
        const struct member *m = NULL;
        for (size_t j = 0; j < sizeof members / sizeof members[0]; j++)
            if (strcmp(members[j].path, path) == 0)
                m = &members[j];
        if (m != NULL)
            CLI_TRY(member(r, m, v));
        else if (!((cli_yaml_null(v) || cli_yaml_bool(v) == 0) &&
                   cli_trtllm_memory_effect(path, strlen(path)) != NULL))
            cli_launch_not_read(&r->cli->launch,
                                path); /* off: as kvplan plans */
    }
    return KVPLAN_OK;
}

/* The YAML's kv_cache_config replaces the command's (the top-level merge):
 * a fraction given on the command line is lost unless set again. */
static void replaced(reading *r, const yaml_node_t *root)
{
    kvplan_engine_options *e = &r->cli->o.engine_options;
    const yaml_node_t *kv = NULL;
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
         p < root->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(r->doc, p->value);
        if (k != NULL && v != NULL && k->type == YAML_SCALAR_NODE &&
            v->type == YAML_MAPPING_NODE &&
            strcmp((const char *)k->data.scalar.value, "kv_cache_config") == 0)
            kv = v;
    }
    if (kv == NULL || !e->free_gpu_memory_fraction.set)
        return;
    for (yaml_node_pair_t *p = kv->data.mapping.pairs.start;
         p < kv->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
        if (k != NULL && k->type == YAML_SCALAR_NODE &&
            strcmp((const char *)k->data.scalar.value,
                   "free_gpu_memory_fraction") == 0)
            return;
    }
    snprintf(r->cli->launch.config_note, sizeof r->cli->launch.config_note,
             "the command's --kv_cache_free_gpu_memory_fraction %g is lost: "
             "%s's kv_cache_config replaces the command's whole "
             "(trtllm-serve merges its YAML over the command's arguments "
             "at the top level) and does not set free_gpu_memory_fraction, "
             "so TensorRT-LLM's default 0.9 holds",
             e->free_gpu_memory_fraction.value, r->file);
    e->free_gpu_memory_fraction.set = false;
}

kvplan_status cli_trtllm_config(cli_args *cli, kvplan_error *err)
{
    cli_launch *l = &cli->launch;
    if (l->config_path == NULL || l->engine != KVPLAN_ENGINE_TRTLLM)
        return KVPLAN_OK;
    yaml_document_t doc;
    yaml_node_t *root;
    CLI_TRY(cli_yaml_load(l->config_flag, l->config_path, "trtllm-serve",
                          "LLM API arguments (max_batch_size, "
                          "kv_cache_config, ...)",
                          &doc, &root, err));
    reading r = {cli, &doc, l->config_path, err};
    kvplan_status st = KVPLAN_OK;
    if (root != NULL) { /* an empty file: safe_load's None, nothing merged */
        replaced(&r, root);
        st = mapping(&r, root, "");
    }
    yaml_document_delete(&doc);
    return st;
}

#endif
