/*
 * update.c: a plan from the plan before it (kvplan_plan_update), for a
 * sweep's next row: when only the fraction or the GPU changed, the ranks,
 * configurators and weights stand and only the budget and the pools are
 * planned again (plan.c's back of the pipeline); otherwise a whole plan.
 */
#include "plan/plan.h"

#include "common/option_table.h"

#include <string.h>

/* n bytes of `from` into `to`, written only where they differ: a sweep's
 * two plans in turn, `to` (the plan two rows back) often holds them
 * already, and comparing costs about half of copying. */
static void copy_changed(void *to, const void *from, size_t n)
{
    if (memcmp(to, from, n) != 0)
        memcpy(to, from, n);
}

/* memcpy, out of line: GCC writes a constant copy of a few hundred bytes
 * as `rep movsq`, whose start-up costs more than the copy (7 % of a
 * sweep's row); libc's memcpy moves it in vector registers. GCC's
 * noinline alone would still clone it for the constant size. */
#if defined(__clang__)
#define KVPLAN__OUT_OF_LINE __attribute__((noinline))
#elif defined(__GNUC__)
#define KVPLAN__OUT_OF_LINE __attribute__((noipa))
#else
#define KVPLAN__OUT_OF_LINE
#endif

KVPLAN__OUT_OF_LINE static void copy_bytes(void *to, const void *from, size_t n)
{
    memcpy(to, from, n);
}

/* A sweep's reuse: each stage's rank, configurator and weights from the
 * plan before (draft_kv: set again by the allocation when drafting). */
static void reuse_stages(kvplan_plan *out, const kvplan_plan *prev)
{
    out->num_stages = prev->num_stages;
    for (size_t i = 0; i < prev->num_stages; i++) {
        kvplan_stage_plan *sp = &out->stages[i];
        const kvplan_stage_plan *was = &prev->stages[i];
        /* pp_rank, rank and configurator, adjacent: one comparison */
        copy_changed(sp, was,
                     offsetof(kvplan_stage_plan, configurator) +
                         sizeof sp->configurator);
        sp->weight_bytes = was->weight_bytes;
        sp->draft_weight_bytes = was->draft_weight_bytes;
        sp->allocation.draft_kv_bytes = 0;
    }
}

/* How `o` differs from `po` (prev's options), on a plan whose ranks can be
 * reused (MiniMax's pool reads the layer ids a plan does not keep). */
typedef enum change {
    REPLAN,    /* in more than the GPU's memory and the fraction */
    SAME_GPU,  /* at most in the fraction's value */
    OTHER_GPU, /* in the fraction and gpu.name / gpu.total_mib */
} change;

static change budget_change(const kvplan_plan_options *o,
                            const kvplan_plan_options *po,
                            const kvplan_plan *prev)
{
    if (prev->struct_size != sizeof *prev || o->server.pp_size < 1 ||
        prev->num_stages != (size_t)o->server.pp_size ||
        prev->stages[0].rank.model.hf_config.is_minimax_sparse)
        return REPLAN;
    const char *x = (const char *)o, *y = (const char *)po;
    size_t f0 = offsetof(kvplan_plan_options, mem_fraction_static),
           g0 = offsetof(kvplan_plan_options, gpu) + offsetof(kvplan_gpu, name),
           g1 = offsetof(kvplan_plan_options, gpu) +
                offsetof(kvplan_gpu, total_mib) + sizeof o->gpu.total_mib;
    _Static_assert(offsetof(kvplan_gpu, name) == 0 &&
                       offsetof(kvplan_gpu, total_mib) == sizeof o->gpu.name,
                   "gpu.name and gpu.total_mib lead kvplan_gpu");
    _Static_assert(offsetof(kvplan_plan_options, mem_fraction_static) +
                           sizeof o->mem_fraction_static ==
                       sizeof *o,
                   "mem_fraction_static ends kvplan_plan_options");
    /* a sweep's rows most often keep the GPU: one comparison for all that
     * comes before the fraction */
    if (memcmp(x, y, f0) == 0)
        return o->mem_fraction_static.set == po->mem_fraction_static.set
                   ? SAME_GPU
                   : OTHER_GPU;
    return memcmp(x, y, g0) == 0 && memcmp(x + g1, y + g1, f0 - g1) == 0
               ? OTHER_GPU
               : REPLAN;
}

kvplan_status kvplan_plan_update(const kvplan_model *m,
                                 const kvplan_plan_options *o,
                                 const kvplan_plan_options *po,
                                 const kvplan_plan *prev, kvplan_plan *out,
                                 kvplan_error *err)
{
    KVPLAN__FAIL_IF(out != NULL && out == prev, err, KVPLAN_INVALID_ARGUMENT,
                    NULL,
                    "kvplan_plan_update needs a plan to fill other than the "
                    "one it reuses");
    change c =
        m == NULL || o == NULL || out == NULL || po == NULL || prev == NULL
            ? REPLAN
            : budget_change(o, po, prev);
    if (c == REPLAN)
        return kvplan_plan_compute(m, o, out, err);
    /* the rest is prev's options, which planned: only the fraction to
     * check where the GPU stays */
    KVPLAN__TRY(c == SAME_GPU ? kvplan__options_check_fraction(o, err)
                              : kvplan__check_budget_options(o, err));
    kvplan__pipeline p = kvplan__pipeline_start(m, o);
    if (c == SAME_GPU) {
        /* the same GPU: the flags, the fraction rule's terms, the ranks,
         * the weights and the context stand; only a given fraction
         * changes (or nothing) */
        if (!o->mem_fraction_static.set) { /* the same options */
            memcpy(out, prev,
                   offsetof(kvplan_plan, stages) +
                       prev->num_stages * sizeof prev->stages[0]);
            return kvplan__ok(err);
        }
        /* what kvplan__pipeline_back() reads and does not write: the header,
         * the budget's terms and tensors, each stage's rank, configurator and
         * weights (back writes the rest: warnings, capacity, pools) */
        size_t same = offsetof(kvplan_plan, max_running_requests);
        copy_changed(out, prev, same); /* the results after it: back's */
        memcpy((char *)out + same, (const char *)prev + same,
               offsetof(kvplan_plan, warnings) - same);
        out->num_warnings = 0;
        copy_bytes(&out->budget, &prev->budget,
                   offsetof(kvplan_budget, weight_tensors));
        copy_changed(out->budget.weight_tensors, prev->budget.weight_tensors,
                     prev->budget.num_weight_tensors *
                         sizeof prev->budget.weight_tensors[0]);
        reuse_stages(out, prev);
        kvplan__fraction_given(o, out->rules, &out->budget);
        p.context_known = true;
        return kvplan__pipeline_back(&p, out, false, err);
    }
    kvplan__plan_reset(out, prev->num_stages);
    KVPLAN__TRY(kvplan__resolve_args(m, o, p.gpu, o->gpu_set, out, err));
    /* the same flags resolved: the same ranks (they read nothing else) */
    kvplan__resolve_dtypes(out, p.model_dtype,
                           prev->stages[0].rank.runner.kv_cache_dtype);
    kvplan_server_args a = out->resolved;
    a.speculative_draft_model = NULL;
    a.SGLANG_PP_LAYER_PARTITION = NULL;
    a.SGLANG_DSV4_COMPRESS_STATE_DTYPE = NULL;
    if (memcmp(&a, &prev->resolved, sizeof a) != 0 ||
        out->page_size != prev->page_size ||
        strcmp(out->attention_backend, prev->attention_backend) != 0)
        return kvplan_plan_compute(m, o, out, err);
    KVPLAN__TRY(kvplan__pipeline_fraction(&p, out, err));
    out->context_len = prev->context_len;
    reuse_stages(out, prev);
    kvplan_budget *b = &out->budget;
    const kvplan_budget *pb = &prev->budget;
    b->weights_estimated = pb->weights_estimated;
    b->draft_weights_estimated = pb->draft_weights_estimated;
    b->weights_source = pb->weights_source;
    b->num_weight_tensors = pb->num_weight_tensors;
    b->load_overhead_bytes = pb->load_overhead_bytes;
    b->rank_weight_bytes = pb->rank_weight_bytes;
    b->rank_draft_bytes = pb->rank_draft_bytes;
    b->estimated_rank_weight_bytes = pb->estimated_rank_weight_bytes;
    memcpy(b->weight_tensors, pb->weight_tensors,
           pb->num_weight_tensors * sizeof b->weight_tensors[0]);
    return kvplan__pipeline_back(&p, out, false, err);
}
