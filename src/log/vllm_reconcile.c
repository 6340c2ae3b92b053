/*
 * vllm_reconcile.c: a vLLM log's readings as engine options (its printed
 * arguments, its version's profile), and the log reconciled with kvplan:
 * the blocks and "GPU KV cache size" from the log's own "Available KV
 * cache memory" (printed to 2 decimals, so an interval of +-0.005 GiB),
 * kvplan's own budget on the GPU named, and a cause for each difference
 * (docs/log.md, "vLLM logs").
 */
#include "log/log.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define GIB 1073741824.0

KVPLAN_PRINTF(4, 5)
static void cause(kvplan_vllm_log_result *out, kvplan_log_cause_code code,
                  const char *row, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kvplan__log_vcause(out->causes, &out->num_causes, code, row, fmt, ap);
    va_end(ap);
}

static void set_int(int64_t *dst, kvplan_opt_int v)
{
    if (v.set)
        *dst = v.value;
}

static void set_opt(kvplan_opt_int *dst, kvplan_opt_int v)
{
    if (v.set)
        *dst = v;
}

kvplan_status kvplan_vllm_log_options(const kvplan_vllm_log_readings *r,
                                      kvplan_engine_options *o,
                                      kvplan_error *err)
{
    KVPLAN__FAIL_IF(r == NULL || o == NULL, err, KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_vllm_log_options: readings and options must not "
                    "be NULL");
    o->engine = KVPLAN_ENGINE_VLLM;
    set_int(&o->tp_size, r->tensor_parallel_size);
    set_int(&o->pp_size, r->pipeline_parallel_size);
    set_opt(&o->max_model_len, r->max_model_len);
    set_opt(&o->block_size, r->block_size);
    set_opt(&o->max_num_seqs, r->max_num_seqs);
    set_opt(&o->max_num_batched_tokens, r->max_num_batched_tokens);
    set_opt(&o->num_gpu_blocks_override, r->num_gpu_blocks_override);
    if (r->gpu_memory_utilization.set)
        o->gpu_memory_utilization = r->gpu_memory_utilization;
    if (r->enforce_eager.set)
        o->enforce_eager = r->enforce_eager.value != 0;
    if (r->enable_prefix_caching.set)
        o->no_prefix_caching = r->enable_prefix_caching.value == 0;
    int v;
    if (r->kv_cache_dtype[0] != '\0') {
        KVPLAN__FAIL_IF(!kvplan_word_value(KVPLAN_WORDS_KV_CACHE_DTYPE,
                                           r->kv_cache_dtype, &v),
                        err, KVPLAN_INVALID_ARGUMENT, "--kv-cache-dtype",
                        "the log's kv_cache_dtype '%.23s' is not one kvplan "
                        "knows",
                        r->kv_cache_dtype);
        o->kv_cache_dtype = (kvplan_kv_cache_dtype_flag)v;
    }
    if (r->dtype[0] != '\0' &&
        kvplan_word_value(KVPLAN_WORDS_DTYPE, r->dtype, &v))
        o->dtype = (kvplan_dtype_flag)v;
    /* the scheme the log names (its config's, or --quantization): the
     * weights follow it; borrowed from the readings */
    if (r->quantization[0] != '\0' &&
        kvplan_word_value(KVPLAN_WORDS_QUANTIZATION, r->quantization, NULL))
        o->quantization = r->quantization;
    /* "Falling back to the PyTorch-native implementation": a sort */
    o->native_sampler |= r->native_sampler;
    if (r->mamba_ssm_cache_dtype[0] != '\0') {
        KVPLAN__FAIL_IF(!kvplan_word_value(KVPLAN_WORDS_MAMBA_SSM_CACHE_DTYPE,
                                           r->mamba_ssm_cache_dtype, NULL),
                        err, KVPLAN_INVALID_ARGUMENT, "--mamba-ssm-cache-dtype",
                        "the log's mamba_ssm_cache_dtype '%.15s' is none of "
                        "vLLM's auto, float32, float16, bfloat16",
                        r->mamba_ssm_cache_dtype);
        o->mamba_ssm_cache_dtype = r->mamba_ssm_cache_dtype;
    }
    kvplan_vllm_profile p;
    if (r->version[0] != '\0' &&
        kvplan_vllm_profile_parse(r->version, &p, NULL) == KVPLAN_OK)
        o->vllm_version = p;
    return kvplan__ok(err);
}

/* The plan at `bytes` of KV cache: its blocks and printed tokens; false
 * when vLLM would refuse it. */
static bool plan_at(const kvplan_model *m, kvplan_engine_options o,
                    int64_t bytes, int64_t *blocks, int64_t *tokens)
{
    o.kv_cache_memory_bytes = (kvplan_opt_int){bytes, true};
    kvplan_engine_plan p;
    if (kvplan_engine_compute(m, &o, &p, NULL) != KVPLAN_OK)
        return false;
    *blocks = p.num_gpu_blocks;
    *tokens = p.kv_cache_tokens;
    return true;
}

/* The interval from the log's own available memory. */
static void from_log(const kvplan_model *m, const kvplan_vllm_log_readings *r,
                     const kvplan_engine_options *o,
                     kvplan_vllm_log_result *out)
{
    double a = r->available_gib.value;
    if (a <= 0) {
        cause(out, KVPLAN_CAUSE_OUTSIDE, "available",
              "the log's available KV cache memory is %.2f GiB: vLLM "
              "refused to start (\"No available memory for the cache "
              "blocks\")",
              a);
        return;
    }
    out->available_lo = (int64_t)ceil((a - 0.005) * GIB);
    out->available_hi = (int64_t)floor((a + 0.005) * GIB);
    if (r->kv_cache_bytes.set) /* the bytes themselves: one plan */
        out->available_lo = out->available_hi = r->kv_cache_bytes.value;
    if (!plan_at(m, *o, out->available_lo, &out->blocks_lo, &out->tokens_lo) ||
        !plan_at(m, *o, out->available_hi, &out->blocks_hi, &out->tokens_hi)) {
        kvplan_engine_options t = *o;
        t.kv_cache_memory_bytes = (kvplan_opt_int){out->available_hi, true};
        kvplan_engine_plan p;
        kvplan_error e;
        kvplan_engine_compute(m, &t, &p, &e);
        cause(out, KVPLAN_CAUSE_MODEL_NOT_PLANNED, "available",
              "from the log's %.2f GiB kvplan's vLLM plan fails: %.170s", a,
              e.message);
        return;
    }
    out->interval = true;
    bool tok = !r->kv_cache_tokens.set ||
               (r->kv_cache_tokens.value >= out->tokens_lo &&
                r->kv_cache_tokens.value <= out->tokens_hi);
    bool blk =
        !r->num_gpu_blocks.set || (r->num_gpu_blocks.value >= out->blocks_lo &&
                                   r->num_gpu_blocks.value <= out->blocks_hi);
    out->inside =
        tok && blk && (r->kv_cache_tokens.set || r->num_gpu_blocks.set);
    if (!r->kv_cache_tokens.set && !r->num_gpu_blocks.set)
        cause(out, KVPLAN_CAUSE_MISSING_READING, "tokens",
              "the log prints neither \"GPU KV cache size\" nor "
              "num_gpu_blocks: nothing to compare");
    else if (!out->inside)
        cause(
            out, KVPLAN_CAUSE_OUTSIDE, tok ? "blocks" : "tokens",
            "from the log's own %.2f GiB kvplan gives %lld-%lld blocks, "
            "%lld-%lld tokens; the log printed %lld blocks, %lld tokens%s",
            a, (long long)out->blocks_lo, (long long)out->blocks_hi,
            (long long)out->tokens_lo, (long long)out->tokens_hi,
            (long long)(r->num_gpu_blocks.set ? r->num_gpu_blocks.value : -1),
            (long long)(r->kv_cache_tokens.set ? r->kv_cache_tokens.value : -1),
            r->attention_block.set ? " (its attention block is the "
                                     "log's own choice)"
                                   : "");
}

/* kvplan's own budget on the GPU named, against the log. */
static void modelled(const kvplan_model *m, const kvplan_vllm_log_readings *r,
                     const kvplan_engine_options *o,
                     kvplan_vllm_log_result *out)
{
    kvplan_engine_options t = *o;
    t.kv_cache_memory_bytes.set = false;
    kvplan_engine_plan p;
    kvplan_error e;
    if (kvplan_engine_compute(m, &t, &p, &e) != KVPLAN_OK) {
        cause(out, KVPLAN_CAUSE_OUTSIDE, "modelled",
              "on the %.60s kvplan's budget refuses: %.150s", o->gpu.name,
              e.message);
        return;
    }
    out->modelled = true;
    out->available_gib = (double)p.available_bytes / GIB;
    out->weights_gib = p.weight_bytes / GIB;
    out->blocks = p.num_gpu_blocks;
    out->tokens = p.kv_cache_tokens;
    if (r->kv_cache_tokens.set && r->kv_cache_tokens.value > 0)
        out->error_pct =
            100.0 * (double)(p.kv_cache_tokens - r->kv_cache_tokens.value) /
            (double)r->kv_cache_tokens.value;
    if (r->weights_gib.set && fabs(out->weights_gib - r->weights_gib.value) >
                                  0.02 * r->weights_gib.value)
        cause(out, KVPLAN_CAUSE_WEIGHTS, "weights",
              "the log's weights are %.2f GiB a GPU, kvplan's estimate "
              "%.2f (--weight-bytes gives the checkpoint's)",
              r->weights_gib.value, out->weights_gib);
    if (r->native_sampler && fabs(out->error_pct) > 1.0)
        cause(out, KVPLAN_CAUSE_OUTSIDE, "activation",
              "the log's sampler is PyTorch's own (\"FlashInfer is not "
              "available\"): kvplan prices its top-k/top-p sort in the "
              "profile run at 38.5 bytes a sequence and vocabulary entry, "
              "an estimate (--activation-memory gives the measured peak)");
    if (r->free_gib.set && r->total_gib.set &&
        r->total_gib.value - r->free_gib.value > 1.5)
        cause(out, KVPLAN_CAUSE_BUSY_GPU, "free",
              "%.2f of %.2f GiB were free at start: another process held "
              "%.2f GiB, which kvplan's budget does not know",
              r->free_gib.value, r->total_gib.value,
              r->total_gib.value - r->free_gib.value);
}

kvplan_status kvplan_vllm_log_reconcile(const kvplan_model *m,
                                        const char *model_error,
                                        const kvplan_vllm_log_readings *r,
                                        const kvplan_engine_options *o,
                                        kvplan_vllm_log_result *out,
                                        kvplan_error *err)
{
    KVPLAN__FAIL_IF(r == NULL || o == NULL || out == NULL, err,
                    KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_vllm_log_reconcile: readings, options and out "
                    "must not be NULL");
    memset(out, 0, sizeof *out);
    out->profile = o->vllm_version;
    kvplan_vllm_profile p;
    out->profile_from_log =
        r->version[0] != '\0' &&
        kvplan_vllm_profile_parse(r->version, &p, NULL) == KVPLAN_OK &&
        p == o->vllm_version;
    if (m == NULL) {
        cause(out, KVPLAN_CAUSE_MODEL_NOT_PLANNED, "model", "%.200s",
              model_error != NULL && model_error[0] != '\0'
                  ? model_error
                  : "no model: pass --model-path");
        return kvplan__ok(err);
    }
    if (!out->profile_from_log)
        cause(out, KVPLAN_CAUSE_OLDER_RULES, "version",
              "the log's vLLM %.31s has no profile of its own: planned "
              "with the rules of %s (--vllm-version)",
              r->version[0] != '\0' ? r->version : "(not printed)",
              kvplan_vllm_profile_name(o->vllm_version));
    if (r->available_gib.set)
        from_log(m, r, o, out);
    else
        cause(out, KVPLAN_CAUSE_MISSING_READING, "available",
              "the log prints no \"Available KV cache memory\": the "
              "interval needs it");
    if (o->gpu_set)
        modelled(m, r, o, out);
    return kvplan__ok(err);
}
