/*
 * calibration.c: what a log measured for one GPU and model (kvplan log
 * --calibrate FILE), and planning with it (kvplan --calibration FILE).
 * docs/log.md has the file's fields.
 */
#include "calibration.h"
#include "cli.h"
#include "jsonout.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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

/* A whole-number field of the file, or unset. */
static kvplan_status count(const json_t *doc, const char *key,
                           const char *path, kvplan_opt_int *out,
                           kvplan_error *err)
{
    const json_t *v = json_object_get(doc, key);
    if (v == NULL)
        return KVPLAN_OK;
    if (!json_is_integer(v) || json_integer_value(v) < 0) {
        err->code = KVPLAN_PARSE;
        snprintf(err->field, sizeof err->field, "--calibration");
        snprintf(err->message, sizeof err->message,
                 "%.200s: \"%s\" must be a non-negative whole number of "
                 "bytes",
                 path, key);
        return KVPLAN_PARSE;
    }
    *out = (kvplan_opt_int){json_integer_value(v), true};
    return KVPLAN_OK;
}

kvplan_status cli_calibration_read(const char *path, kvplan_plan_options *o,
                                   cli_calibration *cal, kvplan_error *err)
{
    memset(cal, 0, sizeof *cal);
    struct stat sb;
    err->line = err->column = 0;
    snprintf(err->field, sizeof err->field, "--calibration");
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) ||
        sb.st_size > (1 << 20)) {
        err->code = KVPLAN_IO;
        snprintf(err->message, sizeof err->message,
                 "%.200s: not a readable calibration file (a regular file "
                 "of at most 1 MiB, written by kvplan log --calibrate)",
                 path);
        return KVPLAN_IO;
    }
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    if (!json_is_object(doc) ||
        json_integer_value(json_object_get(doc, "kvplan_calibration")) != 1) {
        json_decref(doc);
        err->code = KVPLAN_PARSE;
        snprintf(err->message, sizeof err->message,
                 "%.200s: not a kvplan calibration (expected a JSON object "
                 "with \"kvplan_calibration\": 1)",
                 path);
        return KVPLAN_PARSE;
    }
    kvplan_status st = count(doc, "context_bytes", path, &o->context_bytes, err);
    if (st == KVPLAN_OK)
        st = count(doc, "rank_weight_bytes", path, &o->rank_weight_bytes, err);
    snprintf(cal->gpu, sizeof cal->gpu, "%s",
             json_string_value(json_object_get(doc, "gpu")) != NULL
                 ? json_string_value(json_object_get(doc, "gpu"))
                 : "");
    cal->tp_size = json_integer_value(json_object_get(doc, "tp_size"));
    cal->pp_size = json_integer_value(json_object_get(doc, "pp_size"));
    json_decref(doc);
    return st;
}

void cli_calibration_check(const cli_calibration *cal, const char *path,
                           const kvplan_plan_options *o)
{
    if (cal->gpu[0] != '\0' && o->gpu_set && strcmp(cal->gpu, o->gpu.name) != 0)
        fprintf(cli_err(),
                "kvplan: warning: %s was measured on %s, this plan is for "
                "%s: its figures may not hold\n",
                path, cal->gpu, o->gpu.name);
    if ((cal->tp_size > 0 && cal->tp_size != o->server.tp_size) ||
        (cal->pp_size > 0 && cal->pp_size != o->server.pp_size))
        fprintf(cli_err(),
                "kvplan: warning: %s was measured at tp %lld, pp %lld; this "
                "plan is at tp %lld, pp %lld: one rank's context and weights "
                "differ there\n",
                path, (long long)cal->tp_size, (long long)cal->pp_size,
                (long long)o->server.tp_size, (long long)o->server.pp_size);
}
