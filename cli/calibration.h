/*
 * calibration.h: a log's measurements as a file (kvplan log --calibrate),
 * and a plan that uses them (kvplan --calibration).
 */
#ifndef KVPLAN_CALIBRATION_H
#define KVPLAN_CALIBRATION_H

#include "kvplan.h"

#include <stdbool.h>
#include <stdint.h>

/* What a calibration was measured on. */
typedef struct cli_calibration {
    char gpu[64];
    int64_t tp_size, pp_size;
} cli_calibration;

/* Writes FILE from a log's readings and the options it was planned with
 * (the GPU: its total less the free memory before loading is the context).
 * Returns 0, or -1 when it cannot be written. */
int cli_calibration_write(const char *path, const char *source,
                          const kvplan_log_readings *r,
                          const kvplan_plan_options *o, bool gpu_inferred,
                          const char *model);

/* Reads FILE into o->context_bytes and o->rank_weight_bytes. KVPLAN_IO or
 * KVPLAN_PARSE naming --calibration. */
kvplan_status cli_calibration_read(const char *path, kvplan_plan_options *o,
                                   cli_calibration *cal, kvplan_error *err);

/* Warns on standard error when the plan's GPU or ranks are not the
 * calibration's. */
void cli_calibration_check(const cli_calibration *cal, const char *path,
                           const kvplan_plan_options *o);

#endif /* KVPLAN_CALIBRATION_H */
