/*
 * resolve.c: what sglang's server_args resolve before the budget: the
 * attention backend and the page size it implies (docs/sglang-rules.md
 * §4.3), and the speculative hook's automatic parameters (§1.12, §4.5).
 */
#include "plan/plan.h"

#include <stdio.h>
#include <string.h>

void kvplan_plan_options_init(kvplan_plan_options *o)
{
    if (o == NULL)
        return;
    memset(o, 0, sizeof *o);
    kvplan_server_args_init(&o->server);
    o->server.page_size = 0; /* sglang's default */
}

/* §4.3: the attention backend and the page size it implies. */
void kvplan__choose_backend(const kvplan_model *m, const kvplan_plan_options *o,
                            const kvplan_gpu *gpu, int64_t *page, char *backend,
                            size_t size)
{
    const char *b = o->attention_backend;
    int cc = gpu->compute_capability;
    bool user_page = o->server.page_size > 0;
    int64_t p = user_page ? o->server.page_size : 1;
    if (m->info.is_deepseek_v4) {
        b = b ? b : "dsv4";
        if (!user_page)
            p = gpu->is_hip ? 128 : 256;
    } else if (m->info.is_deepseek_dsa) {
        b = b ? b : "dsa";
        if (!user_page)
            p = 64;
    } else if (b == NULL) {
        bool topk_one = !o->server.speculative_eagle_topk.set ||
                        o->server.speculative_eagle_topk.value <= 1;
        if (gpu->is_hip)
            b = "aiter";
        else if (m->info.is_mla)
            b = cc >= 100  ? (m->self_draft ? "trtllm_mla" : "flashinfer")
                : cc >= 90 ? "fa3"
                           : "flashinfer";
        else if (cc >= 100)
            b = "trtllm_mha";
        else if (cc >= 90 && topk_one)
            b = "fa3";
        else
            b = (m->traits & KVPLAN__ARCH_ATTENTION_SINKS) ? "triton"
                                                           : "flashinfer";
        if (m->traits & KVPLAN__ARCH_FA3_FA4) {
            b = cc >= 100 ? "fa4" : "fa3";
            if (!user_page)
                p = 128;
        }
    }
    /* the backends' page constraints */
    if (strcmp(b, "flashmla") == 0)
        p = 64;
    else if (strcmp(b, "cutlass_mla") == 0)
        p = 128;
    else if ((strcmp(b, "trtllm_mla") == 0 ||
              strcmp(b, "tokenspeed_mla") == 0 ||
              strcmp(b, "cutedsl_mla") == 0) &&
             p != 32 && p != 64)
        p = 64;
    else if (strcmp(b, "trtllm_mha") == 0 && p != 16 && p != 32 && p != 64)
        p = 64;
    else if (strcmp(b, "fa4") == 0 && cc >= 100 && !m->info.is_mla)
        p = 128;
    *page = p;
    snprintf(backend, size, "%s", b);
}

/* sglang's auto speculative parameters when --speculative-num-steps is
 * not given (steps, topk, draft tokens). */
void kvplan__auto_spec_params(const kvplan_model *m, kvplan_server_args *s)
{
    if (s->speculative_num_steps.set)
        return;
    bool mtp_like = m->self_draft || m->info.is_mla ||
                    (m->traits & KVPLAN__ARCH_MTP_LIKE) || m->info.is_mambaish;
    int64_t steps = mtp_like ? 3 : 5, topk = mtp_like ? 1 : 4,
            tokens = mtp_like ? 4 : 8;
    s->speculative_num_steps = (kvplan_opt_int){steps, true};
    if (!s->speculative_eagle_topk.set)
        s->speculative_eagle_topk = (kvplan_opt_int){topk, true};
    if (!s->speculative_num_draft_tokens.set)
        s->speculative_num_draft_tokens = (kvplan_opt_int){tokens, true};
}
