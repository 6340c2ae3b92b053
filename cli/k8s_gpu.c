/*
 * k8s_gpu.c: the GPU a Kubernetes node label names (k8s.h): the clouds'
 * instance types, and GPU names as GPU Feature Discovery, GKE and AMD's
 * labeller write them, each to one of kvplan's presets.
 */
#include "k8s.h"

#include <string.h>
#include <strings.h>

/* ---- the GPU a node label names -------------------------------------------
 * Instance types (AWS EC2 accelerated computing, GCP A2/A3/A4/G2, Azure
 * ND/NC series documentation): the GPU each holds. */
static const struct {
    const char *prefix, *gpu;
} instances[] = {
    {"p5e.", "H200"},
    {"p5en.", "H200"},
    {"p5.", "H100-80GB"},
    {"p4de.", "A100-80GB"},
    {"p4d.", "A100-40GB"},
    {"p6-b200.", "B200"},
    {"g6e.", "L40S"},
    {"g6.", "L4"},
    {"g5.", "A10G"},
    {"a4-highgpu", "B200"},
    {"a3-ultragpu", "H200"},
    {"a3-megagpu", "H100-80GB"},
    {"a3-highgpu", "H100-80GB"},
    {"a2-ultragpu", "A100-80GB"},
    {"a2-highgpu", "A100-40GB"},
    {"a2-megagpu", "A100-40GB"},
    {"g2-standard", "L4"},
    {"Standard_ND96isr_H200", "H200"},
    {"Standard_ND96isr_H100", "H100-80GB"},
    {"Standard_ND96amsr_A100", "A100-80GB"},
    {"Standard_ND96asr_v4", "A100-40GB"},
    {"Standard_NC40ads_H100", "H100-NVL"},
    {"Standard_NC80adis_H100", "H100-NVL"},
};

/* GPU names as GPU Feature Discovery writes CUDA's device name
 * ("NVIDIA-H100-80GB-HBM3"), GKE its accelerators ("nvidia-h100-80gb",
 * "nvidia-tesla-a100") and AMD's labeller its products: the first word
 * found, in this order (H200 before H20, L40S before L4). */
static const struct {
    const char *word, *gpu;
} names[] = {
    {"H100-NVL", "H100-NVL"},
    {"H100", "H100-80GB"},
    {"H200", "H200"},
    {"H20", "H20"},
    {"GB200", "GB200"},
    {"B200", "B200"},
    {"GB10", "GB10"},
    {"L40S", "L40S"},
    {"L4", "L4"},
    {"A10G", "A10G"},
    {"RTX-4090", "RTX-4090"},
    {"RTX-5090", "RTX-5090"},
    {"RTX-5080", "RTX-5080"},
    {"MI300X", "MI300X"},
    {"MI325X", "MI325X"},
    {"MI355X", "MI355X"},
};

/* strstr without case (strcasestr is not POSIX). */
static const char *find_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return hay;
    return NULL;
}

static bool has_word(const char *hay, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = hay; (p = find_nocase(p, word)) != NULL; p++) {
        char after = p[n];
        bool end = after == '\0' || after == '-' || after == '_' ||
                   after == '.' || after == ' ';
        bool start = p == hay || p[-1] == '-' || p[-1] == '_' || p[-1] == ' ';
        if (start && end)
            return true;
    }
    return false;
}

const char *cli_k8s_gpu_of(const char *value)
{
    for (size_t i = 0; i < sizeof instances / sizeof instances[0]; i++)
        if (strncmp(value, instances[i].prefix, strlen(instances[i].prefix)) ==
            0)
            return instances[i].gpu;
    if (find_nocase(value, "A100") != NULL)
        return find_nocase(value, "80GB") ? "A100-80GB" : "A100-40GB";
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (has_word(value, names[i].word))
            return names[i].gpu;
    return NULL;
}

/* The label keys that name a GPU: GFD's product, GKE's accelerator, the
 * clouds' instance types, Karpenter's GPU name, AMD's product. */
bool cli_k8s_gpu_key(const char *key)
{
    return strstr(key, "gpu.product") != NULL ||
           strstr(key, "gke-accelerator") != NULL ||
           strstr(key, "instance-type") != NULL ||
           strstr(key, "instance-gpu-name") != NULL ||
           strcmp(key, "accelerator") == 0;
}

bool cli_k8s_is_mig(const char *value)
{
    return find_nocase(value, "MIG") != NULL;
}
