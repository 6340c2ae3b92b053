/*
 * calibration.h: a log's measurements as a file (kvplan log --calibrate);
 * kvplan --calibration reads it (kvplan_options_load).
 */
#ifndef KVPLAN_CALIBRATION_H
#define KVPLAN_CALIBRATION_H

#include "json/doc.h"
#include "kvplan.h"

#include <stdbool.h>
#include <stdint.h>

/* Writes FILE from a log's readings and the options it was planned with
 * (the GPU: its total less the free memory before loading is the context).
 * Returns 0, or -1 when it cannot be written. */
int cli_calibration_write(const char *path, const char *source,
                          const kvplan_log_readings *r,
                          const kvplan_plan_options *o, bool gpu_inferred,
                          const char *model);

/* Writes a built calibration document `w` (freed) to FILE. Returns 0, or
 * -1 when it cannot be written. */
int cli_calibration_save(const char *path, kvplan__writer *w);

#endif /* KVPLAN_CALIBRATION_H */
