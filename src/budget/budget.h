/*
 * budget.h: the budget room's internals; not installed.
 *
 * GPU memory -> the bytes sglang hands its pool configurator
 * (docs/sglang-rules.md §3.1, §4.1-4.2): the GPU presets (gpu.c), the local
 * GPUs through NVML (nvml.c), the weights measured or estimated
 * (weights.c), and sglang's mem_fraction_static rule and available-bytes
 * formula (budget.c). It reads the model only through the plain shapes of
 * common/shapes.h: budget and model do not include each other.
 */
#ifndef KVPLAN_BUDGET_H
#define KVPLAN_BUDGET_H

#include "common/internal.h"
#include "common/shapes.h"

/* ---- tensors.c ---------------------------------------------------------- */

/* What a weight estimate is for: one rank of one pipeline stage. */
typedef struct kvplan__weights_request {
    const kvplan__weight_shape *shape;
    double dtype_bytes;       /* the model dtype's */
    const char *quantization; /* --quantization; NULL: the config's */
    int64_t tp, attn_tp;      /* attn_tp = tp / dp under DP attention */
    bool dp_attention;
    double start_layer, end_layer; /* the stage's layers */
    bool first_stage, last_stage;
    bool params; /* count the parameters too (model_params and its parts) */
    /* MXFP4 experts as the engine's MoE kernel holds them: each rank's
     * intermediate rounded up to mx_inter, the hidden size to mx_hidden
     * (0 or 1: the checkpoint's shapes) */
    int32_t mx_inter, mx_hidden;
} kvplan__weights_request;

typedef struct kvplan__weights_estimate_out {
    double rank_bytes;       /* the tensors on one rank, allocator-rounded */
    double rank_exact_bytes; /* the same, unrounded */
    double model_bytes;      /* the whole model's tensors */
    /* its parameters when the request asks, each once (copies made after
     * loading left out): all, the embedding's, the output head's (an LM
     * head, or a reward model's score) and the vision tower's */
    double model_params, embed_params, head_params, vision_params;
    double load_overhead_bytes; /* what loading adds beside them, per rank */
    bool beyond;                /* the sizes make more than 10^30 bytes */
    /* filled when not NULL, up to KVPLAN_MAX_WEIGHT_TENSORS */
    kvplan_weight_tensor *tensors;
    size_t num_tensors;
} kvplan__weights_estimate_out;

/* Whether the estimate knows quantization `method`'s storage. */
bool kvplan__priced_quantization(const char *method);

/* The weights of one rank of a stage, tensor by tensor. */
void kvplan__weights_estimate(const kvplan__weights_request *rq,
                              kvplan__weights_estimate_out *out);

/* ---- weights.c ---------------------------------------------------------- */

#define KVPLAN__MAX_DTYPES 24

/* What a model folder's safetensors headers hold: what kvplan_hub_fetch
 * keeps in a snapshot's .kvplan-complete, so that a cached run reads one
 * small file instead of the index and every header again. */
typedef struct kvplan__weights_summary {
    int64_t bytes, shards, tensors;
    bool from_index; /* no shard there: the index's metadata.total_size */
    size_t num_dtypes;
    struct {
        char name[16];
        int64_t bytes;
    } by_dtype[KVPLAN__MAX_DTYPES];
} kvplan__weights_summary;

/* The weights of a model folder from its headers: the shards the index
 * names (each must be there, as itself or as SHARD.kvplan-header), else
 * every *.safetensors; the index's total_size only where no shard is
 * there. KVPLAN_IO when the folder has neither index nor shard. */
kvplan_status kvplan__weights_measure(const char *dir,
                                      kvplan__weights_summary *s,
                                      kvplan_error *err);

/* The summary as .kvplan-complete keeps it: a JSON object. */
char *kvplan__weights_summary_json(const kvplan__weights_summary *s,
                                   const char *commit);

/* sglang's _calculate_mamba_ratio: mamba slots per running request. */
int64_t kvplan__mamba_ratio(bool disable_radix_cache,
                            bool disable_overlap_schedule, int64_t page_size);

/* ---- budget.c ----------------------------------------------------------- */

/* §4.2: chunked_prefill_size and the decode cuda-graph batch by GPU
 * memory; `known` false (no GPU: --available-bytes alone) takes sglang's
 * fallback. */
void kvplan__memory_tiers(double gpu_mib, bool known, int64_t tp,
                          int64_t *chunk, int64_t *max_bs);

/* What sglang's mem_fraction_static rule (§4.1) reads. */
typedef struct kvplan__fraction_inputs {
    double gpu_mib;
    bool is_hip;
    int64_t tp_size, pp_size, dp_size, attn_cp_size;
    bool enable_dp_attention;
    kvplan_disaggregation_mode disaggregation_mode;
    kvplan_opt_int max_running_requests;
    kvplan_opt_int speculative_num_draft_tokens;
    kvplan_opt_int max_total_tokens;
    kvplan_opt_int context_length;
    int64_t chunked_prefill_size; /* resolved */
    int64_t max_prefill_tokens;   /* resolved */
    int64_t cuda_graph_max_bs;    /* resolved */
    bool disable_cuda_graph;
    bool model_is_llama2; /* the model path names "llama-2" */
    bool is_mla, is_deepseek_v4;
    bool deepep;         /* --moe-a2a-backend deepep */
    bool moe_a2a;        /* any MoE all-to-all backend */
    bool aiter;          /* the attention backend is aiter */
    int64_t context_len; /* the served context, for aiter's factor */
    kvplan__vision_shape vision;
    /* the sglang version's rules (KVPLAN_RULE_*), and what they read */
    uint64_t rules;
    int64_t dcp_size;
    kvplan_spec_algorithm speculative_algorithm;
} kvplan__fraction_inputs;

/* sglang's mem_fraction_static when the flag is absent; fills the rule's
 * terms into `b` (reserved, activation, graph, prefill graph count). */
void kvplan__budget_fraction(const kvplan__fraction_inputs *in,
                             kvplan_budget *b);

/* What the available-bytes formula (§3.1) reads. */
typedef struct kvplan__available_inputs {
    const kvplan_gpu *gpu;
    double ranks;             /* tp * pp: the world that min-reduces */
    double nodes;             /* the nodes they span (--nnodes), >= 1 */
    double rank_weight_bytes; /* the target's, on the rank with the most */
    double rank_draft_bytes;  /* the draft's */
    double fraction;          /* mem_fraction_static, resolved */
    /* the mamba reservation (handle_max_mamba_cache) */
    bool is_mambaish;
    double mamba_per_request;
    int64_t mamba_ratio;
    int64_t attn_dp;
    bool disable_radix_cache;
    bool speculative;
    kvplan_opt_int speculative_num_draft_tokens;
    kvplan_opt_int max_running_requests;
    kvplan_opt_int max_mamba_cache_size;
    double mamba_full_memory_ratio;
    /* a calibration's context bytes, measured (else modelled) */
    kvplan_opt_int context_bytes;
    /* the budget's context terms are already this GPU's at this rank
     * count (a sweep's row after one on the same GPU): kept */
    bool context_known;
    /* the sglang version's rules, and the multimodal cache they keep out
     * (MiB; 0: none) */
    uint64_t rules;
    double mm_reserve_mib;
} kvplan__available_inputs;

/* The CUDA / ROCm context and communicators on each GPU before the
 * weights load: a public measurement of this GPU at this rank count, else
 * the GPU's single-rank figure plus the interconnect's per-rank growth
 * (docs/budget.md); over several nodes, the ranks of one. */
void kvplan__context_overhead(const kvplan_gpu *gpu, double ranks, double nodes,
                              uint64_t rules, double *bytes,
                              kvplan_source *source, const char **basis);

/* The bytes per rank sglang's _profile_available_bytes returns; fills the
 * formula's terms into `b` and *max_mamba with the mamba slots.
 * KVPLAN_NOT_ENOUGH_MEMORY when the weights or the fraction leave nothing. */
kvplan_status kvplan__budget_available(const kvplan__available_inputs *in,
                                       kvplan_budget *b, int64_t *available,
                                       int64_t *max_mamba, kvplan_error *err);

/* ---- gpu.c -------------------------------------------------------------- */

/* The preset a plan without a GPU assumes (H100-80GB). */
const kvplan_gpu *kvplan__gpu_default(void);
/* The bytes CUDA reports as the GPU's total (torch.cuda.mem_get_info,
 * what vLLM and TensorRT-LLM read): memory.total less the driver's
 * reserve, NVML's or a preset's where known, else 512 MiB on NVIDIA (0 on
 * ROCm). `known` (may be NULL) says whether the reserve was. */
double kvplan__gpu_cuda_total(const kvplan_gpu *gpu, bool *known);

/* The compute capability's major (9 Hopper, 10 data-centre Blackwell, 12
 * consumer Blackwell): the engines' is_sm100 / is_hopper checks are the
 * major exactly. */
static inline int kvplan__gpu_major(const kvplan_gpu *gpu)
{
    return gpu->compute_capability / 10;
}

#endif /* KVPLAN_BUDGET_H */
