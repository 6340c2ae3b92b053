/*
 * calibration.c: what a log measured for one GPU and model, written as a
 * file (kvplan log --calibrate FILE): the library's calibration document
 * (kvplan__doc_calibration); kvplan --calibration reads it back
 * (kvplan_options_load). docs/log.md has the fields.
 */
#include "calibration.h"

#include "cli.h"
#include "json/doc.h"

#include <stdio.h>

int cli_calibration_write(const char *path, const char *source,
                          const kvplan_log_readings *r,
                          const kvplan_plan_options *o, bool gpu_inferred,
                          const char *model)
{
    json_t *doc = kvplan__doc_calibration(source, r, o, gpu_inferred, model);
    FILE *f = doc != NULL ? fopen(path, "w") : NULL;
    int rc = f != NULL && kvplan__json_write(doc, f) == 0 &&
                     fputc('\n', f) != EOF
                 ? 0
                 : -1;
    if (f != NULL && fclose(f) != 0)
        rc = -1;
    json_decref(doc);
    return rc;
}
