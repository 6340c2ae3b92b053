/*
 * calibration.c: what a log measured for one GPU and model, as a file
 * (kvplan log --calibrate FILE); the library reads it back for kvplan
 * --calibration FILE (kvplan_options_load). docs/log.md has the fields.
 */
#include "calibration.h"
#include "cli.h"
#include "jsonout.h"

#include <stdio.h>
#include <string.h>

#define GIB 1073741824.0

int cli_calibration_write(const char *path, const char *source,
                          const kvplan_log_readings *r,
                          const kvplan_plan_options *o, bool gpu_inferred,
                          const char *model)
{
    double before = r->free_before_gib.value;
    double weights = kvplan_log_weights_gib(r).value; /* checked set */
    json_t *doc = json_pack(
        "{s:i, s:o, s:o, s:o, s:b, s:f, s:I, s:I, s:f, s:I, s:I}",
        "kvplan_calibration", 1, "source", cli_json_text(source), "model",
        cli_json_text(model), "gpu", cli_json_text(o->gpu.name),
        "gpu_inferred", gpu_inferred, "gpu_mem_mib", o->gpu.total_mib,
        "tp_size", (json_int_t)o->server.tp_size, "pp_size",
        (json_int_t)o->server.pp_size, "free_before_gib", before,
        /* what the GPU held before the weights: context, communicators */
        "context_bytes",
        (json_int_t)(o->gpu.total_mib * 1048576.0 - before * GIB),
        "rank_weight_bytes", (json_int_t)(weights * GIB));
    FILE *f = doc != NULL ? fopen(path, "w") : NULL;
    int rc = f != NULL && cli_json_write(doc, f) == 0 && fputc('\n', f) != EOF
                 ? 0
                 : -1;
    if (f != NULL && fclose(f) != 0)
        rc = -1;
    json_decref(doc);
    return rc;
}
