/*
 * fake_nvml.c: a stand-in for NVIDIA's libnvidia-ml.so.1, so that
 * `kvplan --gpu auto` is tested without a GPU, on a driver that behaves
 * and on one that does not. FAKE_NVML picks the behaviour:
 *   h100      one H100 80GB (81559 MiB, compute capability 9.0), 469 MiB
 *             of it the driver's reserve (nvmlDeviceGetMemoryInfo_v2)
 *   two       two GPUs, the second smaller (sglang takes the least); an
 *             older driver whose _v2 memory call fails
 *   hugecc    a compute capability of INT_MAX.INT_MAX
 *   failcc    the compute capability call fails
 *   zero      no GPU
 *   initfail  nvmlInit fails
 *   memfail   the memory call fails
 *   busy      the H100 with another process (pid 4242) holding 40 GiB, as
 *             NVML lists it among the compute processes
 *   hidden    the same 40 GiB held, but no process NVML can name (another
 *             container's)
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct nvml_memory {
    unsigned long long total, free, used;
} nvml_memory;

typedef struct nvml_memory_v2 {
    unsigned int version;
    unsigned long long total, reserved, free, used;
} nvml_memory_v2;

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
int nvmlDeviceGetMemoryInfo_v2(void *dev, nvml_memory_v2 *mem);
int nvmlDeviceGetCudaComputeCapability(void *dev, int *major, int *minor);
int nvmlDeviceGetName(void *dev, char *name, unsigned int size);

typedef struct nvml_process {
    unsigned int pid;
    unsigned long long used;
    unsigned int gpu_instance, compute_instance;
} nvml_process;
int nvmlDeviceGetComputeRunningProcesses_v3(void *dev, unsigned int *n,
                                            nvml_process *p);

/* what another process holds in the busy modes, bytes */
static unsigned long long held(void)
{
    return is("busy") || is("hidden") ? 40960ull << 20 : 0;
}

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
    /* the old call counts the driver's reserve as used */
    mem->used = (dev == &devices[1] ? 0 : 469ull << 20) + held();
    mem->free = mem->total - mem->used;
    return 0;
}

/* as drivers answer: the reserve apart, the rest free */
int nvmlDeviceGetMemoryInfo_v2(void *dev, nvml_memory_v2 *mem)
{
    if (is("memfail") || is("two"))
        return 3; /* NVML_ERROR_NOT_SUPPORTED */
    if (mem->version != ((unsigned int)sizeof *mem | 2u << 24))
        return 25; /* NVML_ERROR_ARGUMENT_VERSION_MISMATCH */
    (void)dev;
    mem->total = 81559ull << 20;
    mem->reserved = 469ull << 20;
    mem->used = held();
    mem->free = mem->total - mem->reserved - mem->used;
    return 0;
}

int nvmlDeviceGetComputeRunningProcesses_v3(void *dev, unsigned int *n,
                                            nvml_process *p)
{
    (void)dev;
    if (!is("busy")) {
        *n = 0;
        return 0;
    }
    if (*n < 1) {
        *n = 1;
        return 7; /* NVML_ERROR_INSUFFICIENT_SIZE */
    }
    *n = 1;
    p[0] = (nvml_process){4242, held(), 0, 0};
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
    const char *n =
        dev == &devices[1] ? "NVIDIA A100-PCIE-40GB" : "NVIDIA H100 80GB HBM3";
    strncpy(name, n, size); /* unterminated when it does not fit */
    return 0;
}
