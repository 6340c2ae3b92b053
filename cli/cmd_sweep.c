/*
 * cmd_sweep.c: kvplan sweep: the options a sweep varies given as comma
 * lists (--gpu, --tp-size, --pp-size, --kv-cache-dtype, --page-size,
 * --context-length, --mem-fraction-static, --speculative-algorithm),
 * every other flag held; the library plans the rows (kvplan_sweep) and
 * ranks them (kvplan_sweep_rank); this file reads the lists from argv and
 * writes the rows as a text table, --json (each row with its flags and
 * the document `kvplan FLAGS --json` prints) or --csv, and --svg's bars.
 */
/* mmap's MAP_POPULATE (Linux) beside the POSIX the build asks for */
#define _DEFAULT_SOURCE
#include "cli.h"
#include "plan/plan.h"
#include "flags.h"
#include "json/doc.h"
#include "json/text.h"
#include "report.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The options a sweep varies, outermost first, and their columns. */
static const struct dim_name {
    const char *flag, *head;
} dim_names[] = {{"--gpu", "gpu"},
                 {"--tp-size", "tp"},
                 {"--pp-size", "pp"},
                 {"--kv-cache-dtype", "kv"},
                 {"--page-size", "page"},
                 {"--context-length", "ctx"},
                 {"--mem-fraction-static", "frac"},
                 {"--speculative-algorithm", "spec"}};
#define NDIMS (sizeof dim_names / sizeof dim_names[0])
_Static_assert(NDIMS == KVPLAN_MAX_SWEEP_AXES, "one axis per option");

typedef struct dim {
    size_t n;
    const char *values[KVPLAN_MAX_SWEEP_VALUES]; /* pointers into `text` */
    char *text;
} dim;

/* What the command line gives: the lists, the held flags (argv[0]
 * first), the sweep's own. */
typedef struct sweep_args {
    dim d[NDIMS];
    char **held;
    int nheld;
    char **own; /* --json, --svg FILE, --rank-by KEY, --help */
    int nown;
    bool csv;
} sweep_args;

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

/* The sweep's own flags, kept out of a row's: "--json", ... (and the one
 * after those that take a value). */
static int own_flag(const char *arg)
{
    static const char *const alone[] = {"--json", "--help", "-h"};
    static const char *const valued[] = {"--svg", "--rank-by"};
    for (size_t i = 0; i < 3; i++)
        if (strcmp(arg, alone[i]) == 0)
            return 1;
    for (size_t i = 0; i < 2; i++) {
        size_t n = strlen(valued[i]);
        if (strncmp(arg, valued[i], n) == 0)
            return arg[n] == '=' ? 1 : arg[n] == '\0' ? 2 : 0;
    }
    return 0;
}

/* Splits argv[2..] into the lists, the held flags and the sweep's own;
 * returns 0 or the exit status of a usage error. */
static int split_args(int argc, char **argv, sweep_args *a, bool json)
{
    a->held[a->nheld++] = argv[0];
    a->own[a->nown++] = argv[0];
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--csv") == 0) {
            a->csv = true;
            continue;
        }
        int own = own_flag(arg);
        if (own > 0) {
            a->own[a->nown++] = argv[i];
            if (own == 2 && i + 1 < argc)
                a->own[a->nown++] = argv[++i];
            continue;
        }
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        const kvplan_option *o =
            arg[0] == '-' ? kvplan_option_find_n(arg, len) : NULL;
        size_t k = NDIMS;
        for (size_t j = 0; o != NULL && j < NDIMS; j++)
            if (strcmp(o->flag, dim_names[j].flag) == 0)
                k = j;
        if (k == NDIMS) {
            a->held[a->nheld++] = argv[i];
            continue;
        }
        const char *flag = dim_names[k].flag;
        if (!eq && i + 1 >= argc)
            return usage(json, flag, "%s needs a value", flag);
        const char *v = eq ? eq + 1 : argv[++i];
        dim *d = &a->d[k];
        free(d->text);
        d->text = strdup(v);
        d->n = 0;
        if (d->text == NULL)
            return CLI_EXIT_INTERNAL;
        for (char *p = d->text, *save = NULL, *tok;
             (tok = strtok_r(p, ",", &save)) != NULL; p = NULL) {
            if (d->n == KVPLAN_MAX_SWEEP_VALUES)
                return usage(json, flag, "%s: at most %d values", flag,
                             KVPLAN_MAX_SWEEP_VALUES);
            d->values[d->n++] = tok;
        }
        if (d->n == 0)
            return usage(json, flag, "%s: expected a value or a comma list",
                         flag);
    }
    return 0;
}

/* The row's command line: argv[0], its swept flags, the held ones. */
static int row_args(const sweep_args *a, const kvplan_sweep_row *r, char **out)
{
    int n = 0;
    out[n++] = a->held[0];
    for (size_t k = 0, axis = 0; k < NDIMS; k++) {
        if (a->d[k].n == 0)
            continue;
        const char *v = a->d[k].values[r->pick[axis++]];
        if (k + 1 == NDIMS && strcmp(v, "none") == 0)
            continue; /* speculative_algorithm left out */
        out[n++] = (char *)dim_names[k].flag;
        out[n++] = (char *)v;
    }
    for (int i = 1; i < a->nheld; i++)
        out[n++] = a->held[i];
    return n;
}

/* The rows' memory: ~1 KB a row, up to 100,000 rows, every byte of which
 * the sweep writes. Mapped populated where the system can (Linux's
 * MAP_POPULATE: the pages made in one call), not faulted in one 4 KiB page
 * at a time: 23,000 faults were a fifth of a 98,304-row sweep's time.
 * (Huge pages on request were faster still when free, but their
 * compaction stalled some runs by 0.1-0.2 s.) */
static kvplan_sweep_row *rows_alloc(size_t n, size_t *mapped)
{
    *mapped = 0;
#if defined(MAP_POPULATE) && defined(MAP_ANONYMOUS)
    size_t size = n * sizeof(kvplan_sweep_row);
    if (size >= ((size_t)1 << 20)) {
        void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (p != MAP_FAILED) {
            *mapped = size;
            return p; /* zeroed, as calloc's */
        }
    }
#endif
    return calloc(n, sizeof(kvplan_sweep_row));
}

static void rows_free(kvplan_sweep_row *rows, size_t mapped)
{
    if (mapped > 0)
        munmap(rows, mapped);
    else
        free(rows);
}

/* ---- output -------------------------------------------------------------- */

/* A row's value of dimension k (of its `axis`-th list): the GPU as the
 * row resolved it, else the value given. */
static const char *text_value(const sweep_args *a, const kvplan_sweep_row *r,
                              size_t k, size_t axis)
{
    if (k == 0)
        return r->gpu[0] ? r->gpu : "-";
    return a->d[k].values[r->pick[axis]];
}

static int write_text(const sweep_args *a, const kvplan_sweep_row *rows,
                      const size_t *order, size_t n,
                      kvplan_sglang_profile profile)
{
    FILE *out = stdout;
    fprintf(out, "%-4s", "rank");
    for (size_t k = 0; k < NDIMS; k++)
        if (a->d[k].n > 0)
            fprintf(out, " %-12s", dim_names[k].head);
    fprintf(out, " %12s %9s %9s %8s %10s %s\n", "tokens", "requests", "at ctx",
            "per GPU", "longest", "binds");
    for (size_t i = 0; i < n; i++) {
        const kvplan_sweep_row *r = &rows[order[i]];
        fprintf(out, "%-4zu", i + 1);
        for (size_t k = 0, axis = 0; k < NDIMS; k++)
            if (a->d[k].n > 0)
                fprintf(out, " %-12.12s", text_value(a, r, k, axis++));
        if (r->status == KVPLAN_OK)
            fprintf(
                out, " %12lld %9lld %9lld %8.3g %10lld %s%s\n",
                (long long)r->max_total_num_tokens,
                (long long)r->max_running_requests,
                (long long)r->fleet.concurrency_at_context_len,
                r->fleet.concurrency_per_gpu,
                (long long)r->longest_request_tokens, kvplan__row_binding(r),
                r->fits ? "" : " (does not fit: no request of context_len)");
        else
            fprintf(out, " does not plan: %s: %.160s\n",
                    kvplan_status_name(r->status), r->error.message);
    }
    /* what each limit that binds a row is, and what moves it; whose rules */
    bool said[KVPLAN_LIMIT_REQ_TO_TOKEN + 1] = {false};
    for (size_t i = 0; i < n; i++) {
        const kvplan_sweep_row *r = &rows[order[i]];
        unsigned b = (unsigned)r->binding;
        if (r->status != KVPLAN_OK || b > KVPLAN_LIMIT_REQ_TO_TOKEN || said[b])
            continue;
        said[b] = true;
        fprintf(out, "binds %s: %s\n", kvplan__row_binding(r),
                kvplan__limit_remedy(r->binding));
    }
    fprintf(out, "sglang: %s's rules\n", kvplan_sglang_profile_name(profile));
    return ferror(out) ? CLI_EXIT_INTERNAL : CLI_EXIT_OK;
}

/* The CSV is written a line at a time through the json room's text
 * buffer (fprintf's parsing of a format was most of a row's cost). */
static void put_str(kvplan__text *t, const char *s)
{
    kvplan__text_put(t, s, strlen(s));
}

static void put_double(kvplan__text *t, double v)
{
    char tmp[32];
    kvplan__text_put(t, tmp, kvplan_format_double(v, tmp, sizeof tmp));
}

/* A CSV field: quoted when it holds a comma, a quote or a newline. */
static void csv_field(kvplan__text *t, const char *v, bool last)
{
    if (strpbrk(v, ",\"\n") == NULL) {
        put_str(t, v);
    } else {
        kvplan__text_put1(t, '"');
        for (const char *p = v; *p; p++) {
            if (*p == '"')
                kvplan__text_put1(t, '"'); /* doubled */
            kvplan__text_put1(t, *p);
        }
        kvplan__text_put1(t, '"');
    }
    kvplan__text_put1(t, last ? '\n' : ',');
}

static int write_csv(const sweep_args *a, const kvplan_sweep_row *rows,
                     const size_t *order, size_t n)
{
    FILE *out = stdout;
    for (size_t k = 0; k < NDIMS; k++)
        if (a->d[k].n > 0)
            fprintf(out, "%s,", dim_names[k].flag + 2);
    fputs("rank,fits,max_total_num_tokens,max_running_requests,context_len,"
          "longest_request,concurrency,gpus,concurrency_per_gpu,binding,"
          "mem_fraction_static,page_size,kv_cache_dtype,error\n",
          out);
    kvplan__text l = {0};
    int rc = CLI_EXIT_OK;
    for (size_t i = 0; rc == CLI_EXIT_OK && i < n; i++) {
        const kvplan_sweep_row *r = &rows[order[i]];
#ifdef __GNUC__
        /* the rows come in rank order, scattered over ~1 KB each: the
         * lines a row's figures are on, asked for a few rows ahead */
        if (i + 8 < n) {
            const kvplan_sweep_row *ahead = &rows[order[i + 8]];
            __builtin_prefetch(ahead->pick);
            __builtin_prefetch(&ahead->fits);
            __builtin_prefetch(&ahead->max_total_num_tokens);
            __builtin_prefetch(&ahead->fleet);
        }
#endif
        l.len = 0;
        for (size_t k = 0, axis = 0; k < NDIMS; k++)
            if (a->d[k].n > 0)
                csv_field(&l, text_value(a, r, k, axis++), false);
        kvplan__text_integer(&l, (int64_t)i + 1);
        if (r->status != KVPLAN_OK) {
            put_str(&l, ",false,,,,,,,,,,,,");
            csv_field(&l, r->error.message, true);
        } else {
            const int64_t ints[] = {r->max_total_num_tokens,
                                    r->max_running_requests,
                                    r->context_len,
                                    r->longest_request_tokens,
                                    r->fleet.concurrency_at_context_len,
                                    r->fleet.gpus};
            put_str(&l, r->fits ? ",true" : ",false");
            for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) {
                kvplan__text_put1(&l, ',');
                kvplan__text_integer(&l, ints[k]);
            }
            kvplan__text_put1(&l, ',');
            put_double(&l, r->fleet.concurrency_per_gpu);
            kvplan__text_put1(&l, ',');
            put_str(&l, kvplan__row_binding(r));
            kvplan__text_put1(&l, ',');
            put_double(&l, r->mem_fraction_static);
            kvplan__text_put1(&l, ',');
            kvplan__text_integer(&l, r->page_size);
            kvplan__text_put1(&l, ',');
            put_str(&l, r->kv_cache_dtype_name);
            put_str(&l, ",\n");
        }
        if (l.bad || fwrite(l.text, 1, l.len, out) != l.len)
            rc = CLI_EXIT_INTERNAL;
    }
    free(l.text);
    if (rc != CLI_EXIT_OK)
        return rc;
    return ferror(out) ? CLI_EXIT_INTERNAL : CLI_EXIT_OK;
}

/* --svg: the rows as bars of the --rank-by figure. */
static int draw(const char *path, const sweep_args *a,
                const kvplan_sweep_row *rows, const size_t *order, size_t n,
                kvplan_sweep_key key)
{
    size_t shown = n < 40 ? n : 40;
    kvplan__svg_bar *bars = calloc(shown ? shown : 1, sizeof *bars);
    if (bars == NULL)
        return CLI_EXIT_INTERNAL;
    for (size_t i = 0; i < shown; i++) {
        const kvplan_sweep_row *r = &rows[order[i]];
        char *label = bars[i].label;
        size_t size = sizeof bars[i].label, len = 0;
        for (size_t k = 0, axis = 0; k < NDIMS && len < size; k++)
            if (a->d[k].n > 0) {
                const char *v = text_value(a, r, k, axis++);
                if (k == 0)
                    len += (size_t)snprintf(label + len, size - len, "%s%s",
                                            len ? " " : "", v);
                else
                    len += (size_t)snprintf(label + len, size - len, "%s%s %s",
                                            len ? " " : "",
                                            dim_names[k].flag + 2, v);
            }
        bars[i].fits = r->fits;
        bars[i].value = kvplan_sweep_figure(r, key);
    }
    char title[120];
    snprintf(title, sizeof title, "kvplan sweep: %zu rows, by %s", n,
             kvplan_sweep_key_name(key));
    FILE *f = fopen(path, "w");
    int bad = f == NULL ||
              kvplan__svg_bars(f, title, kvplan_sweep_key_name(key), bars, n);
    if (f != NULL && fclose(f) != 0)
        bad = 1;
    int rc = bad ? CLI_EXIT_INTERNAL : CLI_EXIT_OK;
    if (rc != CLI_EXIT_OK)
        fprintf(stderr, "kvplan sweep: --svg: cannot write %s\n", path);
    free(bars);
    return rc;
}

/* The rows as --json: streamed, a row at a time (json.dumps's "[a, b]"). */
static int write_json(const sweep_args *a, const cli_args *base, cli_args *cli,
                      const kvplan_model *model, kvplan_plan *plan,
                      const kvplan_sweep_axis *axes, size_t naxes,
                      const kvplan_sweep_row *rows, const size_t *order,
                      size_t n, char **args)
{
    FILE *out = stdout;
    int rc = fputc('[', out) == EOF ? CLI_EXIT_INTERNAL : CLI_EXIT_OK;
    for (size_t i = 0; rc == CLI_EXIT_OK && i < n; i++) {
        const kvplan_sweep_row *r = &rows[order[i]];
        int nargs = row_args(a, r, args);
        *cli = *base; /* the row's own flags, over the command's */
        bool planned = kvplan__sweep_row_plan(model, &base->o, axes, naxes, r,
                                              &cli->o, plan);
        kvplan__doc d = cli_doc(cli, model);
        kvplan__writer w = {0};
        kvplan__doc_sweep_row(&w, axes, naxes, r, i + 1,
                              (const char *const *)args + 1, (size_t)nargs - 1,
                              &d, planned ? plan : NULL);
        if ((i > 0 && fputs(", ", out) == EOF) ||
            kvplan__w_print(&w, out, false) != 0)
            rc = CLI_EXIT_INTERNAL;
    }
    if (rc == CLI_EXIT_OK && fputs("]\n", out) == EOF)
        rc = CLI_EXIT_INTERNAL;
    return rc;
}

int cli_cmd_sweep(int argc, char **argv)
{
    bool json = cli_wants_json(argc, argv);
    sweep_args a = {.nheld = 0};
    char **args = malloc(((size_t)argc + 2 * NDIMS + 1) * sizeof *args);
    a.held = malloc(((size_t)argc + 1) * sizeof *a.held);
    a.own = malloc(((size_t)argc + 1) * sizeof *a.own);
    cli_args *base = malloc(sizeof *base), *cli = malloc(sizeof *cli);
    kvplan_plan *work = malloc(2 * sizeof *work);
    kvplan_model *model = NULL, *draft = NULL;
    kvplan_sweep_row *rows = NULL;
    size_t *order = NULL, n = 1, naxes = 0, rows_mapped = 0;
    kvplan_sweep_axis axes[NDIMS];
    int rc = CLI_EXIT_OK;
    kvplan_error err;
    if (args == NULL || a.held == NULL || a.own == NULL || base == NULL ||
        cli == NULL || work == NULL) {
        rc = CLI_EXIT_INTERNAL;
        goto done;
    }
    if ((rc = split_args(argc, argv, &a, json)) != 0)
        goto done;
    for (size_t k = 0; k < NDIMS; k++)
        if (a.d[k].n > 0) {
            axes[naxes++] =
                (kvplan_sweep_axis){dim_names[k].flag, a.d[k].values, a.d[k].n};
            n *= a.d[k].n;
            if (n > KVPLAN_MAX_SWEEP_ROWS) {
                rc = usage(json, dim_names[k].flag,
                           "%s: the lists make more than 100000 rows",
                           dim_names[k].flag);
                goto done;
            }
        }
    rows = rows_alloc(n, &rows_mapped);
    order = malloc(n * sizeof *order);
    if (rows == NULL || order == NULL) {
        rc = CLI_EXIT_INTERNAL;
        goto done;
    }
    /* the held flags, the sweep's own, and the first row's values for the
     * lists: parsed and loaded once */
    int nargs = row_args(&a, &rows[0], args);
    for (int i = 1; i < a.nown; i++)
        args[nargs++] = a.own[i];
    if (cli_parse(nargs, args, 1, "sweep", base, &err) != KVPLAN_OK) {
        rc = cli_error("kvplan sweep", &err, CLI_EXIT_USAGE, json);
        goto done;
    }
    if (base->help) {
        rc = sweep_help(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_INTERNAL;
        goto done;
    }
    if (json && a.csv) {
        rc = usage(json, "--csv", "--csv: pick one of --json and --csv");
        goto done;
    }
    if (cli_load(base, &model, &draft, &err) != KVPLAN_OK) {
        rc = cli_error("kvplan sweep", &err, cli_exit_for(err.code), json);
        goto done;
    }
    if (kvplan_sweep(model, &base->o, axes, naxes, rows, n, work, &err) !=
        KVPLAN_OK) {
        /* a value no row can take: a usage error, not a row */
        rc = cli_error("kvplan sweep", &err, CLI_EXIT_USAGE, json);
        goto done;
    }
    kvplan_sweep_rank(rows, n, base->o.rank_by, order);
    if (a.csv)
        rc = write_csv(&a, rows, order, n);
    else if (json)
        rc = write_json(&a, base, cli, model, work, axes, naxes, rows, order, n,
                        args);
    else
        rc = write_text(&a, rows, order, n, base->o.plan.sglang_version);
    if (rc == CLI_EXIT_OK && base->svg_path != NULL)
        rc = draw(base->svg_path, &a, rows, order, n, base->o.rank_by);
    if (rc == CLI_EXIT_OK && n > 0 && !rows[order[0]].fits)
        rc = CLI_EXIT_DOES_NOT_FIT; /* not one row fits */
done:
    if (fflush(stdout) != 0)
        rc = CLI_EXIT_INTERNAL;
    for (size_t k = 0; k < NDIMS; k++)
        free(a.d[k].text);
    kvplan_model_free(model);
    kvplan_model_free(draft);
    rows_free(rows, rows_mapped);
    free(order);
    free(work);
    free(base);
    free(cli);
    free(a.held);
    free(a.own);
    free(args);
    return rc;
}
