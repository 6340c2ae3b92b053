/*
 * log.h: the log room's internals; not installed.
 *
 * parse.c reads an sglang start-up log into kvplan_log_readings (no
 * allocation, nothing defaulted); reconcile.c turns the readings into plan
 * options, rebuilds the bytes sglang handed the configurator from the
 * printed free figures, and names the causes of each difference. The log
 * room sits above the plan: it plans through the public API.
 */
#ifndef KVPLAN_LOG_H
#define KVPLAN_LOG_H

#include "common/internal.h"

/* Distinct TPn prefixes counted (a log's ranks beyond are still read). */
#define KVPLAN__LOG_MAX_RANKS 4096

#endif /* KVPLAN_LOG_H */
