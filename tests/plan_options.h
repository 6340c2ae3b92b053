/*
 * plan_options.h: the options the plan tests start from.
 */
#ifndef KVPLAN_TESTS_PLAN_OPTIONS_H
#define KVPLAN_TESTS_PLAN_OPTIONS_H

#include "check.h"
#include "kvplan.h"

/* kvplan_plan_options_init's defaults on the preset `gpu`. */
static inline kvplan_plan_options on_gpu(const char *gpu)
{
    kvplan_plan_options o;
    kvplan_plan_options_init(&o);
    CHECK(kvplan_gpu_preset(gpu, &o.gpu));
    o.gpu_set = true;
    return o;
}

#endif
