/*
 * nvml.c: --gpu auto: the local GPUs through NVIDIA's NVML, loaded at run
 * time, so that kvplan needs no CUDA to build and a static link of the
 * rest of the library pulls no dlopen in. Sections (§) are those of
 * docs/sglang-rules.md.
 */
#include "budget/budget.h"

#include <dlfcn.h>
#include <stdio.h>

/* NVML, loaded at run time: the few calls kvplan needs. */
typedef struct nvml_memory {
    unsigned long long total, free, used;
} nvml_memory;

/* nvmlMemory_v2_t: the driver's reserve apart (drivers of 2021 on) */
typedef struct nvml_memory_v2 {
    unsigned int version;
    unsigned long long total, reserved, free, used;
} nvml_memory_v2;

kvplan_status kvplan_gpu_probe(kvplan_gpu *out, int *count, kvplan_error *err)
{
    if (out == NULL || count == NULL)
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, NULL,
                            "kvplan_gpu_probe needs a GPU and a count to "
                            "fill; got NULL");
#ifdef __EMSCRIPTEN__
    void *lib = NULL; /* a browser has no driver to load */
#else
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
#endif
    if (lib == NULL)
        return kvplan__fail(err, KVPLAN_UNSUPPORTED, "--gpu",
                            "--gpu auto: no NVIDIA driver here "
                            "(libnvidia-ml.so.1 cannot be loaded); name a "
                            "preset with --gpu NAME or give --gpu-memory");
    typedef int (*init_fn)(void);
    typedef int (*count_fn)(unsigned int *);
    typedef int (*handle_fn)(unsigned int, void **);
    typedef int (*mem_fn)(void *, nvml_memory *);
    typedef int (*mem2_fn)(void *, nvml_memory_v2 *);
    typedef int (*cc_fn)(void *, int *, int *);
    typedef int (*name_fn)(void *, char *, unsigned int);
    /* POSIX allows the cast from dlsym's object pointer */
    init_fn init = (init_fn)(uintptr_t)dlsym(lib, "nvmlInit_v2");
    init_fn shutdown = (init_fn)(uintptr_t)dlsym(lib, "nvmlShutdown");
    count_fn get_count =
        (count_fn)(uintptr_t)dlsym(lib, "nvmlDeviceGetCount_v2");
    handle_fn get_handle =
        (handle_fn)(uintptr_t)dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
    mem_fn get_mem = (mem_fn)(uintptr_t)dlsym(lib, "nvmlDeviceGetMemoryInfo");
    /* optional: without it the reserve is unknown (0) */
    mem2_fn get_mem2 =
        (mem2_fn)(uintptr_t)dlsym(lib, "nvmlDeviceGetMemoryInfo_v2");
    cc_fn get_cc =
        (cc_fn)(uintptr_t)dlsym(lib, "nvmlDeviceGetCudaComputeCapability");
    name_fn get_name = (name_fn)(uintptr_t)dlsym(lib, "nvmlDeviceGetName");
    kvplan_status st = KVPLAN_OK;
    unsigned int n = 0;
    if (!init || !shutdown || !get_count || !get_handle || !get_mem ||
        !get_cc || !get_name) {
        st = kvplan__fail(err, KVPLAN_UNSUPPORTED, "--gpu",
                          "--gpu auto: the NVIDIA driver's NVML lacks the "
                          "calls kvplan needs");
    } else if (init() != 0) {
        st = kvplan__fail(err, KVPLAN_UNSUPPORTED, "--gpu",
                          "--gpu auto: NVML could not start (is the NVIDIA "
                          "driver loaded?)");
    } else {
        if (get_count(&n) != 0 || n == 0) {
            st = kvplan__fail(err, KVPLAN_UNSUPPORTED, "--gpu",
                              "--gpu auto: NVML sees no GPU");
        }
        /* sglang takes the smallest total over every GPU (§4.1) */
        for (unsigned int i = 0; st == KVPLAN_OK && i < n; i++) {
            void *dev = NULL;
            nvml_memory mem;
            int major = 0, minor = 0;
            char name[96] = "";
            if (get_handle(i, &dev) != 0 || get_mem(dev, &mem) != 0) {
                st = kvplan__fail(err, KVPLAN_UNSUPPORTED, "--gpu",
                                  "--gpu auto: NVML cannot read GPU %u", i);
                break;
            }
            /* a driver that fails or answers nonsense: sm0, never an
             * overflow (major and minor are single CUDA digits) */
            if (get_cc(dev, &major, &minor) != 0 || major < 0 || major > 99 ||
                minor < 0 || minor > 9)
                major = minor = 0;
            get_name(dev, name, sizeof name);
            double mib = (double)(mem.total >> 20);
            nvml_memory_v2 m2 = {(unsigned int)sizeof m2 | 2u << 24, 0, 0, 0,
                                 0};
            double reserved = 0;
            if (get_mem2 != NULL && get_mem2(dev, &m2) == 0 &&
                m2.total == mem.total && m2.reserved < m2.total)
                reserved = (double)m2.reserved / 1048576.0;
            if (i == 0 || mib < out->total_mib) {
                snprintf(out->name, sizeof out->name, "%.63s", name);
                out->total_mib = mib;
                out->compute_capability = major * 10 + minor;
                out->is_hip = false;
                snprintf(out->arch, sizeof out->arch, "sm%d%d", major, minor);
                out->reserved_mib = reserved;
            }
        }
        shutdown();
    }
    dlclose(lib);
    if (st != KVPLAN_OK)
        return st;
    *count = (int)n;
    return kvplan__ok(err);
}
