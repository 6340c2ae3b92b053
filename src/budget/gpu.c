/*
 * gpu.c: the GPU presets kvplan ships: memory.total as the vendor's tool
 * reports it, the compute capability sglang's defaults read, and the
 * architecture's name (sm90, gfx942).
 */
#include "budget/budget.h"

#include <stdio.h>

/* memory.total in MiB as nvidia-smi (rocm-smi for AMD) reports it. H100
 * and H200 are docs/sglang-rules.md §4.1's figures; the others are the
 * totals these boards report, rounded as the tools print them. AMD boards
 * have no CUDA compute capability: 0. */
static const kvplan_gpu presets[] = {
    {"H100-80GB", 81559, 90, false, "sm90"},
    {"H100-NVL", 95830, 90, false, "sm90"},
    {"H200", 143771, 90, false, "sm90"},
    {"H20", 97871, 90, false, "sm90"},
    {"B200", 183359, 100, false, "sm100"},
    {"GB200", 189471, 100, false, "sm100"},
    {"A100-80GB", 81920, 80, false, "sm80"},
    {"A100-40GB", 40960, 80, false, "sm80"},
    {"L40S", 46068, 89, false, "sm89"},
    {"L4", 23034, 89, false, "sm89"},
    {"A10G", 23028, 86, false, "sm86"},
    {"RTX-4090", 24564, 89, false, "sm89"},
    {"RTX-5090", 32607, 120, false, "sm120"},
    {"MI300X", 196592, 0, true, "gfx942"},
    {"MI325X", 262128, 0, true, "gfx942"},
    {"MI355X", 294896, 0, true, "gfx950"},
};

const kvplan_gpu *kvplan__gpu_default(void)
{
    return &presets[0]; /* KVPLAN_DEFAULT_GPU, tested */
}

bool kvplan_gpu_preset_at(size_t index, kvplan_gpu *out)
{
    if (index >= sizeof presets / sizeof presets[0] || out == NULL)
        return false;
    *out = presets[index];
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
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
        if (same_name(presets[i].name, name)) {
            *out = presets[i];
            return true;
        }
    }
    return false;
}
