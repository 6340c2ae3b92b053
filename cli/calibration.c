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

int cli_calibration_save(const char *path, kvplan__writer *w)
{
    if (kvplan__w_status(w, NULL) != KVPLAN_OK) {
        kvplan__w_free(w);
        return -1;
    }
    FILE *f = fopen(path, "w");
    int rc = f != NULL && kvplan__w_print(w, f, true) == 0 ? 0 : -1;
    if (f == NULL)
        kvplan__w_free(w);
    if (f != NULL && fclose(f) != 0)
        rc = -1;
    return rc;
}

int cli_calibration_write(const char *path, const char *source,
                          const kvplan_log_readings *r,
                          const kvplan_plan_options *o, bool gpu_inferred,
                          const char *model)
{
    kvplan__writer w = {0};
    kvplan__doc_calibration(&w, NULL, source, r, o, gpu_inferred, model);
    return cli_calibration_save(path, &w);
}
