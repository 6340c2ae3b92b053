/*
 * nvml.c: --gpu auto: the local GPUs through NVIDIA's NVML, loaded at run
 * time, so that kvplan needs no CUDA to build and a static link of the
 * rest of the library pulls no dlopen in. Sections (§) are those of
 * docs/sglang-rules.md.
 */
#include "budget/budget.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

/* NVML, loaded at run time: the few calls kvplan needs. */
typedef struct nvml_memory {
    unsigned long long total, free, used;
} nvml_memory;

/* nvmlMemory_v2_t: the driver's reserve apart (drivers of 2021 on) */
typedef struct nvml_memory_v2 {
    unsigned int version;
    unsigned long long total, reserved, free, used;
} nvml_memory_v2;

/* nvmlProcessInfo_v2_t, as _v2 and _v3 of the process calls fill it */
typedef struct nvml_process {
    unsigned int pid;
    unsigned long long used; /* ULLONG_MAX: not available */
    unsigned int gpu_instance, compute_instance;
} nvml_process;

/* CUDA_VISIBLE_DEVICES as NVML indices: `visible[0..*n)`, or *n = -1 when
 * it is unset (every GPU). Indices only: a UUID or a MIG name is refused,
 * naming the variable, as not read. */
static kvplan_status visible_devices(unsigned int seen, unsigned int *visible,
                                     int *n, kvplan_error *err)
{
    const char *v = getenv("CUDA_VISIBLE_DEVICES");
    *n = -1;
    if (v == NULL)
        return KVPLAN_OK;
    *n = 0;
    for (const char *c = v; *c != '\0';) {
        char *end = NULL;
        long i = strtol(c, &end, 10);
        /* CUDA stops at the first entry that is not a GPU it sees */
        if (end == c || (*end != ',' && *end != '\0'))
            return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT,
                                "CUDA_VISIBLE_DEVICES",
                                "--gpu auto reads CUDA_VISIBLE_DEVICES as GPU "
                                "indices; '%.40s' is not a list of them (give "
                                "indices, or name the GPU with --gpu)",
                                v);
        if (i < 0 || (unsigned long)i >= seen)
            break;
        if (*n < 64)
            visible[(*n)++] = (unsigned int)i;
        c = *end == ',' ? end + 1 : end;
    }
    if (*n == 0)
        return kvplan__fail(err, KVPLAN_INVALID_ARGUMENT,
                            "CUDA_VISIBLE_DEVICES",
                            "--gpu auto: CUDA_VISIBLE_DEVICES='%.40s' leaves "
                            "no GPU visible (NVML sees %u)",
                            v, seen);
    return KVPLAN_OK;
}

/* What other processes hold on `dev`, MiB, and who: the compute processes
 * NVML lists (their ids into `who`), else the device's used memory (less
 * the driver's reserve where NVML gives it apart). */
typedef int (*procs_fn)(void *, unsigned int *, nvml_process *);
static double held(void *dev, procs_fn procs, double used_mib, char *who,
                   size_t size)
{
    nvml_process p[16];
    unsigned int n = 16;
    double sum = 0;
    size_t at = 0;
    bool known = procs != NULL && procs(dev, &n, p) == 0 && n <= 16;
    for (unsigned int i = 0; known && i < n; i++) {
        if (p[i].used == ~0ull) { /* not available (no permission) */
            known = false;
            break;
        }
        double mib = (double)p[i].used / 1048576.0;
        sum += mib;
        if (at < size)
            at += (size_t)snprintf(who + at, size - at, "%spid %u %.2f GiB",
                                   at > 0 ? ", " : "", p[i].pid, mib / 1024);
    }
    if (known && sum + 64 >= used_mib)
        return sum;
    /* processes NVML does not show (another container's) hold the rest */
    if (!known)
        at = 0;
    if (at < size)
        snprintf(who + at, size - at,
                 "%s%.2f GiB by processes NVML does not "
                 "name",
                 at > 0 ? ", " : "", (used_mib - (known ? sum : 0)) / 1024);
    return used_mib;
}

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
    /* optional: without them, the device's used memory says who holds */
    procs_fn get_procs = (procs_fn)(uintptr_t)dlsym(
        lib, "nvmlDeviceGetComputeRunningProcesses_v3");
    if (get_procs == NULL)
        get_procs = (procs_fn)(uintptr_t)dlsym(
            lib, "nvmlDeviceGetComputeRunningProcesses_v2");
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
        unsigned int visible[64];
        int nv = -1;
        if (st == KVPLAN_OK)
            st = visible_devices(n, visible, &nv, err);
        /* sglang takes the smallest total over every GPU it sees (§4.1),
         * and its budget the least free over its ranks */
        double least_free = 0;
        for (unsigned int k = 0;
             st == KVPLAN_OK && k < (nv < 0 ? n : (unsigned)nv); k++) {
            unsigned int i = nv < 0 ? k : visible[k];
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
            /* used less the driver's reserve; without _v2 a used figure
             * under 1 GiB is taken for the reserve alone (an idle card) */
            double used = (double)(mem.used >> 20);
            if (get_mem2 != NULL && get_mem2(dev, &m2) == 0 &&
                m2.total == mem.total && m2.reserved < m2.total) {
                reserved = (double)m2.reserved / 1048576.0;
                used = (double)(m2.used >> 20);
            } else if (used < 1024) {
                used = 0;
            }
            char who[sizeof out->in_use_by] = "";
            double in_use =
                used > 0 ? held(dev, get_procs, used, who, sizeof who) : 0;
            if (k == 0 || mib - in_use < least_free) {
                least_free = mib - in_use;
                snprintf(out->in_use_by, sizeof out->in_use_by, "%s", who);
            }
            if (k == 0 || mib < out->total_mib) {
                snprintf(out->name, sizeof out->name, "%.63s", name);
                out->total_mib = mib;
                out->compute_capability = major * 10 + minor;
                out->is_hip = false;
                snprintf(out->arch, sizeof out->arch, "sm%d%d", major, minor);
                out->reserved_mib = reserved;
            }
        }
        /* what keeps the least free below the smallest total */
        out->in_use_mib = st == KVPLAN_OK && out->total_mib > least_free
                              ? out->total_mib - least_free
                              : 0;
        if (out->in_use_mib == 0)
            out->in_use_by[0] = '\0';
        if (nv >= 0)
            n = (unsigned int)nv;
        shutdown();
    }
    dlclose(lib);
    if (st != KVPLAN_OK)
        return st;
    *count = (int)n;
    return kvplan__ok(err);
}
