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

/* memory.total in MiB as nvidia-smi (rocm-smi for AMD) reports it. H100
 * and H200 are docs/sglang-rules.md §4.1's figures; the others are the
 * totals these boards report, rounded as the tools print them. AMD boards
 * have no CUDA compute capability: 0. The driver's reserve where it was
 * measured (H200: NVML's reserved, 644939776 bytes on driver 580, which
 * torch.cuda.mem_get_info's total leaves out). Then the board's
 * interconnect, and
 * its single-rank context overhead where one was measured (0: the
 * vendor's) with what it rests on. */
static const struct preset {
    kvplan_gpu gpu;
    link link;
    double context_gib;
    const char *basis;
} presets[] = {
    {{"H100-80GB", 81559, 90, false, "sm90", 0, 0, ""},
     LINK_NVLINK,
     0.95,
     "measured: H100 at TP1, 1.06 GiB (tests/logs 01, 05) and 0.84 GiB "
     "(07, 09); their mean"},
    {{"H100-NVL", 95830, 90, false, "sm90", 0, 0, ""}, LINK_NVLINK, 0, NULL},
    {{"H200", 143771, 90, false, "sm90", 615.0625, 0, ""},
     LINK_NVLINK,
     0,
     NULL},
    {{"H20", 97871, 90, false, "sm90", 0, 0, ""}, LINK_NVLINK, 0, NULL},
    {{"B200", 183359, 100, false, "sm100", 0, 0, ""}, LINK_NVLINK, 0, NULL},
    {{"GB200", 189471, 100, false, "sm100", 0, 0, ""}, LINK_NVLINK, 0, NULL},
    {{"A100-80GB", 81920, 80, false, "sm80", 0, 0, ""}, LINK_NVLINK, 0, NULL},
    {{"A100-40GB", 40960, 80, false, "sm80", 0, 0, ""}, LINK_NVLINK, 0, NULL},
    {{"L40S", 46068, 89, false, "sm89", 0, 0, ""}, LINK_PCIE, 0, NULL},
    {{"L4", 23034, 89, false, "sm89", 0, 0, ""},
     LINK_PCIE,
     0.73,
     "measured: 4x L4 at TP4 less PCIe's per-rank share (tests/logs/18)"},
    {{"A10G", 23028, 86, false, "sm86", 0, 0, ""}, LINK_PCIE, 0, NULL},
    {{"RTX-4090", 24564, 89, false, "sm89", 0, 0, ""}, LINK_PCIE, 0, NULL},
    {{"RTX-5090", 32607, 120, false, "sm120", 0, 0, ""}, LINK_PCIE, 0, NULL},
    {{"MI300X", 196592, 0, true, "gfx942", 0, 0, ""}, LINK_XGMI, 0, NULL},
    {{"MI325X", 262128, 0, true, "gfx942", 0, 0, ""}, LINK_XGMI, 0, NULL},
    {{"MI355X", 294896, 0, true, "gfx950", 0, 0, ""},
     LINK_XGMI,
     0.80,
     "measured: MI355X at TP1 (docs/budget.md)"},
};

#define NUM_PRESETS (sizeof presets / sizeof presets[0])

const kvplan_gpu *kvplan__gpu_default(void)
{
    return &presets[0].gpu; /* KVPLAN_DEFAULT_GPU, tested */
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
 * or ROCm context, NCCL/RCCL and the custom all-reduce buffers. Public
 * measurements first (tests/logs and docs/budget.md give the sources);
 * between them, a GPU's single-rank figure plus what each further rank
 * adds on its interconnect. */

#define GIB 1073741824.0

/* A measured figure: this preset at this world size (tp * pp). */
static const struct {
    const char *gpu;
    int ranks;
    double gib;
    const char *basis;
} measured[] = {
    {"L4", 4, 0.86, "measured: QwQ-32B at TP4 on 4x L4 (tests/logs/18)"},
    {"MI355X", 8, 4.45,
     "measured: Kimi-K2.5 at TP8 on 8x MI355X (tests/logs/14)"},
    {"H200", 8, 3.10, "measured: sglang at TP8 on 8x H200 (docs/budget.md)"},
};

/* GiB each rank beyond the first adds: NVLink's NCCL buffers (H200 TP8:
 * 3.10 - 0.95 over 7 ranks), PCIe's (L4 TP4: 0.86 - 0.73 over 3), xGMI's
 * (MI355X TP8: 4.45 - 0.80 over 7). */
static double per_rank_gib(link l)
{
    return l == LINK_PCIE ? 0.13 / 3 : l == LINK_XGMI ? 3.65 / 7 : 2.15 / 7;
}

void kvplan__context_overhead(const kvplan_gpu *gpu, double ranks,
                              uint64_t rules, double *bytes,
                              kvplan_source *source, const char **basis)
{
    /* recent builds on one NVIDIA GPU (KVPLAN_RULE_CONTEXT_TP1_NCCL) */
    if ((rules & KVPLAN_RULE_CONTEXT_TP1_NCCL) && !gpu->is_hip && ranks <= 1) {
        bool rtx5090 = same_name("RTX-5090", gpu->name);
        *bytes = (rtx5090 ? 1.16 : 1.17) * GIB;
        *source = KVPLAN_SOURCE_MEASURED;
        *basis = rtx5090 ? "measured: sglang 0.5.17-0.5.19 on one idle RTX "
                           "5090, 1.16 GiB before loading (issue 26's survey)"
                         : "measured: sglang 0.5.17-0.5.19 on one idle H100, "
                           "1.17-1.18 GiB before loading (issue 26's survey)";
        return;
    }
    char first = gpu->name[0] >= 'a' && gpu->name[0] <= 'z'
                     ? (char)(gpu->name[0] - 'a' + 'A')
                     : gpu->name[0];
    for (size_t i = 0; i < sizeof measured / sizeof measured[0]; i++) {
        /* the names are upper case: most differ at once */
        if ((double)measured[i].ranks == ranks && measured[i].gpu[0] == first &&
            same_name(measured[i].gpu, gpu->name)) {
            *bytes = measured[i].gib * GIB;
            *source = KVPLAN_SOURCE_MEASURED;
            *basis = measured[i].basis;
            return;
        }
    }
    /* without a figure of its own: NVIDIA's is H100's, AMD's MI355X's */
    double one = gpu->is_hip ? 0.80 : 0.95;
    link l = gpu->is_hip ? LINK_XGMI : LINK_NVLINK;
    const char *own = NULL;
    for (size_t i = 0; i < NUM_PRESETS; i++) {
        /* the presets' names are upper case: most differ at once */
        if (presets[i].gpu.name[0] == first &&
            same_name(presets[i].gpu.name, gpu->name)) {
            if (presets[i].context_gib > 0) {
                one = presets[i].context_gib;
                own = presets[i].basis;
            }
            l = presets[i].link;
            break;
        }
    }
    double extra = ranks > 1 ? (ranks - 1) * per_rank_gib(l) : 0;
    *bytes = (one + extra) * GIB;
    *source = own != NULL && ranks <= 1 ? KVPLAN_SOURCE_MEASURED
                                        : KVPLAN_SOURCE_ESTIMATED;
    if (ranks > 1)
        *basis = l == LINK_PCIE   ? "estimated: one GPU's context plus PCIe "
                                    "NCCL buffers per further rank"
                 : l == LINK_XGMI ? "estimated: one GPU's context plus xGMI "
                                    "RCCL buffers per further rank"
                                  : "estimated: one GPU's context plus NVLink "
                                    "NCCL buffers per further rank";
    else if (own != NULL)
        *basis = own;
    else
        *basis = gpu->is_hip ? "estimated: AMD's single-GPU context "
                               "(MI355X's, docs/budget.md)"
                             : "estimated: NVIDIA's single-GPU context "
                               "(H100's, docs/budget.md)";
}
