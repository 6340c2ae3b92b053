/*
 * vllm_parse.c: the readings of a vLLM start-up log (docs/log.md, "vLLM
 * logs"). vLLM v1 prints its arguments ("non-default args: {...}", "with
 * config: ..."), the budget ("Model loading took", "Available KV cache
 * memory", the CUDA graphs' estimate and capture, a DEBUG profile) and the
 * cache ("GPU KV cache size", "Maximum concurrency", num_gpu_blocks). A
 * terminal may cut a line at its width: a physical line that does not
 * open a record (a process prefix, a level, a timestamp) continues the
 * one before. Bounded, no allocation, nothing defaulted.
 */
#include "log/log.h"

#include <string.h>

/* The longest logical line kept; the rest of a longer one is not read
 * (the config line's fields come first). */
#define LINE_MAX 8192

/* Whether a physical line opens a record: "(APIServer pid=", "INFO",
 * "WARNING", "DEBUG", "ERROR", "[", a timestamp or a grep's "67:". */
static bool opens_record(const char *s, const char *end)
{
    if (s >= end)
        return true; /* an empty line ends a wrapped one */
    static const char *const heads[] = {"(",     "INFO", "WARNING", "DEBUG",
                                        "ERROR", "[",    "vllm",    "vLLM"};
    for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++) {
        size_t n = strlen(heads[i]);
        if ((size_t)(end - s) >= n && memcmp(s, heads[i], n) == 0)
            return true;
    }
    /* a timestamp ("09-04 01:28", "2026-05-01 22:47") or a grep's "67:";
     * not a wrapped value such as "2-7B-Instruct'" */
    const char *d = s;
    while (d < end && *d >= '0' && *d <= '9')
        d++;
    size_t n = (size_t)(d - s);
    if (n == 0 || d >= end)
        return false;
    if (*d == ':')
        return true;
    return *d == '-' && (n == 2 || n == 4) && d + 2 < end && d[1] >= '0' &&
           d[1] <= '9' && d[2] >= '0' && d[2] <= '9';
}

/* An integer printed with thousands' commas ("1,215,552"). */
static bool grouped_after(kvplan__log_span l, const char *key, int64_t *out)
{
    const char *k = kvplan__log_find(l.s, l.end, key);
    if (k == NULL)
        return false;
    const char *p = k + strlen(key);
    int64_t v = 0;
    bool any = false;
    for (; p < l.end && ((*p >= '0' && *p <= '9') || (*p == ',' && any)); p++) {
        if (*p == ',')
            continue;
        if (v > (INT64_MAX - 9) / 10)
            return false;
        v = v * 10 + (*p - '0');
        any = true;
    }
    if (any)
        *out = v;
    return any;
}

/* A Python value after `key` in a dict ('key': value) or a config
 * (key=value): an int, True/False as 1/0. */
static bool py_int(kvplan__log_span l, const char *key, kvplan_opt_int *o)
{
    const char *p = kvplan__log_value_at(l, key, " ':=");
    if (p == NULL)
        return false;
    int64_t v;
    if (l.end - p >= 4 && memcmp(p, "True", 4) == 0)
        v = 1;
    else if (l.end - p >= 5 && memcmp(p, "False", 5) == 0)
        v = 0;
    else if (!kvplan__log_parse_int(&p, l.end, &v))
        return false;
    *o = (kvplan_opt_int){v, true};
    return true;
}

static bool py_double(kvplan__log_span l, const char *key, kvplan_opt_double *o)
{
    const char *p = kvplan__log_value_at(l, key, " ':=");
    double v;
    if (p == NULL || !kvplan__log_parse_double(&p, l.end, &v))
        return false;
    *o = (kvplan_opt_double){v, true};
    return true;
}

/* A Python string or word after `key`: 'text' or a bare word; None and
 * "auto" kept as printed ("None" is not copied). */
static bool py_text(kvplan__log_span l, const char *key, char *dst, size_t size,
                    bool *cut)
{
    const char *k = kvplan__log_find_word(l.s, l.end, key);
    if (k == NULL)
        return false;
    const char *p = k + strlen(key);
    while (p < l.end && (*p == ' ' || *p == ':' || *p == '='))
        p++;
    const char *e;
    if (p < l.end && (*p == '\'' || *p == '"')) {
        char q = *p++;
        e = memchr(p, q, (size_t)(l.end - p));
        if (e == NULL)
            return false;
    } else {
        e = p;
        while (e < l.end && *e != ',' && *e != ' ' && *e != '}' && *e != ')')
            e++;
    }
    if (e == p || (e - p == 4 && memcmp(p, "None", 4) == 0))
        return false;
    if (e - p > 6 && memcmp(p, "torch.", 6) == 0)
        p += 6; /* dtype=torch.bfloat16 */
    bool fit = kvplan__log_copy_text(dst, size, p, (size_t)(e - p));
    if (cut != NULL)
        *cut = !fit;
    return true;
}

/* The worker rank of a "(VllmWorker TP1 pid=", "(Worker_TP3_EP3 pid="
 * prefix, or -1. */
static int64_t worker_rank(kvplan__log_span l)
{
    const char *open = memchr(l.s, '(', (size_t)(l.end - l.s));
    if (open == NULL || open - l.s > 40)
        return -1;
    const char *close = memchr(open, ')', (size_t)(l.end - open));
    const char *tp = close ? kvplan__log_find(open, close, "TP") : NULL;
    int64_t r;
    if (tp == NULL || !kvplan__log_find(open, close, "Worker"))
        return -1;
    tp += 2;
    return kvplan__log_parse_int(&tp, close, &r) && r >= 0 ? r : -1;
}

/* The release after "version " or "(v": digits, dots, rc/post/dev. */
static void read_version(kvplan_vllm_log_readings *r, kvplan__log_span l,
                         const char *key)
{
    const char *k = kvplan__log_find(l.s, l.end, key);
    if (k == NULL)
        return;
    const char *p = k + strlen(key), *e = p;
    while (e < l.end && e - p < 30 &&
           ((*e >= '0' && *e <= '9') || *e == '.' || (*e >= 'a' && *e <= 'z') ||
            *e == '+'))
        e++;
    if (e > p && *p >= '0' && *p <= '9')
        kvplan__log_copy_text(r->version, sizeof r->version, p,
                              (size_t)(e - p));
}

/* The arguments of "non-default args: {...}" and "with config: ...". */
static bool read_args(kvplan_vllm_log_readings *r, kvplan__log_span l,
                      bool dict)
{
    bool any = false;
    if (r->model[0] == '\0')
        any |= py_text(l, dict ? "'model'" : "model", r->model, sizeof r->model,
                       &r->model_cut);
    const char *tp = dict ? "'tensor_parallel_size'" : "tensor_parallel_size";
    const char *pp =
        dict ? "'pipeline_parallel_size'" : "pipeline_parallel_size";
    any |= py_int(l, tp, &r->tensor_parallel_size);
    any |= py_int(l, pp, &r->pipeline_parallel_size);
    any |=
        py_int(l, dict ? "'max_model_len'" : "max_seq_len", &r->max_model_len);
    any |= py_int(l, dict ? "'enforce_eager'" : "enforce_eager",
                  &r->enforce_eager);
    any |= py_int(l, dict ? "'enable_prefix_caching'" : "enable_prefix_caching",
                  &r->enable_prefix_caching);
    any |= py_text(l, dict ? "'kv_cache_dtype'" : "kv_cache_dtype",
                   r->kv_cache_dtype, sizeof r->kv_cache_dtype, NULL);
    any |= py_text(l, dict ? "'dtype'" : " dtype", r->dtype, sizeof r->dtype,
                   NULL);
    any |= py_text(l, dict ? "'quantization'" : "quantization", r->quantization,
                   sizeof r->quantization, NULL);
    if (dict) {
        any |= py_text(l, "'mamba_ssm_cache_dtype'", r->mamba_ssm_cache_dtype,
                       sizeof r->mamba_ssm_cache_dtype, NULL);
        any |= py_int(l, "'block_size'", &r->block_size);
        any |= py_int(l, "'max_num_seqs'", &r->max_num_seqs);
        any |=
            py_int(l, "'max_num_batched_tokens'", &r->max_num_batched_tokens);
        any |=
            py_int(l, "'num_gpu_blocks_override'", &r->num_gpu_blocks_override);
        any |= py_double(l, "'gpu_memory_utilization'",
                         &r->gpu_memory_utilization);
    }
    return any;
}

/* The budget's and the cache's figures. */
static bool read_figures(kvplan_vllm_log_readings *r, kvplan__log_span l)
{
    double v;
    int64_t n;
    bool any = false;
    if (kvplan__log_gib_after(l, "Model loading took ", &v) ||
        kvplan__log_gib_after(l, "Loading model weights took ", &v))
        kvplan__log_set_max(&r->weights_gib, v), any = true;
    /* negative when nothing is left: vLLM then refuses to start */
    if (kvplan__log_double_after(l, "Available KV cache memory: ", &v) &&
        v <= 1048576.0)
        kvplan__log_set_min(&r->available_gib, v), any = true;
    if (kvplan__log_int_after(l, "Current kv cache memory in use is ", &n) &&
        kvplan__log_find(l.s, l.end, " bytes") && n > 0)
        r->kv_cache_bytes = (kvplan_opt_int){n, true}, any = true;
    const char *used = kvplan__log_find(l.s, l.end, " GiB for consumed memory");
    if (used != NULL) {
        const char *p = used;
        while (p > l.s && p[-1] != ' ')
            p--;
        if (kvplan__log_parse_double(&p, used, &v))
            r->consumed_gib = (kvplan_opt_double){v, true}, any = true;
    }
    if (kvplan__log_gib_after(l, "Estimated CUDA graph memory: ", &v))
        kvplan__log_set_max(&r->graph_estimate_gib, v), any = true;
    const char *g = kvplan__log_find(l.s, l.end, "Graph capturing finished");
    if (g != NULL &&
        kvplan__log_gib_after((kvplan__log_span){g, l.end}, "took ", &v))
        kvplan__log_set_max(&r->graph_taken_gib, v), any = true;
    if (kvplan__log_gib_after(l, "Free memory on device (", &v)) {
        kvplan__log_set_min(&r->free_gib, v);
        const char *s = kvplan__log_find(l.s, l.end, "Free memory on device (");
        const char *slash = s ? memchr(s, '/', (size_t)(l.end - s)) : NULL;
        if (slash != NULL &&
            kvplan__log_gib_after((kvplan__log_span){slash, l.end}, "/", &v))
            r->total_gib = (kvplan_opt_double){v, true};
        any = true;
    }
    if (kvplan__log_gib_after(l, "Initial free memory: ", &v))
        kvplan__log_set_min(&r->free_gib, v), any = true;
    const char *peak = kvplan__log_find(l.s, l.end, " GiB for peak activation");
    const char *nt = kvplan__log_find(l.s, l.end, " GiB for non-torch memory");
    if (peak != NULL) { /* "..., A GiB for peak activation, N GiB for..." */
        const char *p = peak;
        while (p > l.s && p[-1] != ' ')
            p--;
        if (kvplan__log_parse_double(&p, peak, &v))
            r->activation_gib = (kvplan_opt_double){v, true}, any = true;
    }
    if (nt != NULL) {
        const char *p = nt;
        while (p > l.s && p[-1] != ' ')
            p--;
        if (kvplan__log_parse_double(&p, nt, &v))
            r->non_torch_gib = (kvplan_opt_double){v, true}, any = true;
    }
    if (kvplan__log_gib_after(l, "torch peak memory increase: ", &v))
        r->activation_gib = (kvplan_opt_double){v, true}, any = true;
    if (kvplan__log_gib_after(l, "non-torch forward increase memory: ", &v))
        r->non_torch_gib = (kvplan_opt_double){v, true}, any = true;
    if (grouped_after(l, "GPU KV cache size: ", &n))
        r->kv_cache_tokens = (kvplan_opt_int){n, true}, any = true;
    if (grouped_after(l, "Maximum concurrency for ", &n)) {
        r->concurrency_len = (kvplan_opt_int){n, true};
        any = true;
        if (kvplan__log_double_after(l, "per request: ", &v))
            r->max_concurrency = (kvplan_opt_double){v, true};
    }
    if (kvplan__log_int_after(l, "num_gpu_blocks is: ", &n) ||
        kvplan__log_int_after(l, "# GPU blocks: ", &n) ||
        kvplan__log_int_after(l, "# cuda blocks: ", &n))
        r->num_gpu_blocks = (kvplan_opt_int){n, true}, any = true;
    /* NemotronHForCausalLMConfig's choice, printed when the flag is auto */
    if (py_text(l, "Updating mamba_ssm_cache_dtype to",
                r->mamba_ssm_cache_dtype, sizeof r->mamba_ssm_cache_dtype,
                NULL))
        any = true;
    if (kvplan__log_int_after(l, "Setting attention block size to ", &n))
        r->attention_block = (kvplan_opt_int){n, true}, any = true;
    if (kvplan__log_int_after(l, "Add ", &n) &&
        kvplan__log_find(l.s, l.end, "padding layers"))
        r->padding_layers = (kvplan_opt_int){n, true}, any = true;
    if (kvplan__log_int_after(l, "max_num_batched_tokens=", &n) &&
        kvplan__log_find(l.s, l.end, "Chunked prefill is enabled"))
        r->max_num_batched_tokens = (kvplan_opt_int){n, true}, any = true;
    if (kvplan__log_int_after(l, "Using max model len ", &n))
        r->max_model_len = (kvplan_opt_int){n, true}, any = true;
    if (kvplan__log_find(l.s, l.end, "PyTorch-native implementation of top")) {
        r->native_sampler = true;
        any = true;
    }
    static const char *const refusals[] = {
        "No available memory for the cache blocks",
        "To serve at least one request with the model"};
    for (size_t i = 0; i < 2 && r->refusal[0] == '\0'; i++) {
        const char *f = kvplan__log_find(l.s, l.end, refusals[i]);
        if (f != NULL) {
            kvplan__log_copy_text(r->refusal, sizeof r->refusal, f,
                                  (size_t)(l.end - f));
            any = true;
        }
    }
    return any;
}

static void read_line(kvplan_vllm_log_readings *r, kvplan__log_span l,
                      uint64_t *ranks)
{
    bool used = false;
    if (kvplan__log_find(l.s, l.end, "vLLM API server version ")) {
        read_version(r, l, "vLLM API server version ");
        used = true;
    } else if (kvplan__log_find(l.s, l.end, "LLM engine (v")) {
        if (r->version[0] == '\0')
            read_version(r, l, "LLM engine (v");
        used = true;
    } else if (kvplan__log_find(l.s, l.end, "\xe2\x96\x88") &&
               kvplan__log_find(l.s, l.end, " version ")) {
        /* the start banner's "version 0.19.1" (U+2588 blocks around it) */
        if (r->version[0] == '\0')
            read_version(r, l, " version ");
        used = true;
    }
    const char *args = kvplan__log_find(l.s, l.end, "non-default args: {");
    const char *conf = kvplan__log_find(l.s, l.end, "with config: ");
    if (args != NULL)
        used |= read_args(r, (kvplan__log_span){args, l.end}, true);
    if (conf != NULL)
        used |= read_args(r, (kvplan__log_span){conf, l.end}, false);
    used |= read_figures(r, l);
    int64_t rank = worker_rank(l);
    if (rank >= 0 && rank < 64 && !(*ranks >> rank & 1)) {
        *ranks |= (uint64_t)1 << rank;
        r->workers++;
    }
    r->lines_used += used;
}

kvplan_engine kvplan_log_engine(const char *text, size_t len)
{
    static const char *const marks[] = {
        "vLLM API server version", "Initializing a V1 LLM engine",
        "GPU KV cache size:", "Available KV cache memory:"};
    if (text == NULL)
        return KVPLAN_ENGINE_SGLANG;
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
        if (kvplan__log_find(text, text + len, marks[i]) != NULL)
            return KVPLAN_ENGINE_VLLM;
    if (kvplan__log_find(text, text + len, "[TRT-LLM]") != NULL ||
        kvplan__log_find(text, text + len, "[TensorRT-LLM]") != NULL)
        return KVPLAN_ENGINE_TRTLLM;
    return KVPLAN_ENGINE_SGLANG;
}

kvplan_status kvplan_vllm_log_parse(const char *text, size_t len,
                                    kvplan_vllm_log_readings *out,
                                    kvplan_error *err)
{
    KVPLAN__FAIL_IF(out == NULL || (text == NULL && len > 0), err,
                    KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_vllm_log_parse: text and out must not be NULL");
    memset(out, 0, sizeof *out);
    char line[LINE_MAX];
    size_t n = 0;
    uint64_t ranks = 0;
    const char *p = text, *end = text + len;
    kvplan__log_span l;
    while (kvplan__log_next_line(&p, end, &l)) {
        out->lines++;
        if (n > 0 && opens_record(l.s, l.end)) { /* the record before is
                                                    whole */
            read_line(out, (kvplan__log_span){line, line + n}, &ranks);
            n = 0;
        }
        size_t width = (size_t)(l.end - l.s);
        size_t take = width < sizeof line - n ? width : sizeof line - n;
        memcpy(line + n, l.s, take);
        n += take;
    }
    if (n > 0)
        read_line(out, (kvplan__log_span){line, line + n}, &ranks);
    KVPLAN__FAIL_IF(out->lines_used == 0, err, KVPLAN_PARSE, "log",
                    "no line of a vLLM start-up in %lld lines: expected "
                    "\"vLLM API server version\", \"Available KV cache "
                    "memory:\" or \"GPU KV cache size:\"",
                    (long long)out->lines);
    return kvplan__ok(err);
}
