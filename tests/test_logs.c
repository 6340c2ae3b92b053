/*
 * test_logs.c: real sglang start-up logs (tests/logs, from public sources)
 * read by the library's log reader and replayed (docs/log.md,
 * docs/budget.md). For each log of tests/logs/cases.tsv:
 *
 * - its readings as printed (a table below, checked against the text by
 *   an independent regex when it was written);
 * - the budget: the log's GPU, TP and mem_fraction_static, no log figure:
 *   on the idle-GPU logs kvplan's max_total_num_tokens is within 1 % of
 *   the logged count; the others are reported. Prints the error per log;
 * - the reconciliation: the logged count inside kvplan's interval of the
 *   log's own free figures, or the cause the case names.
 *
 *   test_logs LOGS_DIR
 */
#include "calibration.h"
#include "check.h"
#include "kvplan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What each log prints (-1: no such line). */
static const struct printed {
    const char *log;
    double before, after, usage;
    long long max_total, kv_tokens;
    double k, v, kv; /* GiB */
    long long ranks;
    const char *date, *model_class;
    long long tp;
    double fraction;
} printed[] = {
    {"01-meta-llama-3-1-8b-instruct.log", 78.59, 63.5, -1, 442913, -1, -1, -1,
     -1, 1, "2024-10-28", "LlamaForCausalLM", 1, 0.88},
    {"05-llama-3-2-1b-instruct.log", 78.59, 75.68, -1, 2170757, -1, -1, -1, -1,
     1, "2024-11-02", "LlamaForCausalLM", 1, 0.88},
    {"07-gte-qwen2-7b-instruct.log", 78.81, 64.38, -1, 1028326, -1, 27.46,
     27.46, -1, 1, "2025-01-28", "Qwen2ForCausalLM", 1, 0.88},
    {"09-llama-3-2-11b-vision-instruct.log", 78.81, 58.63, -1, 299531, -1,
     22.85, 22.85, -1, 1, "2025-01-28", "MllamaForConditionalGeneration", 1,
     0.88},
    {"14-kimi-k2-5.log", 283.53, 209.96, 73.58, -1, 2454421, -1, -1, 160.63, 8,
     "2026-02-26", "KimiK25ForConditionalGeneration", 8, 0.8260405859375},
    {"18-qwq-32b.log", 21.63, 6.09, 15.54, 46611, 46611, 1.42, 1.42, -1, 1,
     "2025-03-08", "Qwen2ForCausalLM", 4, 0.85},
    {"20-qwen3-0-6b.log", 3.23, 2.03, 1.20, 15387, 15387, 0.82, 0.82, -1, 0,
     "2025-05-02", "Qwen3ForCausalLM", 1, 0.88},
    {"21-glm-5-fp8.log", 283.48, 193.90, 89.58, -1, 3262823, -1, -1, 186.77, 8,
     "2026-02-26", "GlmMoeDsaForCausalLM", 8, 0.908},
    {"22-glm-5-fp8-0-5-9.log", 279.48, 190.28, 89.20, -1, 3199575, -1, -1,
     183.15, 8, "2026-02-26", "GlmMoeDsaForCausalLM", 8, 0.908},
    {"23-qwen3-30b-a3b-fp8.log", 78.48, 49.33, 29.15, -1, 392920, 17.99, 17.99,
     -1, 0, "2026-08-27", "Qwen3MoeForCausalLM", 1, 0.83},
    /* the cut server_args form ("server_args ... tp_size=4 ...") */
    {"24-qwen3-14b.log", -1, 16.00, 7.08, 298447, 298447, 5.69, 5.69, -1, 0, "",
     "Qwen3ForCausalLM", 4, 0.8},
    {"25-qwen3-0-6b.log", -1, 13.91, 1.25, 104273, 104273, 5.57, 5.57, -1, 0,
     "2025-08-08", "Qwen3ForCausalLM", -1, -1},
};

static void check_double_or_unset(kvplan_opt_double got, double want,
                                  const char *log, const char *what)
{
    if (want < 0 ? got.set : !got.set || got.value != want)
        CHECK_FAIL_("%s: %s read as %s%g, printed %g", log, what,
                    got.set ? "" : "unset ", got.value, want);
    else
        check_passed_++;
}

static void check_int_or_unset(kvplan_opt_int got, long long want,
                               const char *log, const char *what)
{
    if (want < 0 ? got.set : !got.set || got.value != want)
        CHECK_FAIL_("%s: %s read as %s%lld, printed %lld", log, what,
                    got.set ? "" : "unset ", (long long)got.value, want);
    else
        check_passed_++;
}

/* The whole log, read and checked against the table. */
static bool read_log(const char *dir, const char *log, kvplan_log_readings *r)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, log);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (f == NULL)
        return false;
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text, f);
    fclose(f);
    kvplan_error err;
    CHECK_INT(kvplan_log_parse(text, n, r, &err), KVPLAN_OK);
    for (size_t i = 0; i < sizeof printed / sizeof printed[0]; i++) {
        const struct printed *w = &printed[i];
        if (strcmp(w->log, log) != 0)
            continue;
        check_double_or_unset(r->free_before_gib, w->before, log,
                              "free before");
        check_double_or_unset(r->free_after_gib, w->after, log, "free after");
        check_double_or_unset(r->weights_gib, w->usage, log, "mem usage");
        check_int_or_unset(r->max_total_num_tokens, w->max_total, log,
                           "max_total_num_tokens");
        check_int_or_unset(r->kv_tokens, w->kv_tokens, log, "#tokens");
        check_double_or_unset(r->k_size_gib, w->k, log, "K size");
        check_double_or_unset(r->v_size_gib, w->v, log, "V size");
        check_double_or_unset(r->kv_size_gib, w->kv, log, "KV size");
        CHECK_INT(r->ranks, w->ranks);
        CHECK_STR(r->date, w->date);
        CHECK_STR(r->model_class, w->model_class);
        check_int_or_unset(r->args.tp_size, w->tp, log, "tp_size");
        check_double_or_unset(r->args.mem_fraction_static, w->fraction, log,
                              "mem_fraction_static");
        return true;
    }
    CHECK_FAIL_("%s: not in the table of printed readings", log);
    return false;
}

static kvplan_model *load(const char *dir, const char *model)
{
    char path[4096];
    if (strncmp(model, "models/", 7) == 0)
        snprintf(path, sizeof path, "%s/%s", dir, model);
    else
        snprintf(path, sizeof path, "%s", model);
    kvplan_model *m = NULL;
    kvplan_error err;
    if (kvplan_model_load(path, &m, &err) != KVPLAN_OK)
        CHECK_FAIL_("%s: %s", model, err.message);
    return m;
}

/* The budget from kvplan's own model: max_total_num_tokens, or -1. */
static long long plan_tokens(const kvplan_model *m, const kvplan_gpu *gpu,
                             const kvplan_log_readings *r,
                             kvplan_sglang_profile version)
{
    kvplan_plan_options o;
    kvplan_plan_options_init(&o);
    o.sglang_version = version;
    kvplan_error err;
    CHECK_INT(kvplan_log_options(r, &o, &err), KVPLAN_OK);
    o.gpu = *gpu;
    o.gpu_set = true;
    kvplan_plan *p = malloc(sizeof *p);
    long long t = -1;
    if (p != NULL && kvplan_plan_compute(m, &o, p, &err) == KVPLAN_OK)
        t = (long long)p->max_total_num_tokens;
    else
        CHECK_FAIL_("%s", err.message);
    free(p);
    return t;
}

/* The reconciliation: inside, or the expected cause among the causes. */
static void reconcile(const char *log, const kvplan_model *m,
                      const kvplan_gpu *gpu, const kvplan_log_readings *r,
                      kvplan_sglang_profile version, const char *expect)
{
    kvplan_plan_options o;
    kvplan_plan_options_init(&o);
    o.sglang_version = version;
    kvplan_error err;
    CHECK_INT(kvplan_log_options(r, &o, &err), KVPLAN_OK);
    if (gpu != NULL) {
        o.gpu = *gpu;
        o.gpu_set = true;
    }
    kvplan_plan *work = malloc(sizeof *work);
    kvplan_log_result x;
    CHECK_INT(kvplan_log_reconcile(m, NULL, r, &o, work, &x, &err), KVPLAN_OK);
    free(work);
    bool named = false;
    for (size_t i = 0; i < x.num_causes; i++) {
        printf("    %s (%s): %s\n", kvplan_log_cause_name(x.causes[i].code),
               x.causes[i].row, x.causes[i].text);
        named |= strcmp(kvplan_log_cause_name(x.causes[i].code), expect) == 0;
    }
    if (x.interval)
        printf("    interval [%lld, %lld], logged %lld: %s\n",
               (long long)x.tokens_lo, (long long)x.tokens_hi,
               (long long)x.logged_tokens.value,
               x.inside ? "inside" : "OUTSIDE");
    if (strcmp(expect, "inside") == 0) {
        CHECK(x.interval && x.inside);
        if (!(x.interval && x.inside))
            fprintf(stderr, "  %s: not inside\n", log);
    } else {
        CHECK(named);
        if (!named)
            fprintf(stderr, "  %s: no cause %s\n", log, expect);
    }
}

static kvplan_status parse(const char *text, kvplan_log_readings *r)
{
    return kvplan_log_parse(text, strlen(text), r, NULL);
}

/* The reader on the shapes the logs of tests/logs do not all show. */
static void test_parser(void)
{
    kvplan_log_readings r;
    kvplan_error err;
    /* "KV size" is not read as "V size"; a draft's load is not the
     * target's "before"; the last "after" counts; ranks and the date */
    CHECK_INT(parse("[2026-01-02 10:00:00 DP0 TP1 EP1] Load weight begin. "
                    "avail mem=70.50 GB\n"
                    "[2026-01-02 10:00:00 TP0] Load weight begin. avail "
                    "mem=70.25 GB\r\n"
                    "[2026-01-02 10:00:09 TP0] Load weight end. type=X, "
                    "dtype=torch.float16, avail mem=50.00 GB, mem usage=20.25 "
                    "GB.\n"
                    "[2026-01-02 10:00:10 TP0] Load weight begin. avail "
                    "mem=50.00 GB\n"
                    "[2026-01-02 10:00:11 TP0] Load weight end. type=Draft, "
                    "avail mem=49.00 GB, mem usage=1.00 GB.\n"
                    "[2026-01-02 10:00:12 TP0] KV Cache is allocated. "
                    "#tokens: 1234, KV size: 12.34 GB\n",
                    &r),
              KVPLAN_OK);
    CHECK_DOUBLE(r.free_before_gib.value, 70.25);
    CHECK_DOUBLE(r.free_after_gib.value, 49.0);
    CHECK_DOUBLE(r.weights_gib.value, 20.25);
    CHECK(!r.k_size_gib.set && !r.v_size_gib.set);
    CHECK_DOUBLE(r.kv_size_gib.value, 12.34);
    CHECK_INT(r.kv_tokens.value, 1234);
    CHECK_INT(r.ranks, 2);
    CHECK_INT(r.num_rank_readings, 2);
    CHECK_INT(r.rank_readings[0].rank, 1);
    CHECK_DOUBLE(r.rank_readings[0].free_before_gib.value, 70.5);
    CHECK(!r.rank_readings[0].free_after_gib.set);
    CHECK_INT(r.rank_readings[1].rank, 0);
    CHECK_DOUBLE(r.rank_readings[1].free_before_gib.value,
                 70.25); /* not
                            the draft's 50 */
    CHECK_DOUBLE(r.rank_readings[1].free_after_gib.value, 49.0);
    CHECK_STR(r.date, "2026-01-02");
    CHECK_STR(r.model_class, "X");
    CHECK_STR(r.model_dtype, "float16");
    CHECK(!r.max_total_num_tokens.set && !r.pool_end_gib.set);
    CHECK(!r.args.present);
    /* server args: quotes holding commas and parentheses, cuts, None,
     * True/False, a list; a number that is not one is not read */
    CHECK_INT(parse("server_args=ServerArgs(model_path='/m/a, b (c)', ..., "
                    "tp_size=4, mem_fraction_static=0.8260405859375, "
                    "max_running_requests=None, enable_dp_attention=True, "
                    "disable_cuda_graph=False, json_model_override_args='{}', "
                    "cuda_graph_bs=[1, 2, 4], page_size=1e3, "
                    "chunked_prefill_size=-1, dp_size=2)",
                    &r),
              KVPLAN_OK);
    CHECK(r.args.present);
    CHECK_STR(r.args.model_path, "/m/a, b (c)");
    CHECK_INT(r.args.tp_size.value, 4);
    CHECK_DOUBLE(r.args.mem_fraction_static.value, 0.8260405859375);
    CHECK(!r.args.max_running_requests.set);
    CHECK_INT(r.args.enable_dp_attention.value, 1);
    CHECK_INT(r.args.disable_cuda_graph.value, 0);
    CHECK(!r.args.page_size.set);
    CHECK_INT(r.args.chunked_prefill_size.value, -1);
    CHECK_INT(r.args.dp_size.value, 2);
    CHECK(!r.args.model_path_cut);
    /* the cut form people paste (tests/logs/24): bare values end at a
     * space; words that are no key=value are stepped over */
    CHECK_INT(parse("server_args ... served_model_name='Qwen3-14B' ... "
                    "tp_size=4 ... mem_fraction_static=0.8 ... "
                    "enable_metrics=True\n"
                    "KV Cache is allocated. #tokens: 5\n",
                    &r),
              KVPLAN_OK);
    CHECK(r.args.present);
    CHECK_INT(r.args.tp_size.value, 4);
    CHECK_DOUBLE(r.args.mem_fraction_static.value, 0.8);
    CHECK_INT(r.lines_used, 2);
    /* nothing of sglang's: an error naming the log; NULLs refused */
    CHECK_INT(kvplan_log_parse("hello\nworld\n", 12, &r, &err), KVPLAN_PARSE);
    CHECK_STR(err.field, "log");
    CHECK_INT(kvplan_log_parse("", 0, &r, &err), KVPLAN_PARSE);
    CHECK_INT(kvplan_log_parse(NULL, 3, &r, &err), KVPLAN_INVALID_ARGUMENT);
    CHECK_INT(kvplan_log_parse("x", 1, NULL, &err), KVPLAN_INVALID_ARGUMENT);
    /* numbers: too many digits, int64 overflow: unset, not wrapped; with
     * nothing else read, no log (issue 25: "kvplan log README.md" printed
     * a table of "missing", exit 0) */
    CHECK_INT(parse("Load weight begin. avail mem=123456789012345678901 GB\n"
                    "max_total_num_tokens=99999999999999999999\n",
                    &r),
              KVPLAN_PARSE);
    CHECK(!r.free_before_gib.set && !r.max_total_num_tokens.set);
    CHECK_INT(parse("Load weight begin. avail mem=123456789012345678901 GB\n"
                    "max_total_num_tokens=99999999999999999999\n"
                    "KV Cache is allocated. #tokens: 5\n",
                    &r),
              KVPLAN_OK);
    CHECK(!r.free_before_gib.set && !r.max_total_num_tokens.set);
    /* a text that quotes sglang's lines with no value: no log */
    CHECK_INT(parse("the `max_total_num_tokens=` line and "
                    "`server_args=ServerArgs(...)`\n",
                    &r),
              KVPLAN_PARSE);
    /* a model_path longer than its field is cut, and says so */
    char long_line[600];
    snprintf(long_line, sizeof long_line, "ServerArgs(model_path='%0300d')", 0);
    CHECK_INT(parse(long_line, &r), KVPLAN_OK);
    CHECK(r.args.model_path_cut);
    CHECK_INT(strlen(r.args.model_path), sizeof r.args.model_path - 1);
    CHECK_STR(kvplan_log_cause_name(KVPLAN_CAUSE_BUSY_GPU), "busy_gpu");
    CHECK_STR(kvplan_log_cause_name(KVPLAN_CAUSE_CONTEXT), "context");
    CHECK_STR(kvplan_log_cause_name((kvplan_log_cause_code)99), "?");
    /* an option the log gives that kvplan does not know is named */
    CHECK_INT(parse("ServerArgs(kv_cache_dtype='fp3')", &r), KVPLAN_OK);
    kvplan_plan_options o;
    kvplan_plan_options_init(&o);
    CHECK_INT(kvplan_log_options(&r, &o, &err), KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "--kv-cache-dtype");
    /* sglang prints its speculative algorithm in upper case (its
     * SpeculativeAlgorithm enum's name: speculative_algorithm='EAGLE3'),
     * and reads its flag in any case with NEXTN an alias of EAGLE;
     * kvplan log exited 3 on every speculative log (issue 26) */
    static const struct {
        const char *printed;
        kvplan_spec_algorithm alg;
    } spec[] = {
        {"EAGLE3", KVPLAN_SPEC_EAGLE3}, {"EAGLE", KVPLAN_SPEC_EAGLE},
        {"NEXTN", KVPLAN_SPEC_EAGLE},   {"STANDALONE", KVPLAN_SPEC_STANDALONE},
        {"NGRAM", KVPLAN_SPEC_NGRAM},   {"eagle3", KVPLAN_SPEC_EAGLE3}};
    for (size_t i = 0; i < sizeof spec / sizeof spec[0]; i++) {
        char line[128];
        snprintf(line, sizeof line,
                 "ServerArgs(speculative_algorithm='%s', tp_size=1)",
                 spec[i].printed);
        CHECK_INT(parse(line, &r), KVPLAN_OK);
        kvplan_plan_options_init(&o);
        CHECK_INT(kvplan_log_options(&r, &o, &err), KVPLAN_OK);
        CHECK_INT(o.server.speculative_algorithm, spec[i].alg);
    }
    CHECK_INT(parse("ServerArgs(speculative_algorithm='MEDUSA')", &r),
              KVPLAN_OK);
    kvplan_plan_options_init(&o);
    CHECK_INT(kvplan_log_options(&r, &o, &err), KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "--speculative-algorithm");
}

/* kvplan log --calibrate, then a plan with it: the context and weights
 * measured, and the log's count come back. */
/* Kimi-K2.5's eight ranks, each as printed; and an unbalanced rank */
static void test_ranks(const char *dir)
{
    kvplan_log_readings r;
    if (!read_log(dir, "14-kimi-k2-5.log", &r))
        return;
    CHECK_INT(r.num_rank_readings, 8);
    double before[8], after[8];
    for (size_t i = 0; i < r.num_rank_readings; i++) {
        before[r.rank_readings[i].rank & 7] =
            r.rank_readings[i].free_before_gib.value;
        after[r.rank_readings[i].rank & 7] =
            r.rank_readings[i].free_after_gib.value;
    }
    CHECK_DOUBLE(before[1], 283.96);
    CHECK_DOUBLE(after[1], 210.38);
    CHECK_DOUBLE(before[3], 283.53);
    CHECK_DOUBLE(after[3], 209.96);
    CHECK_DOUBLE(before[4], 283.68);
    CHECK_DOUBLE(after[0], 209.98);
    CHECK_INT(kvplan_log_parse("[d TP0] Load weight begin. avail mem=70.00 GB\n"
                               "[d TP1] Load weight begin. avail mem=50.00 GB\n"
                               "[d TP0] Load weight end. avail mem=60.00 GB\n"
                               "[d TP1] Load weight end. avail mem=40.00 GB\n",
                               180, &r, NULL),
              KVPLAN_OK);
    kvplan_plan_options o;
    kvplan_plan_options_init(&o);
    kvplan_plan *work = malloc(sizeof *work);
    kvplan_log_result x;
    kvplan_model *m = NULL;
    CHECK_INT(kvplan_model_load("llama-3.1-8b-instruct", &m, NULL), KVPLAN_OK);
    o.server.tp_size = 2;
    CHECK_INT(kvplan_log_reconcile(m, NULL, &r, &o, work, &x, NULL), KVPLAN_OK);
    bool named = false;
    for (size_t i = 0; i < x.num_causes; i++)
        named |= x.causes[i].code == KVPLAN_CAUSE_BUSY_GPU &&
                 strstr(x.causes[i].text, "TP1 had 50.00") != NULL;
    CHECK(named);
    /* busy relative to the card: 4 GiB less free than an idle MI355X (288
     * GB) is another process (3 % of the card was 8.6 GiB, not flagged);
     * half a GiB is the context's spread */
    kvplan_plan_options_init(&o);
    CHECK(kvplan_gpu_preset("MI355X", &o.gpu));
    o.gpu_set = true;
    double idle = 0;
    for (int k = 0; k < 3; k++) {
        char line[96];
        snprintf(line, sizeof line,
                 "[d TP0] Load weight begin. avail mem=%.2f GB\n",
                 k == 0 ? 200.0 : idle - (k == 1 ? 4.0 : 0.5));
        CHECK_INT(kvplan_log_parse(line, strlen(line), &r, NULL), KVPLAN_OK);
        CHECK_INT(kvplan_log_reconcile(m, NULL, &r, &o, work, &x, NULL),
                  KVPLAN_OK);
        idle = k == 0 ? x.free_before_gib : idle;
        bool busy = false;
        for (size_t i = 0; i < x.num_causes; i++)
            busy |= x.causes[i].code == KVPLAN_CAUSE_BUSY_GPU;
        if (k > 0)
            CHECK_INT(busy, k == 1);
    }
    CHECK(idle > 250);
    kvplan_model_free(m);
    free(work);
}

static void test_calibration(const char *dir)
{
    kvplan_log_readings r;
    if (!read_log(dir, "14-kimi-k2-5.log", &r))
        return;
    kvplan_plan_options o;
    kvplan_plan_options_init(&o);
    kvplan_error err;
    CHECK_INT(kvplan_log_options(&r, &o, &err), KVPLAN_OK);
    CHECK(kvplan_gpu_preset("MI355X", &o.gpu));
    o.gpu_set = true;
    char path[] = "/tmp/kvplan-calibration-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    CHECK_INT(cli_calibration_write(path, "14-kimi-k2-5.log", &r, &o, false,
                                    "kimi-k2.5"),
              0);
    /* read back as kvplan --calibration does (kvplan_options_load) */
    kvplan_options opts;
    kvplan_options_init(&opts);
    opts.calibration = path;
    opts.model_path = "kimi-k2.5";
    CHECK_INT(kvplan_options_set(&opts, "gpu", "MI355X", &err), KVPLAN_OK);
    CHECK_INT(kvplan_options_set(&opts, "tp_size", "8", &err), KVPLAN_OK);
    kvplan_loaded l;
    CHECK_INT(kvplan_options_load(&opts, &l, &err), KVPLAN_OK);
    CHECK_INT(l.num_warnings, 0); /* the same GPU and ranks */
    kvplan_plan_options c = opts.plan;
    /* 294896 MiB less 283.53 GiB; 73.58 GiB */
    CHECK_INT(c.context_bytes.value,
              (int64_t)(294896 * 1048576.0 - 283.53 * 1073741824.0));
    CHECK_INT(c.rank_weight_bytes.value, (int64_t)(73.58 * 1073741824.0));
    kvplan_model *m = l.model;
    kvplan_plan *p = malloc(sizeof *p);
    CHECK_INT(kvplan_plan_compute(m, &c, p, &err), KVPLAN_OK);
    CHECK_INT(p->budget.context_source, KVPLAN_SOURCE_MEASURED);
    CHECK_INT(p->budget.weights_source, KVPLAN_SOURCE_MEASURED);
    CHECK_DOUBLE(p->budget.pre_load_gib,
                 (double)(float)(283.53 * 1073741824.0) / 1073741824.0);
    double error = (double)p->max_total_num_tokens / 2454421.0 - 1;
    printf("calibrated kimi-k2.5 on MI355X: %lld tokens, %+.3f %% from the "
           "log's\n",
           (long long)p->max_total_num_tokens, 100 * error);
    CHECK(fabs(error) < 0.001);
    free(p);
    kvplan_loaded_free(&l);
    /* measured on another GPU and rank count: loaded, and said */
    kvplan_options_init(&opts);
    opts.calibration = path;
    opts.model_path = "kimi-k2.5";
    CHECK_INT(kvplan_options_set(&opts, "gpu", "H200", &err), KVPLAN_OK);
    CHECK_INT(kvplan_options_load(&opts, &l, &err), KVPLAN_OK);
    CHECK_INT(l.num_warnings, 2);
    CHECK_CONTAINS(l.warnings[0], "was measured on MI355X, this plan is for "
                                  "H200");
    CHECK_CONTAINS(l.warnings[1], "was measured at tp 8, pp 1");
    kvplan_loaded_free(&l);
    unlink(path);
    /* not a calibration, or a bad figure: named */
    opts.calibration = "/dev/null";
    CHECK_INT(kvplan_options_load(&opts, &l, &err), KVPLAN_IO);
    CHECK_STR(err.field, "--calibration");
    CHECK(l.model == NULL);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_logs LOGS_DIR\n");
        return 2;
    }
    test_parser();
    test_calibration(argv[1]);
    test_ranks(argv[1]);
    char path[4096];
    snprintf(path, sizeof path, "%s/cases.tsv", argv[1]);
    FILE *cases = fopen(path, "r");
    CHECK(cases != NULL);
    if (cases == NULL)
        return check_report();
    char line[1024];
    int held = 0, logs = 0;
    double errors[32]; /* |error| of the idle-GPU logs, % */
    while (fgets(line, sizeof line, cases) != NULL) {
        if (line[0] == '#' || line[0] == '\n')
            continue;
        char log[256], model[256], gpu_name[64], check[16], expect[32],
            sglang[32];
        kvplan_sglang_profile version = KVPLAN_SGLANG_SEED;
        if (sscanf(line, "%255s %255s %63s %15s %31s %31s", log, model,
                   gpu_name, check, expect, sglang) != 6 ||
            (strcmp(sglang, "-") != 0 &&
             kvplan_sglang_profile_parse(sglang, &version, NULL) !=
                 KVPLAN_OK)) {
            CHECK_FAIL_("cases.tsv: bad line '%s'", line);
            continue;
        }
        kvplan_log_readings r;
        if (!read_log(argv[1], log, &r))
            continue;
        logs++;
        long long logged = r.max_total_num_tokens.set
                               ? (long long)r.max_total_num_tokens.value
                               : (long long)r.kv_tokens.value;
        kvplan_model *m = strcmp(model, "-") == 0 ? NULL : load(argv[1], model);
        kvplan_gpu gpu;
        bool gpu_known = strcmp(gpu_name, "-") != 0;
        if (gpu_known)
            CHECK(kvplan_gpu_preset(gpu_name, &gpu));
        if (m == NULL) {
            printf("%-40s logged %9lld tokens; not replayed (docs/budget.md)\n",
                   log, logged);
        } else {
            kvplan_gpu g = gpu;
            if (!gpu_known) {
                /* an unknown, busy GPU: an idle one whose free memory is
                 * what the log saw free (the NVIDIA context added back) */
                kvplan_gpu_preset(KVPLAN_DEFAULT_GPU, &g);
                g.total_mib = (r.free_before_gib.value + 0.95) * 1024;
                snprintf(g.name, sizeof g.name, "custom");
            }
            long long got = plan_tokens(m, &g, &r, version);
            double error = 100.0 * (double)(got - logged) / (double)logged;
            printf("%-40s logged %9lld tokens, kvplan %9lld: %+6.2f %%%s\n",
                   log, logged, got, error,
                   strcmp(check, "1%") == 0 ? ""
                                            : " (reported, docs/budget.md)");
            if (strcmp(check, "1%") == 0) {
                if (held < 32)
                    errors[held] = fabs(error);
                held++;
                if (!(fabs(error) < 1.0))
                    CHECK_FAIL_("%s: %+.2f %% from the logged %lld tokens", log,
                                error, logged);
                else
                    check_passed_++;
            }
        }
        reconcile(log, m, gpu_known ? &gpu : NULL, &r, version, expect);
        kvplan_model_free(m);
    }
    fclose(cases);
    /* issue 26: the idle-GPU logs within 1 %, their median within 0.5 % */
    CHECK_INT(held, 9);
    qsort(errors, (size_t)held, sizeof errors[0], by_value);
    double median = held % 2 ? errors[held / 2]
                             : (errors[held / 2 - 1] + errors[held / 2]) / 2;
    printf("%d idle-GPU logs: median error %.2f %%, worst %.2f %%\n", held,
           median, errors[held - 1]);
    CHECK(median <= 0.5);
    CHECK_INT(logs, (int)(sizeof printed / sizeof printed[0]));
    /* Kimi-K2.5's mem_fraction_static was sglang's rule: kvplan's rule
     * gives the same value, vision tower (vt_ keys) included */
    kvplan_model *m = NULL;
    kvplan_error err;
    CHECK_INT(kvplan_model_load("kimi-k2.5", &m, &err), KVPLAN_OK);
    kvplan_plan_options o;
    kvplan_plan_options_init(&o);
    CHECK(kvplan_gpu_preset("MI355X", &o.gpu));
    o.gpu_set = true;
    o.server.tp_size = 8;
    kvplan_plan *p = malloc(sizeof *p);
    CHECK_INT(kvplan_plan_compute(m, &o, p, &err), KVPLAN_OK);
    CHECK_DOUBLE(p->budget.mem_fraction_static, 0.8260405859375);
    CHECK_STR(p->attention_backend, "triton"); /* MLA, 8 heads per rank */
    free(p);
    kvplan_model_free(m);
    return check_report();
}
