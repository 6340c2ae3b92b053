/*
 * fuzz_manifest.c: a Kubernetes manifest, hostile, through kvplan check's
 * reader (cli/k8s.c): every document, workload and container, the shell
 * wrapper's script and the $(VAR) expansion; each launch's words are
 * whole strings.
 */
#include "k8s.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cli_k8s k;
    kvplan_error err;
    if (cli_k8s_read((const char *)data, size, &k, &err) != KVPLAN_OK)
        return 0;
    for (size_t i = 0; i < k.n; i++) { /* the words are strings */
        const cli_k8s_launch *l = &k.launches[i];
        size_t total = 0;
        for (int w = 0; w < l->argc; w++)
            total += strlen(l->argv[w]);
        if (total > size + 1024 * (size_t)l->argc + 65536)
            abort(); /* more text than the manifest and its variables */
        cli_k8s_gpu_of(l->gpu_from);
    }
    cli_k8s_free(&k);
    return 0;
}
