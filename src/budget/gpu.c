/*
 * gpu.c: the GPU presets kvplan ships: memory.total as the vendor's tool
 * reports it, the compute capability sglang's defaults read, the
 * architecture's name (sm90, gfx942), the interconnect; and the context
 * overhead per GPU and rank count (docs/budget.md).
 */
#include "budget/budget.h"

#include <stdio.h>

/* How a board's GPUs talk to each other: what each further rank's
 * communicator buffers cost (kvplan__context_overhead). */
typedef enum link { LINK_NVLINK, LINK_PCIE, LINK_XGMI } link;

/* The boards, in the order --list-gpus shows them. */
typedef enum board {
    B_NONE = -1, /* a GPU given by its memory, or probed */
    B_H100_80GB,
    B_H100_NVL,
    B_H200,
    B_H20,
    B_B200,
    B_GB200,
    B_GB10,
    B_A100_80GB,
    B_A100_40GB,
    B_L40S,
    B_L4,
    B_A10G,
    B_RTX_4090,
    B_RTX_5080,
    B_RTX_5090,
    B_MI300X,
    B_MI325X,
    B_MI355X,
} board;

/* memory.total in MiB as nvidia-smi (rocm-smi for AMD) reports it. H100
 * and H200 are docs/sglang-rules.md §4.1's figures; the others are the
 * totals these boards report, rounded as the tools print them (RTX 5080:
 * nvidia-smi in tests/logs/25's source; GB10, the DGX Spark's unified
 * memory: CUDA's 121.63 GiB, as sglang's own docstring quotes it,
 * docs/budget.md). AMD boards have no CUDA compute capability: 0. The
 * driver's reserve where it was measured (H200: NVML's reserved, 644939776
 * bytes on driver 580, which torch.cuda.mem_get_info's total leaves out;
 * A100-80GB: 737 MiB +-41, from one vLLM launch at two utilizations,
 * tests/logs/vllm/02 and 03: 0.25 x total = 24.83 - 5.01 GiB +-0.01, so
 * CUDA's total is 79.28 GiB; A100-40GB (SXM4): 625 MiB +-5, CUDA's total
 * 39.39 GiB as PyTorch's out-of-memory message prints it on that board
 * ("GPU 0; 39.39 GiB total capacity"), inside the 39.31-39.55 GiB that
 * tests/logs/vllm/10 implies (0.0596 x total = 2.35 GiB of graphs)).
 * Then the board's interconnect: what each further rank's communicator
 * buffers cost (the context table below). */
static const struct preset {
    kvplan_gpu gpu;
    link link;
} presets[] = {
    [B_H100_80GB] = {{"H100-80GB", 81559, 90, false, "sm90", 0, 0, ""},
                     LINK_NVLINK},
    [B_H100_NVL] = {{"H100-NVL", 95830, 90, false, "sm90", 0, 0, ""},
                    LINK_NVLINK},
    [B_H200] = {{"H200", 143771, 90, false, "sm90", 615.0625, 0, ""},
                LINK_NVLINK},
    [B_H20] = {{"H20", 97871, 90, false, "sm90", 0, 0, ""}, LINK_NVLINK},
    [B_B200] = {{"B200", 183359, 100, false, "sm100", 0, 0, ""}, LINK_NVLINK},
    [B_GB200] = {{"GB200", 189471, 100, false, "sm100", 0, 0, ""}, LINK_NVLINK},
    [B_GB10] = {{"GB10", 124549, 121, false, "sm121", 0, 0, ""}, LINK_PCIE},
    [B_A100_80GB] = {{"A100-80GB", 81920, 80, false, "sm80", 737, 0, ""},
                     LINK_NVLINK},
    [B_A100_40GB] = {{"A100-40GB", 40960, 80, false, "sm80", 625, 0, ""},
                     LINK_NVLINK},
    [B_L40S] = {{"L40S", 46068, 89, false, "sm89", 0, 0, ""}, LINK_PCIE},
    [B_L4] = {{"L4", 23034, 89, false, "sm89", 0, 0, ""}, LINK_PCIE},
    [B_A10G] = {{"A10G", 23028, 86, false, "sm86", 0, 0, ""}, LINK_PCIE},
    [B_RTX_4090] = {{"RTX-4090", 24564, 89, false, "sm89", 0, 0, ""},
                    LINK_PCIE},
    [B_RTX_5080] = {{"RTX-5080", 16303, 120, false, "sm120", 0, 0, ""},
                    LINK_PCIE},
    [B_RTX_5090] = {{"RTX-5090", 32607, 120, false, "sm120", 0, 0, ""},
                    LINK_PCIE},
    [B_MI300X] = {{"MI300X", 196592, 0, true, "gfx942", 0, 0, ""}, LINK_XGMI},
    [B_MI325X] = {{"MI325X", 262128, 0, true, "gfx942", 0, 0, ""}, LINK_XGMI},
    [B_MI355X] = {{"MI355X", 294896, 0, true, "gfx950", 0, 0, ""}, LINK_XGMI},
};

#define NUM_PRESETS (sizeof presets / sizeof presets[0])
_Static_assert(NUM_PRESETS == B_MI355X + 1, "a board without its preset");

const kvplan_gpu *kvplan__gpu_default(void)
{
    return &presets[0].gpu; /* KVPLAN_DEFAULT_GPU, tested */
}

double kvplan__gpu_cuda_total(const kvplan_gpu *gpu, bool *known)
{
    bool k = gpu->reserved_mib > 0;
    if (known != NULL)
        *known = k;
    return (gpu->total_mib - (k             ? gpu->reserved_mib
                              : gpu->is_hip ? 0
                                            : 512)) *
           1048576.0;
}

bool kvplan_gpu_preset_at(size_t index, kvplan_gpu *out)
{
    if (index >= NUM_PRESETS || out == NULL)
        return false;
    *out = presets[index].gpu;
    return true;
}

/* Names compare in any case, '_' as '-'. */
static bool same_name(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = (*a >= 'a' && *a <= 'z') ? (char)(*a - 'a' + 'A') : *a;
        char y = (*b >= 'a' && *b <= 'z') ? (char)(*b - 'a' + 'A') : *b;
        if (x == '_')
            x = '-';
        if (y == '_')
            y = '-';
        if (x != y)
            return false;
    }
    return *a == *b;
}

bool kvplan_gpu_preset(const char *name, kvplan_gpu *out)
{
    if (name == NULL || out == NULL)
        return false;
    for (size_t i = 0; i < NUM_PRESETS; i++) {
        if (same_name(presets[i].gpu.name, name)) {
            *out = presets[i].gpu;
            return true;
        }
    }
    return false;
}

/* ---- the context overhead ------------------------------------------------
 *
 * GPU total minus sglang's "Load weight begin. avail mem=" figure: the CUDA
 * or ROCm context, NCCL/RCCL and the custom all-reduce buffers, and on a
 * unified-memory board what the host itself holds. One table of measured
 * bases, each row citing its measurement (tests/logs/SOURCES.md, the
 * H200 figures of tests/data/reference, docs/budget.md); the plan names the
 * row it used (its context basis). Between rows: the board's, or its
 * vendor's, single-GPU row plus what each further rank adds on its
 * interconnect. */

#define GIB 1073741824.0

/* One row: a board (B_NONE: any of the vendor's), the ranks on it (tp * pp),
 * the sglang rule it needs (0: any build), the GiB taken before loading,
 * what it rests on. The first row that matches is used: the specific
 * before the general. */
static const struct base {
    board board; /* B_NONE: any board of the vendor's */
    bool hip;
    int ranks;
    uint64_t rule;
    double gib;
    const char *basis;
} bases[] = {
    /* a unified-memory board: the host's own use comes first */
    {B_GB10, false, 1, 0, 9.77,
     "measured: DGX Spark (unified memory: the host's own use included), "
     "8.8-11.7 GiB below the total before loading in three public launches, "
     "their mean (docs/budget.md); the host's use varies"},
    /* builds that make a world-1 NCCL communicator at TP 1 */
    {B_RTX_5090, false, 1, KVPLAN_RULE_CONTEXT_TP1_NCCL, 1.16,
     "measured: sglang 0.5.17-0.5.19 on one idle RTX 5090, 1.16 GiB before "
     "loading (issue 26's survey)"},
    {B_H200, false, 1, KVPLAN_RULE_CONTEXT_TP1_NCCL, 1.25,
     "measured: one idle H200, the CUDA context, cuBLAS and a world-1 NCCL "
     "communicator, 1.255 GiB (tests/data/reference/h200-memory.md)"},
    {B_NONE, false, 1, KVPLAN_RULE_CONTEXT_TP1_NCCL, 1.17,
     "measured: sglang 0.5.17-0.5.19 on one idle H100, 1.17-1.18 GiB before "
     "loading (tests/logs/23, issue 26's survey)"},
    /* one GPU */
    {B_H100_80GB, false, 1, 0, 0.95,
     "measured: H100 at TP1, 1.06 GiB (tests/logs 01, 05) and 0.84 GiB (07, "
     "09); their mean"},
    {B_L4, false, 1, 0, 0.73,
     "measured: 4x L4 at TP4 less PCIe's per-rank share (tests/logs/18)"},
    {B_RTX_5080, false, 1, 0, 0.76,
     "measured: one RTX 5080, 15.92 GiB less 15.16 free before loading "
     "(tests/logs/25)"},
    {B_MI355X, true, 1, 0, 0.80, "measured: MI355X at TP1 (docs/budget.md)"},
    /* several */
    {B_L4, false, 4, 0, 0.86,
     "measured: QwQ-32B at TP4 on 4x L4 (tests/logs/18)"},
    {B_RTX_4090, false, 4, 0, 0.91,
     "measured: Qwen3-14B at TP4 on 4x RTX 4090, 23.99 GiB less 23.08 "
     "free before loading (tests/logs/24)"},
    {B_MI355X, true, 8, 0, 4.45,
     "measured: Kimi-K2.5 and GLM-5 at TP8 on 8x MI355X, 4.45 and 4.50 "
     "GiB (tests/logs 14, 21)"},
    {B_H200, false, 8, 0, 3.10,
     "measured: sglang at TP8 on 8x H200 (docs/budget.md)"},
    /* the vendors' single GPU, for a board without a row */
    {B_NONE, false, 1, 0, 0.95,
     "estimated: NVIDIA's single-GPU context (H100's, docs/budget.md)"},
    {B_NONE, true, 1, 0, 0.80,
     "estimated: AMD's single-GPU context (MI355X's, docs/budget.md)"},
};

/* GiB each rank beyond the first adds: NVLink's NCCL buffers (H200 TP8:
 * 3.10 - 0.95 over 7 ranks), PCIe's (L4 TP4: 0.86 - 0.73 over 3), xGMI's
 * (MI355X TP8: 4.45 - 0.80 over 7). */
static double per_rank_gib(link l)
{
    return l == LINK_PCIE ? 0.13 / 3 : l == LINK_XGMI ? 3.65 / 7 : 2.15 / 7;
}

/* The preset a GPU is, by name, or B_NONE. Names are upper case: most
 * differ at their first letter (a sweep looks a row up per plan). */
static board board_of(const kvplan_gpu *gpu)
{
    char c = gpu->name[0];
    c = c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
    for (size_t i = 0; i < NUM_PRESETS; i++)
        if (presets[i].gpu.name[0] == c &&
            same_name(presets[i].gpu.name, gpu->name))
            return (board)i;
    return B_NONE;
}

/* In one pass over the rows: the first for this board (or its vendor),
 * rank count and rules, else (*one) its single-GPU row of any build. */
static const struct base *find_base(board k, bool hip, int ranks,
                                    uint64_t rules, const struct base **one)
{
    *one = NULL;
    for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++) {
        const struct base *b = &bases[i];
        if (b->hip != hip || (b->board != B_NONE && b->board != k))
            continue;
        if (b->ranks == ranks && (b->rule == 0 || (rules & b->rule)))
            return b;
        if (*one == NULL && b->ranks == 1 && b->rule == 0)
            *one = b;
    }
    return NULL;
}

void kvplan__context_overhead(const kvplan_gpu *gpu, double ranks, double nodes,
                              uint64_t rules, double *bytes,
                              kvplan_source *source, const char **basis)
{
    int n = ranks >= 1 && ranks <= 1 << 20 ? (int)ranks : 1;
    if (nodes > 1) {
        /* each node's GPUs share its NVLink (or PCIe) communicators and
         * custom all-reduce buffers; across nodes NCCL goes over the
         * network, whose buffers no public log has measured: the ranks of
         * one node, labelled so (a 2-node TP16 launch had been priced as
         * 16 ranks on one NVLink, 2.5 GiB more a GPU) */
        int per_node = (int)((n + nodes - 1) / nodes);
        kvplan__context_overhead(gpu, per_node, 1, rules, bytes, source, basis);
        *source = KVPLAN_SOURCE_ESTIMATED;
        *basis = "estimated: the ranks of one node (tp x pp / --nnodes) on "
                 "its interconnect; the network between nodes measured by "
                 "no row";
        return;
    }
    board k = board_of(gpu);
    const struct base *one, *b = find_base(k, gpu->is_hip, n, rules, &one);
    if (b != NULL) {
        *bytes = b->gib * GIB;
        *source = b->basis[0] == 'm' /* "measured: ..." */
                      ? KVPLAN_SOURCE_MEASURED
                      : KVPLAN_SOURCE_ESTIMATED;
        *basis = b->basis;
        return;
    }
    /* no row at this rank count: one GPU's (the older builds' single-GPU
     * row: the TP1 NCCL communicator is counted in the per-rank share),
     * plus each further rank's share on the board's interconnect */
    link l = k != B_NONE   ? presets[k].link
             : gpu->is_hip ? LINK_XGMI
                           : LINK_NVLINK;
    *bytes =
        ((one != NULL ? one->gib : 0.95) + (n - 1) * per_rank_gib(l)) * GIB;
    *source = KVPLAN_SOURCE_ESTIMATED;
    *basis = l == LINK_PCIE   ? "estimated: one GPU's context plus PCIe "
                                "NCCL buffers per further rank"
             : l == LINK_XGMI ? "estimated: one GPU's context plus xGMI "
                                "RCCL buffers per further rank"
                              : "estimated: one GPU's context plus NVLink "
                                "NCCL buffers per further rank";
}
