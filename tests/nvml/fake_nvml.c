/*
 * fake_nvml.c: a stand-in for NVIDIA's libnvidia-ml.so.1, so that
 * `kvplan --gpu auto` is tested without a GPU, on a driver that behaves
 * and on one that does not. FAKE_NVML picks the behaviour:
 *   h100      one H100 80GB (81559 MiB, compute capability 9.0)
 *   two       two GPUs, the second smaller (sglang takes the least)
 *   hugecc    a compute capability of INT_MAX.INT_MAX
 *   failcc    the compute capability call fails
 *   zero      no GPU
 *   initfail  nvmlInit fails
 *   memfail   the memory call fails
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct nvml_memory {
    unsigned long long total, free, used;
} nvml_memory;

static const char *mode(void)
{
    const char *m = getenv("FAKE_NVML");
    return m ? m : "h100";
}

static int is(const char *m)
{
    return strcmp(mode(), m) == 0;
}

int nvmlInit_v2(void);
int nvmlShutdown(void);
int nvmlDeviceGetCount_v2(unsigned int *n);
int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **dev);
int nvmlDeviceGetMemoryInfo(void *dev, nvml_memory *mem);
int nvmlDeviceGetCudaComputeCapability(void *dev, int *major, int *minor);
int nvmlDeviceGetName(void *dev, char *name, unsigned int size);

static int devices[2];

int nvmlInit_v2(void)
{
    return is("initfail") ? 1 : 0;
}

int nvmlShutdown(void)
{
    return 0;
}

int nvmlDeviceGetCount_v2(unsigned int *n)
{
    *n = is("zero") ? 0 : is("two") ? 2 : 1;
    return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **dev)
{
    *dev = &devices[i % 2];
    return 0;
}

int nvmlDeviceGetMemoryInfo(void *dev, nvml_memory *mem)
{
    if (is("memfail"))
        return 999;
    unsigned long long mib = dev == &devices[1] ? 40960 : 81559;
    mem->total = mib << 20;
    mem->free = mem->total;
    mem->used = 0;
    return 0;
}

int nvmlDeviceGetCudaComputeCapability(void *dev, int *major, int *minor)
{
    (void)dev;
    if (is("failcc"))
        return 3;
    *major = is("hugecc") ? INT_MAX : 9;
    *minor = is("hugecc") ? INT_MAX : 0;
    return 0;
}

int nvmlDeviceGetName(void *dev, char *name, unsigned int size)
{
    const char *n = dev == &devices[1] ? "NVIDIA A100-PCIE-40GB"
                                       : "NVIDIA H100 80GB HBM3";
    strncpy(name, n, size); /* unterminated when it does not fit */
    return 0;
}
