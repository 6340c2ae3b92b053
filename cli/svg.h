/*
 * svg.h: --svg FILE, the plan or a sweep as a picture (plain SVG, read in
 * any browser).
 */
#ifndef KVPLAN_SVG_H
#define KVPLAN_SVG_H

#include "flags.h"

/* One GPU's memory split and the requests at once against the context
 * length (forward plans at --context-length 256, 512, ... the model's),
 * the plan's own point marked. Returns 0, or -1 when the file cannot be
 * written. */
int cli_svg_plan(const char *path, const cli_args *cli,
                 const kvplan_model *model, const kvplan_plan *plan);

/* A sweep's rows as bars, best first (the first 40). */
typedef struct cli_svg_bar {
    char label[96];
    double value;
    bool fits;
} cli_svg_bar;

int cli_svg_bars(const char *path, const char *title, const char *figure,
                 const cli_svg_bar *bars, size_t n);

#endif /* KVPLAN_SVG_H */
