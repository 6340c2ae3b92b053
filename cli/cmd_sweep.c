/*
 * cmd_sweep.c: kvplan sweep: one plan per combination of the comma lists
 * given to --gpu, --tp-size, --pp-size, --kv-cache-dtype, --page-size,
 * --context-length, --mem-fraction-static and --speculative-algorithm,
 * every other flag held; the rows ranked by --rank-by, as a text table,
 * --json (each row with its flags and its plan, the document `kvplan
 * FLAGS --json` prints) or --csv.
 *
 * Each row is parsed from its own argument list by the same parser as a
 * single plan, so a row and the single plan for its flags cannot differ;
 * the model, its draft and the measured weights are loaded once.
 */
#include "cli.h"
#include "explain.h"
#include "flags.h"
#include "jsonout.h"
#include "report.h"
#include "svg.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The flags a sweep takes as lists, outermost first. */
static const char *const dims[] = {
    "--gpu",          "--tp-size",
    "--pp-size",      "--kv-cache-dtype",
    "--page-size",    "--context-length",
    "--mem-fraction-static", "--speculative-algorithm"};
#define NDIMS (sizeof dims / sizeof dims[0])
#define MAX_VALUES 64
#define MAX_ROWS 100000

typedef struct dim {
    size_t n;
    char *values[MAX_VALUES]; /* pointers into `text` */
    char *text;
} dim;

typedef struct row {
    size_t pick[NDIMS]; /* the value of each swept dimension */
    kvplan_status st;
    kvplan_error err;
    int64_t tokens, requests, context_len, longest, concurrency, gpus;
    int64_t total_concurrency, page_size;
    double per_gpu, fraction;
    const char *binding;
    char gpu[64];
    char kv_dtype[24];
} row;

typedef enum rank_key {
    RANK_CONCURRENCY_PER_GPU,
    RANK_CONCURRENCY,
    RANK_TOKENS,
    RANK_TOKENS_PER_GPU,
    RANK_LONGEST_REQUEST,
    RANK_GPUS
} rank_key;

static const char *const rank_names[] = {
    "concurrency-per-gpu", "concurrency",     "tokens",
    "tokens-per-gpu",      "longest-request", "gpus"};

static rank_key g_rank; /* for the comparator */

static double key_of(const row *r)
{
    switch (g_rank) {
    case RANK_CONCURRENCY_PER_GPU: return r->per_gpu;
    case RANK_CONCURRENCY: return (double)r->total_concurrency;
    case RANK_TOKENS: return (double)r->tokens;
    case RANK_TOKENS_PER_GPU:
        return (double)r->tokens / (double)(r->gpus > 0 ? r->gpus : 1);
    case RANK_LONGEST_REQUEST: return (double)r->longest;
    case RANK_GPUS: return -(double)r->gpus; /* fewest first */
    }
    return 0;
}

/* A row fits when it plans and one request of context_len runs. */
static bool fits(const row *r)
{
    return r->st == KVPLAN_OK && r->concurrency > 0;
}

/* Rows that fit first, then those that plan, best first; ties keep the
 * product's order. */
static int cmp_rows(const void *a, const void *b)
{
    const row *x = *(const row *const *)a, *y = *(const row *const *)b;
    int fx = fits(x) * 2 + (x->st == KVPLAN_OK),
        fy = fits(y) * 2 + (y->st == KVPLAN_OK);
    if (fx != fy)
        return fx > fy ? -1 : 1;
    double kx = key_of(x), ky = key_of(y);
    if (kx != ky)
        return kx > ky ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int usage(bool json, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A usage error naming `field`; returns the exit status. */
static int usage(bool json, const char *field, const char *fmt, ...)
{
    kvplan_error e;
    char message[sizeof e.message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    cli_usage_error(&e, field, "%s", message);
    return cli_error("kvplan sweep", &e, CLI_EXIT_USAGE, json);
}

static int sweep_help(FILE *out)
{
    fputs("usage: kvplan sweep [plan flags, these as comma lists: --gpu, "
          "--tp-size,\n"
          "         --pp-size, --kv-cache-dtype, --page-size, "
          "--context-length,\n"
          "         --mem-fraction-static, --speculative-algorithm]\n"
          "         [--rank-by KEY] [--json | --csv]\n"
          "--speculative-algorithm takes none for a row without one.\n"
          "\n"
          "One plan per combination, every other flag held; rows that do "
          "not fit (no\nplan, or no request of context_len) are kept, "
          "marked and ranked last. KEY: "
          "concurrency-per-gpu (default: requests\nof context_len at once "
          "per GPU), concurrency, tokens, tokens-per-gpu,\n"
          "longest-request, gpus (fewest first). --json: an array of rows, "
          "each with\nits flags and its plan (the document `kvplan FLAGS "
          "--json` prints).\n",
          out);
    return ferror(out) ? -1 : 0;
}

/* Splits argv[1..] (the sweep's own valued flags already taken) into the
 * swept lists and the rest (argv[0] first). */
static int split_args(int argc, char **argv, dim *d, char **rest, bool *csv,
                      bool *help, bool json)
{
    int n = 0;
    rest[n++] = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        if (strcmp(arg, "--csv") == 0) {
            *csv = true;
            continue;
        }
        if (strcmp(arg, "--json") == 0)
            continue; /* the sweep's output, not a row's flag */
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            *help = true;
            continue;
        }
        const kvplan_option *opt =
            arg[0] == '-' ? kvplan_option_find_n(arg, len) : NULL;
        const char *name = opt != NULL ? opt->flag : NULL;
        size_t k = NDIMS;
        for (size_t j = 0; name != NULL && j < NDIMS; j++)
            if (strcmp(name, dims[j]) == 0)
                k = j;
        if (k == NDIMS) {
            rest[n++] = argv[i];
            continue;
        }
        if (!eq && i + 1 >= argc)
            return -usage(json, dims[k], "%s needs a value", dims[k]);
        const char *v = eq ? eq + 1 : argv[++i];
        free(d[k].text);
        d[k].text = strdup(v);
        d[k].n = 0;
        if (d[k].text == NULL)
            return -CLI_EXIT_INTERNAL;
        for (char *p = d[k].text, *save = NULL, *tok;
             (tok = strtok_r(p, ",", &save)) != NULL; p = NULL) {
            if (d[k].n == MAX_VALUES)
                return -usage(json, dims[k], "%s: at most 64 values", dims[k]);
            d[k].values[d[k].n++] = tok;
        }
        if (d[k].n == 0)
            return -usage(json, dims[k],
                          "%s: expected a value or a comma list", dims[k]);
    }
    return n;
}

/* "none" in the --speculative-algorithm list: the flag left out. */
static bool is_none(const dim *d, const row *r, size_t k)
{
    return strcmp(dims[k], "--speculative-algorithm") == 0 &&
           strcmp(d[k].values[r->pick[k]], "none") == 0;
}

/* The row's argument list: argv[0], the swept flags, then the rest. */
static int row_args(const dim *d, const row *r, char **rest, int nrest,
                    char **out)
{
    int n = 0;
    out[n++] = rest[0];
    for (size_t k = 0; k < NDIMS; k++)
        if (d[k].n > 0 && !is_none(d, r, k)) {
            out[n++] = (char *)dims[k];
            out[n++] = d[k].values[r->pick[k]];
        }
    for (int i = 1; i < nrest; i++)
        out[n++] = rest[i];
    return n;
}

/* The plan of the row before, for kvplan_plan_update. */
typedef struct previous {
    bool set;
    kvplan_plan_options options;
    kvplan_plan *plan;
} previous;

/* A row's options: its flags parsed as a single plan's, with what
 * cli_load settled and measured once. */
static kvplan_status row_options(const cli_args *base, cli_args *cli,
                                 char **args, int nargs, kvplan_error *err)
{
    CLI_TRY(cli_parse(nargs, args, 1, "sweep", cli, err));
    CLI_TRY(cli_resolve_gpu(cli, err));
    kvplan_plan_options *o = &cli->o.plan;
    cli->o.model_path = base->o.model_path;
    o->model_path = base->o.plan.model_path;
    o->server.speculative_draft_model =
        base->o.plan.server.speculative_draft_model;
    o->weight_bytes = base->o.plan.weight_bytes;
    o->draft_weight_bytes = base->o.plan.draft_weight_bytes;
    o->context_bytes = base->o.plan.context_bytes;
    o->rank_weight_bytes = base->o.plan.rank_weight_bytes;
    cli->loaded.weights_measured = base->loaded.weights_measured;
    cli->o.calibration = base->o.calibration;
    return KVPLAN_OK;
}

/* One row planned (reusing the row before's ranks where only the GPU and
 * the fraction change), its figures kept. */
static void plan_row(row *r, const cli_args *base, cli_args *cli,
                     const kvplan_model *model, kvplan_plan **plan,
                     previous *prev, char **args, int nargs)
{
    r->st = row_options(base, cli, args, nargs, &r->err);
    if (r->st != KVPLAN_OK)
        return;
    kvplan_plan_options *o = &cli->o.plan;
    r->st = kvplan_plan_update(model, o, prev->set ? &prev->options : NULL,
                               prev->set ? prev->plan : NULL, *plan, &r->err);
    snprintf(r->gpu, sizeof r->gpu, "%s",
             o->available_bytes.set ? "-"
             : o->gpu_set           ? o->gpu.name
                                    : "?");
    if (r->st != KVPLAN_OK)
        return;
    kvplan_plan *done = *plan;
    *plan = prev->plan; /* the next row's, and this one the previous */
    prev->plan = done;
    prev->options = *o;
    prev->set = true;
    const kvplan_plan *pl = done;
    const kvplan_capacity *c = &pl->capacity;
    r->tokens = pl->max_total_num_tokens;
    r->requests = pl->max_running_requests;
    r->context_len = pl->context_len;
    r->longest = c->longest_request_tokens;
    r->concurrency = c->max_concurrency_at_context_len;
    r->binding = cli_binding_name(c, c->binding, c->binding_pool);
    r->gpus = pl->fleet.gpus;
    r->total_concurrency = pl->fleet.concurrency_at_context_len;
    r->per_gpu = pl->fleet.concurrency_per_gpu;
    r->fraction = pl->budget.mem_fraction_static;
    r->page_size = pl->page_size;
    snprintf(r->kv_dtype, sizeof r->kv_dtype, "%s",
             cli_kv_dtype_name(cli, pl->stages[pl->binding_stage]
                                        .rank.runner.kv_cache_dtype));
}

/* A row's plan document, planned again (the rows keep figures only, so
 * that a large sweep's --json streams); NULL when out of memory. */
static json_t *row_plan_json(const cli_args *base, cli_args *cli,
                             const kvplan_model *model, kvplan_plan *plan,
                             char **args, int nargs)
{
    kvplan_error err;
    if (row_options(base, cli, args, nargs, &err) != KVPLAN_OK ||
        kvplan_plan_compute(model, &cli->o.plan, plan, &err) != KVPLAN_OK)
        return NULL;
    return cli_report_json(cli, model, plan);
}

/* ---- output -------------------------------------------------------------- */

static void text_value(const dim *d, const row *r, size_t k, char *buf,
                       size_t size)
{
    snprintf(buf, size, "%s", k == 0 ? r->gpu : d[k].values[r->pick[k]]);
}

static int write_text(const dim *d, row **rows, size_t n)
{
    static const char *const heads[] = {"gpu",  "tp",  "pp",   "kv",
                                        "page", "ctx", "frac", "spec"};
    fprintf(cli_out(), "%-4s", "rank");
    for (size_t k = 0; k < NDIMS; k++)
        if (d[k].n > 0)
            fprintf(cli_out(), " %-12s", heads[k]);
    fprintf(cli_out(), " %12s %9s %9s %8s %10s %s\n", "tokens", "requests", "at ctx",
           "per GPU", "longest", "binds");
    for (size_t i = 0; i < n; i++) {
        const row *r = rows[i];
        fprintf(cli_out(), "%-4zu", i + 1);
        for (size_t k = 0; k < NDIMS; k++)
            if (d[k].n > 0) {
                char v[64];
                text_value(d, r, k, v, sizeof v);
                fprintf(cli_out(), " %-12.12s", v);
            }
        if (r->st == KVPLAN_OK)
            fprintf(cli_out(), " %12lld %9lld %9lld %8.3g %10lld %s%s\n",
                   (long long)r->tokens, (long long)r->requests,
                   (long long)r->total_concurrency, r->per_gpu,
                   (long long)r->longest, r->binding,
                   fits(r) ? "" : " (does not fit: no request of context_len)");
        else
            fprintf(cli_out(), " does not plan: %s: %.160s\n",
                   kvplan_status_name(r->st), r->err.message);
    }
    return ferror(cli_out()) ? CLI_EXIT_INTERNAL : CLI_EXIT_OK;
}

/* A CSV field: quoted when it holds a comma, a quote or a newline. */
static void csv_field(const char *v, bool last)
{
    if (strpbrk(v, ",\"\n") == NULL) {
        fputs(v, cli_out());
    } else {
        fputc('"', cli_out());
        for (const char *p = v; *p; p++) {
            if (*p == '"')
                fputc('"', cli_out());
            fputc(*p, cli_out());
        }
        fputc('"', cli_out());
    }
    fputc(last ? '\n' : ',', cli_out());
}

static int write_csv(const dim *d, row **rows, size_t n)
{
    for (size_t k = 0; k < NDIMS; k++)
        if (d[k].n > 0)
            fprintf(cli_out(), "%s,", dims[k] + 2);
    fputs("rank,fits,max_total_num_tokens,max_running_requests,context_len,"
         "longest_request,concurrency,gpus,concurrency_per_gpu,binding,"
         "mem_fraction_static,page_size,kv_cache_dtype,error" "\n", cli_out());
    for (size_t i = 0; i < n; i++) {
        const row *r = rows[i];
        char v[64];
        for (size_t k = 0; k < NDIMS; k++)
            if (d[k].n > 0) {
                text_value(d, r, k, v, sizeof v);
                csv_field(v, false);
            }
        if (r->st != KVPLAN_OK) {
            fprintf(cli_out(), "%zu,false,,,,,,,,,,,,", i + 1);
            csv_field(r->err.message, true);
            continue;
        }
        char per[32], f[32];
        kvplan_format_double(r->per_gpu, per, sizeof per);
        kvplan_format_double(r->fraction, f, sizeof f);
        fprintf(cli_out(), "%zu,%s,%lld,%lld,%lld,%lld,%lld,%lld,%s,%s,%s,%lld,%s,\n",
               i + 1, fits(r) ? "true" : "false", (long long)r->tokens,
               (long long)r->requests,
               (long long)r->context_len, (long long)r->longest,
               (long long)r->total_concurrency, (long long)r->gpus, per,
               r->binding, f, (long long)r->page_size, r->kv_dtype);
    }
    return ferror(cli_out()) ? CLI_EXIT_INTERNAL : CLI_EXIT_OK;
}

static json_t *row_json(const dim *d, const row *r, size_t rank,
                        char **args, int nargs, json_t *plan)
{
    json_t *inputs = json_object(), *flags = json_array();
    for (size_t k = 0; inputs != NULL && k < NDIMS; k++)
        if (d[k].n > 0)
            json_object_set_new(inputs, dims[k] + 2,
                                json_string(d[k].values[r->pick[k]]));
    for (int i = 1; flags != NULL && i < nargs; i++)
        json_array_append_new(flags, cli_json_text(args[i]));
    json_t *o = json_pack("{s:I, s:o, s:o, s:b, s:b}", "rank",
                          (json_int_t)rank, "inputs", inputs, "flags", flags,
                          "plans", r->st == KVPLAN_OK, "fits", fits(r));
    if (o == NULL)
        return NULL;
    if (r->st != KVPLAN_OK) {
        json_object_set_new(
            o, "error",
            json_pack("{s:s, s:o, s:o}", "error", kvplan_status_name(r->st),
                      "field",
                      r->err.field[0] ? cli_json_text(r->err.field)
                                      : json_null(),
                      "message", cli_json_text(r->err.message)));
        return o;
    }
    json_object_set_new(o, "gpus", json_integer(r->gpus));
    json_object_set_new(o, "concurrency", json_integer(r->total_concurrency));
    json_object_set_new(o, "concurrency_per_gpu", json_real(r->per_gpu));
    json_object_set_new(o, "binding", json_string(r->binding));
    if (plan == NULL) {
        json_decref(o);
        return NULL;
    }
    json_object_set_new(o, "plan", plan);
    return o;
}

/* --svg: the rows as bars of the --rank-by figure. */
static int draw(const char *path, const dim *d, row **rows, size_t n)
{
    size_t shown = n < 40 ? n : 40;
    cli_svg_bar *bars = calloc(shown ? shown : 1, sizeof *bars);
    if (bars == NULL)
        return CLI_EXIT_INTERNAL;
    for (size_t i = 0; i < shown; i++) {
        const row *r = rows[i];
        size_t len = 0;
        for (size_t k = 0; k < NDIMS && len < sizeof bars[i].label; k++)
            if (d[k].n > 0) {
                char v[64];
                text_value(d, r, k, v, sizeof v);
                len += (size_t)snprintf(bars[i].label + len,
                                        sizeof bars[i].label - len, "%s%s%s",
                                        len ? " " : "",
                                        k == 0 ? "" : dims[k] + 2,
                                        k == 0 ? v : "");
                if (k != 0 && len < sizeof bars[i].label)
                    len += (size_t)snprintf(bars[i].label + len,
                                            sizeof bars[i].label - len, " %s",
                                            v);
            }
        bars[i].fits = fits(r);
        bars[i].value = g_rank == RANK_GPUS ? (double)r->gpus : key_of(r);
    }
    char title[120];
    snprintf(title, sizeof title, "kvplan sweep: %zu rows, by %s", n,
             rank_names[g_rank]);
    int rc = cli_svg_bars(path, title, rank_names[g_rank], bars, n) == 0
                 ? CLI_EXIT_OK
                 : CLI_EXIT_INTERNAL;
    if (rc != CLI_EXIT_OK)
        fprintf(cli_err(), "kvplan sweep: --svg: cannot write %s\n", path);
    free(bars);
    return rc;
}

int cli_cmd_sweep(int argc, char **argv)
{
    bool json = cli_wants_json(argc, argv), csv = false, help = false;
    const char *rank = NULL, *svg = NULL;
    dim d[NDIMS] = {{0}};
    char **rest = malloc(((size_t)argc + 1) * sizeof *rest);
    char **args = malloc(((size_t)argc + 2 * NDIMS + 1) * sizeof *args);
    cli_args *base = malloc(sizeof *base), *cli = malloc(sizeof *cli);
    kvplan_plan *plan = malloc(sizeof *plan);
    previous prev = {.plan = malloc(sizeof *plan)};
    kvplan_model *model = NULL, *draft = NULL;
    row *rows = NULL;
    row **order = NULL;
    size_t n = 1;
    int rc = CLI_EXIT_OK, nrest = 0;
    kvplan_error err;
    if (rest == NULL || args == NULL || base == NULL || cli == NULL ||
        plan == NULL || prev.plan == NULL) {
        rc = CLI_EXIT_INTERNAL;
        goto done;
    }
    /* --rank-by and --svg, then the lists (`args` holds what is between
     * until the rows need it) */
    cli_own_flag own[] = {{"--rank-by", NULL}, {"--svg", NULL}};
    int nown = cli_take_own(argc, argv, 2, own, 2, args, &err);
    if (nown < 0) {
        rc = cli_error("kvplan sweep", &err, CLI_EXIT_USAGE, json);
        goto done;
    }
    rank = own[0].value;
    svg = own[1].value;
    nrest = split_args(nown, args, d, rest, &csv, &help, json);
    if (nrest < 0) {
        rc = -nrest;
        goto done;
    }
    if (help) {
        rc = sweep_help(cli_out()) == 0 ? CLI_EXIT_OK : CLI_EXIT_INTERNAL;
        goto done;
    }
    g_rank = RANK_CONCURRENCY_PER_GPU;
    if (rank != NULL) {
        kvplan_sweep_key k;
        if (!kvplan_sweep_key_from_name(rank, &k)) {
            rc = usage(json, "--rank-by",
                       "--rank-by: expected concurrency-per-gpu, "
                       "concurrency, tokens, tokens-per-gpu, "
                       "longest-request or gpus, got '%.60s'",
                       rank);
            goto done;
        }
        g_rank = (rank_key)k;
    }
    if (json && csv) {
        rc = usage(json, "--csv", "--csv: pick one of --json and --csv");
        goto done;
    }
    for (size_t k = 0; k < NDIMS; k++)
        if (d[k].n > 0) {
            n *= d[k].n;
            if (n > MAX_ROWS) {
                rc = usage(json, dims[k],
                           "%s: the lists make more than 100000 rows",
                           dims[k]);
                goto done;
            }
        }
    rows = calloc(n, sizeof *rows);
    order = malloc(n * sizeof *order);
    if (rows == NULL || order == NULL) {
        rc = CLI_EXIT_INTERNAL;
        goto done;
    }
    /* the held flags, parsed and loaded once (the first row's values for
     * the lists) */
    int nargs = row_args(d, &rows[0], rest, nrest, args);
    if (cli_parse(nargs, args, 1, "sweep", base, &err) != KVPLAN_OK) {
        rc = cli_error("kvplan sweep", &err, CLI_EXIT_USAGE, json);
        goto done;
    }
    if (cli_load(base, &model, &draft, &err) != KVPLAN_OK) {
        rc = cli_error("kvplan sweep", &err, cli_exit_for(err.code), json);
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        size_t idx = i;
        for (size_t k = NDIMS; k-- > 0;)
            if (d[k].n > 0) {
                rows[i].pick[k] = idx % d[k].n;
                idx /= d[k].n;
            }
        nargs = row_args(d, &rows[i], rest, nrest, args);
        plan_row(&rows[i], base, cli, model, &plan, &prev, args, nargs);
        if (rows[i].st == KVPLAN_INVALID_ARGUMENT ||
            rows[i].st == KVPLAN_PARSE) {
            /* a value no row can take: a usage error, not a row */
            rc = cli_error("kvplan sweep", &rows[i].err, CLI_EXIT_USAGE,
                           json);
            goto done;
        }
        order[i] = &rows[i];
    }
    qsort(order, n, sizeof *order, cmp_rows);
    if (csv) {
        rc = write_csv(d, order, n);
    } else if (json) {
        /* streamed, a row at a time: json.dumps's "[a, b]" */
        rc = fputc('[', cli_out()) == EOF ? CLI_EXIT_INTERNAL : CLI_EXIT_OK;
        for (size_t i = 0; rc == CLI_EXIT_OK && i < n; i++) {
            nargs = row_args(d, order[i], rest, nrest, args);
            json_t *doc = order[i]->st == KVPLAN_OK
                              ? row_plan_json(base, cli, model, plan, args,
                                              nargs)
                              : NULL;
            json_t *o = order[i]->st != KVPLAN_OK || doc != NULL
                            ? row_json(d, order[i], i + 1, args, nargs, doc)
                            : NULL;
            if (o == NULL || (i > 0 && fputs(", ", cli_out()) == EOF) ||
                cli_json_write(o, cli_out()) != 0)
                rc = CLI_EXIT_INTERNAL;
            json_decref(o);
        }
        if (rc == CLI_EXIT_OK && fputs("]\n", cli_out()) == EOF)
            rc = CLI_EXIT_INTERNAL;
    } else {
        rc = write_text(d, order, n);
    }
    if (rc == CLI_EXIT_OK && svg != NULL)
        rc = draw(svg, d, order, n);
    if (rc == CLI_EXIT_OK && n > 0 && !fits(order[0]))
        rc = CLI_EXIT_DOES_NOT_FIT; /* not one row fits */
done:
    if (fflush(cli_out()) != 0)
        rc = CLI_EXIT_INTERNAL;
    for (size_t k = 0; k < NDIMS; k++)
        free(d[k].text);
    kvplan_model_free(model);
    kvplan_model_free(draft);
    free(rows);
    free(order);
    free(plan);
    free(prev.plan);
    free(base);
    free(cli);
    free(rest);
    free(args);
    return rc;
}
