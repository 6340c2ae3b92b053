/*
 * load.c: what the options name, loaded (kvplan_options_load): the GPU,
 * a calibration, the model as docs/hub.md resolves it (a local file or
 * folder first; else the Hugging Face Hub unless HF_HUB_OFFLINE, with its
 * local cache as the fallback; else the built-in catalog, with a note that
 * says why), its draft, and the weights measured from the model folder's
 * safetensors headers. The Hub's own variables are read here, through the
 * options' variables: HF_ENDPOINT, HF_TOKEN, HF_TOKEN_PATH, HF_HOME,
 * HF_HUB_CACHE, HF_HUB_OFFLINE, KVPLAN_HUB_TIMEOUT (seconds per request,
 * default 30) and KVPLAN_HUB_DEADLINE (seconds for a whole fetch, default
 * 300).
 */
#include "options/options.h"
#include "budget/budget.h"
#include "hub/hub.h"
#include "model/catalog.h"
#include "model/model.h"

#include "common/json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void warn(kvplan_loaded *l, const char *fmt, ...) KVPLAN_PRINTF(2, 3);

static void warn(kvplan_loaded *l, const char *fmt, ...)
{
    if (l->num_warnings >= KVPLAN_MAX_LOAD_WARNINGS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->warnings[l->num_warnings++], sizeof l->warnings[0], fmt, ap);
    va_end(ap);
}

/* ---- a calibration (kvplan log --calibrate) ---------------------------- */

/* What a calibration was measured on. */
typedef struct calibration {
    char gpu[64];
    int64_t tp_size, pp_size;
    /* a TensorRT-LLM release it names that no profile holds */
    char trtllm_unknown[48];
} calibration;

/* A whole-number field of the file, or unset. */
static kvplan_status count(const json_t *doc, const char *key, const char *path,
                           kvplan_opt_int *out, kvplan_error *err)
{
    const json_t *v = json_object_get(doc, key);
    if (v == NULL)
        return KVPLAN_OK;
    /* a measurement of 0 bytes measured nothing (review R22) */
    KVPLAN__FAIL_IF(!json_is_integer(v) || json_integer_value(v) <= 0, err,
                    KVPLAN_PARSE, "--calibration",
                    "%.200s: \"%s\" must be a positive whole number of "
                    "bytes, as kvplan log --calibrate measured it",
                    path, key);
    *out = (kvplan_opt_int){json_integer_value(v), true};
    return KVPLAN_OK;
}

/* A vLLM or TensorRT-LLM log's terms (kvplan_vllm_log_calibrate,
 * kvplan_trtllm_log_calibrate) into the engine's options: weights and
 * activation measured, non-torch and graphs may be 0 (folded into the
 * activation, or not taken by the version). */
static kvplan_status read_engine_terms(const json_t *doc, const char *path,
                                       kvplan_engine_options *e,
                                       kvplan_error *err)
{
    static const char *const keys[] = {"rank_weight_bytes", "activation_bytes",
                                       "non_torch_bytes", "cuda_graph_bytes"};
    kvplan_opt_int *dst[] = {&e->rank_weight_bytes, &e->activation_bytes,
                             &e->non_torch_bytes, &e->cuda_graph_bytes};
    for (size_t i = 0; i < 4; i++) {
        const json_t *v = json_object_get(doc, keys[i]);
        if (v == NULL && i >= 3)
            continue;
        KVPLAN__FAIL_IF(!json_is_integer(v) || json_integer_value(v) < (i < 2),
                        err, KVPLAN_PARSE, "--calibration",
                        "%.200s: \"%s\" must be a whole number of bytes%s, "
                        "as kvplan log --calibrate measured it",
                        path, keys[i], i < 2 ? " above 0" : "");
        *dst[i] = (kvplan_opt_int){json_integer_value(v), true};
    }
    return KVPLAN_OK;
}

/* The file's terms into o->context_bytes and o->rank_weight_bytes, or a
 * vLLM log's into the engine's options; a calibration of the other engine
 * is refused. */
static kvplan_status read_calibration(const char *path, kvplan_options *opts,
                                      calibration *cal, kvplan_error *err)
{
    kvplan_plan_options *o = &opts->plan;
    memset(cal, 0, sizeof *cal);
    struct stat sb;
    KVPLAN__FAIL_IF(stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) ||
                        sb.st_size > (1 << 20),
                    err, KVPLAN_IO, "--calibration",
                    "%.200s: not a readable calibration file (a regular file "
                    "of at most 1 MiB, written by kvplan log --calibrate)",
                    path);
    json_error_t jerr;
    bool special = false;
    FILE *f = kvplan__open_regular(path, &special);
    json_t *doc = f != NULL ? json_loadf(f, 0, &jerr) : NULL;
    if (f != NULL)
        fclose(f);
    if (!json_is_object(doc) ||
        json_integer_value(json_object_get(doc, "kvplan_calibration")) != 1) {
        json_decref(doc);
        return kvplan__fail(err, KVPLAN_PARSE, "--calibration",
                            "%.200s: not a kvplan calibration (expected a "
                            "JSON object with \"kvplan_calibration\": 1)",
                            path);
    }
    /* the engine whose log it is: vLLM's and TensorRT-LLM's terms go to
     * the engine's options, sglang's (no "engine") to the plan's */
    const json_t *ej = json_object_get(doc, "engine");
    const char *engine = json_string_value(ej);
    int of = ej == NULL                                  ? KVPLAN_ENGINE_SGLANG
             : engine != NULL && !strcmp(engine, "vllm") ? KVPLAN_ENGINE_VLLM
             : engine != NULL && !strcmp(engine, "trtllm")
                 ? KVPLAN_ENGINE_TRTLLM
                 : -1;
    bool engine_terms = of != KVPLAN_ENGINE_SGLANG;
    static const char *const whose[] = {"n sglang", " vLLM", " TensorRT-LLM"};
    kvplan_status st = KVPLAN_OK;
    if (of < 0)
        st = kvplan__fail(err, KVPLAN_PARSE, "--calibration",
                          "%.200s: \"engine\" must be \"vllm\" or \"trtllm\" "
                          "(absent: an sglang log's), as kvplan log "
                          "--calibrate writes it",
                          path);
    else if (of != (int)opts->engine)
        st = kvplan__fail(err, KVPLAN_INVALID_ARGUMENT, "--calibration",
                          "%.200s: a%s log's calibration; %s", path, whose[of],
                          of == KVPLAN_ENGINE_VLLM ? "plan with --engine vllm"
                          : of == KVPLAN_ENGINE_TRTLLM
                              ? "plan with --engine trtllm"
                              : "an engine's plan needs one of its "
                                "own log (kvplan log LOG "
                                "--calibrate)");
    else if (engine_terms)
        st = read_engine_terms(doc, path, &opts->engine_options, err);
    /* a TensorRT-LLM log's release picks the rules its terms were
     * measured under, unless --trtllm-version says otherwise */
    kvplan_trtllm_profile release;
    const char *rel = json_string_value(json_object_get(doc, "trtllm"));
    if (st == KVPLAN_OK && of == KVPLAN_ENGINE_TRTLLM && rel != NULL &&
        opts->internal_.trtllm_version_text == NULL) {
        if (kvplan_trtllm_profile_parse(rel, &release, NULL) == KVPLAN_OK)
            opts->engine_options.trtllm_version = release;
        else /* said, not planned under the default silently */
            snprintf(cal->trtllm_unknown, sizeof cal->trtllm_unknown, "%s",
                     rel);
    }
    if (st == KVPLAN_OK && !engine_terms)
        st = count(doc, "context_bytes", path, &o->context_bytes, err);
    if (st == KVPLAN_OK && !engine_terms)
        st = count(doc, "rank_weight_bytes", path, &o->rank_weight_bytes, err);
    /* a context larger than the GPU is no measurement of it */
    const kvplan_gpu *board = o->gpu_set ? &o->gpu : kvplan__gpu_default();
    if (st == KVPLAN_OK && o->context_bytes.set &&
        (double)o->context_bytes.value > board->total_mib * 1048576.0)
        st = kvplan__fail(err, KVPLAN_PARSE, "--calibration",
                          "%.200s: \"context_bytes\" %lld is more than a "
                          "whole %s (%.0f MiB): not a measured CUDA context",
                          path, (long long)o->context_bytes.value, board->name,
                          board->total_mib);
    const char *gpu = json_string_value(json_object_get(doc, "gpu"));
    snprintf(cal->gpu, sizeof cal->gpu, "%s", gpu != NULL ? gpu : "");
    cal->tp_size = json_integer_value(json_object_get(doc, "tp_size"));
    cal->pp_size = json_integer_value(json_object_get(doc, "pp_size"));
    json_decref(doc);
    return st;
}

/* Warns when the plan's GPU or ranks are not the calibration's. */
static void check_calibration(const calibration *cal, const char *path,
                              const kvplan_options *opts, kvplan_loaded *l)
{
    const kvplan_plan_options *o = &opts->plan;
    if (cal->trtllm_unknown[0] != '\0')
        warn(l,
             "%.200s was measured under TensorRT-LLM %s, a release kvplan "
             "has no profile for: planned under %s's rules (--trtllm-version "
             "names the release to follow)",
             path, cal->trtllm_unknown,
             kvplan_trtllm_profile_name(opts->engine_options.trtllm_version));
    if (cal->gpu[0] != '\0' && o->gpu_set && strcmp(cal->gpu, o->gpu.name) != 0)
        warn(l,
             "%.200s was measured on %s, this plan is for %s: its figures "
             "may not hold",
             path, cal->gpu, o->gpu.name);
    if ((cal->tp_size > 0 && cal->tp_size != o->server.tp_size) ||
        (cal->pp_size > 0 && cal->pp_size != o->server.pp_size))
        warn(l,
             "%.200s was measured at tp %lld, pp %lld; this plan is at tp "
             "%lld, pp %lld: one rank's context and weights differ there",
             path, (long long)cal->tp_size, (long long)cal->pp_size,
             (long long)o->server.tp_size, (long long)o->server.pp_size);
}

/* ---- the Hub ------------------------------------------------------------- */

/* The first word of a token file; "" when absent. A FIFO, a device or a
 * folder there is refused, never read (it would block). */
static kvplan_status read_token(const char *path, const char *from, char *out,
                                size_t size, kvplan_error *err)
{
    out[0] = '\0';
    bool special = false;
    FILE *f = kvplan__open_regular(path, &special);
    KVPLAN__FAIL_IF(special, err, KVPLAN_INVALID_ARGUMENT, from,
                    "%.200s (the Hub token's file, from %s) is not a regular "
                    "file (a FIFO, a device or a folder): not read",
                    path, from);
    if (f == NULL)
        return KVPLAN_OK;
    if (fgets(out, (int)size, f) == NULL)
        out[0] = '\0';
    fclose(f);
    out[strcspn(out, "\r\n \t")] = '\0';
    return KVPLAN_OK;
}

/* A number of seconds from a variable, 0 when unset; refused naming the
 * variable unless a finite number from 0.001 to max. */
static kvplan_status env_seconds(const kvplan_options *o, const char *name,
                                 double max, double fallback, double *out,
                                 kvplan_error *err)
{
    const char *v = kvplan_options_getenv(o, name);
    *out = 0;
    if (v == NULL || v[0] == '\0')
        return KVPLAN_OK;
    char *end;
    double x = strtod(v, &end);
    while (end != v && (*end == ' ' || *end == '\t'))
        end++;
    KVPLAN__FAIL_IF(end == v || *end != '\0' ||
                        !(x >= KVPLAN__HUB_SECONDS_MIN && x <= max),
                    err, KVPLAN_INVALID_ARGUMENT, name,
                    "%s=%.40s: expected seconds from %g to %g (unset: %g)",
                    name, v, KVPLAN__HUB_SECONDS_MIN, max, fallback);
    *out = x;
    return KVPLAN_OK;
}

/* The Hub's options from the variables, as its own tools read them. */
static kvplan_status hub_options(const kvplan_options *o, kvplan_hub_options *h,
                                 char *cache, size_t cache_size, char *token,
                                 size_t token_size, kvplan_error *err)
{
    kvplan_hub_options_init(h);
    const char *home = kvplan_options_getenv(o, "HOME");
    const char *hf_home = kvplan_options_getenv(o, "HF_HOME");
    if (kvplan_hub_cache_dir(kvplan_options_getenv(o, "HF_HUB_CACHE"), hf_home,
                             home, cache, cache_size))
        h->cache_dir = cache;
    h->endpoint = kvplan_options_getenv(o, "HF_ENDPOINT");
    h->revision = o->revision;
    const char *t = kvplan_options_getenv(o, "HF_TOKEN");
    const char *from = "HF_TOKEN";
    if (t != NULL && t[0] != '\0') {
        snprintf(token, token_size, "%s", t);
        KVPLAN__FAIL_IF(strlen(t) >= token_size, err, KVPLAN_INVALID_ARGUMENT,
                        from, "HF_TOKEN is over %zu bytes: not a token",
                        token_size - 1);
    } else {
        char path[4200];
        const char *tp = kvplan_options_getenv(o, "HF_TOKEN_PATH");
        from = tp != NULL && tp[0] != '\0' ? "HF_TOKEN_PATH" : "HF_HOME";
        if (tp == NULL || tp[0] == '\0') {
            if (hf_home != NULL && hf_home[0] != '\0')
                snprintf(path, sizeof path, "%s/token", hf_home);
            else
                snprintf(path, sizeof path, "%s/.cache/huggingface/token",
                         home ? home : "");
            tp = path;
        }
        KVPLAN__TRY(read_token(tp, from, token, token_size, err));
    }
    KVPLAN__FAIL_IF(kvplan__hub_token_control(token), err,
                    KVPLAN_INVALID_ARGUMENT, from,
                    "the Hub token from %s holds a control character (a line "
                    "break?): a token is one line of printable characters",
                    from);
    h->token = token[0] ? token : NULL;
    const char *off = kvplan_options_getenv(o, "HF_HUB_OFFLINE");
    h->offline = off != NULL && kvplan_env_bool(off, strlen(off), false);
    KVPLAN__TRY(env_seconds(o, "KVPLAN_HUB_TIMEOUT", KVPLAN__HUB_TIMEOUT_MAX,
                            KVPLAN__HUB_TIMEOUT_DEFAULT, &h->timeout_s, err));
    KVPLAN__TRY(env_seconds(o, "KVPLAN_HUB_DEADLINE", KVPLAN__HUB_DEADLINE_MAX,
                            KVPLAN__HUB_DEADLINE_DEFAULT, &h->deadline_s, err));
    h->progress = o->progress;
    h->progress_ctx = o->progress_ctx;
    return KVPLAN_OK;
}

/* Where the model is read from: l->hub_dir gets the Hub snapshot's folder
 * when the Hub or its cache has it, "" for a local path or the catalog
 * (then l->note may say why not the Hub). The Hub's error when neither it
 * nor the catalog has the model. */
static kvplan_status hub_resolve(const kvplan_options *o, kvplan_loaded *l,
                                 kvplan_error *err)
{
    struct stat sb;
    const char *name = o->model_path;
    if (stat(name, &sb) == 0 || !kvplan_hub_repo_id(name))
        return KVPLAN_OK; /* a local path, or a catalog name */
    kvplan_hub_options h;
    char cache[4096], token[KVPLAN__HUB_MAX_TOKEN + 1];
    KVPLAN__TRY(
        hub_options(o, &h, cache, sizeof cache, token, sizeof token, err));
    kvplan_hub_result r;
    kvplan_error why;
    kvplan_status st = kvplan_hub_fetch(name, &h, &r, &why);
    if (st == KVPLAN_OK) {
        snprintf(l->hub_dir, sizeof l->hub_dir, "%s", r.dir);
        snprintf(l->hub_commit, sizeof l->hub_commit, "%s", r.commit);
        l->source = r.from_cache ? "hub_cache" : "hub";
        return KVPLAN_OK;
    }
    if (st == KVPLAN_INVALID_ARGUMENT) { /* --revision */
        *err = why;
        return st;
    }
    /* the catalog, if it has the id: said in the notes */
    kvplan_model *m = NULL;
    kvplan_error cat;
    if ((st = kvplan_model_load(name, &m, &cat)) == KVPLAN_OK) {
        kvplan_model_free(m);
        l->source = "catalog";
        snprintf(l->note, sizeof l->note,
                 "planned from the built-in catalog's config.json, not the "
                 "Hub's: %.300s",
                 why.message);
        return KVPLAN_OK;
    }
    /* neither: the catalog's words (its "did you mean"), then the Hub's */
    const char *reason = why.message;
    size_t n = strlen(name);
    if (strncmp(reason, name, n) == 0 && reason[n] == ':')
        reason += n + 2;
    if (err != NULL) {
        *err = cat;
        size_t k = strlen(err->message);
        snprintf(err->message + k, sizeof err->message - k, "; the Hub: %s",
                 reason);
    }
    return st;
}

/* ---- the model ------------------------------------------------------------
 */

/* The weights' real size from a model folder's safetensors; estimated
 * otherwise. --weight-bytes wins. */
static void measure_weights(kvplan_options *o, const char *dir,
                            kvplan_loaded *l)
{
    int64_t bytes;
    kvplan_error err;
    kvplan_status st = KVPLAN_IO;
    kvplan_plan_options *p = &o->plan;
    if (!p->weight_bytes.set &&
        (st = kvplan_weights_from_dir(dir, &bytes, &err)) == KVPLAN_OK) {
        p->weight_bytes = (kvplan_opt_int){bytes, true};
        l->weights_measured = true;
    }
    /* no weight files is the common case; bad ones are said, never dropped
     * in silence */
    if (st != KVPLAN_OK && st != KVPLAN_IO)
        warn(l, "%s; the weights are estimated from config.json instead",
             err.message);
    if (o->draft_model_path != NULL &&
        kvplan_weights_from_dir(o->draft_model_path, &bytes, NULL) == KVPLAN_OK)
        p->draft_weight_bytes = (kvplan_opt_int){bytes, true};
}

/* config.json's text when the options carry it, else the model at `from`,
 * with --json-model-override-args. */
static kvplan_status load_model(const kvplan_options *o, const char *from,
                                kvplan_model **m, kvplan_error *err)
{
    if (o->model_config == NULL)
        return kvplan_model_load_override(from, o->model_override_args, m, err);
    const char *origin =
        o->model_path != NULL && strcmp(o->model_path, "-") != 0
            ? o->model_path
            : "config.json";
    return kvplan_model_load_json_override(o->model_config, o->model_config_len,
                                           origin, o->model_override_args, m,
                                           err);
}

void kvplan_loaded_free(kvplan_loaded *l)
{
    if (l == NULL)
        return;
    kvplan_model_free(l->model);
    kvplan_model_free(l->draft);
    l->model = l->draft = NULL;
}

kvplan_status kvplan_options_load(kvplan_options *o, kvplan_loaded *l,
                                  kvplan_error *err)
{
    KVPLAN__FAIL_IF(o == NULL || l == NULL, err, KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_options_load needs options and a result; got "
                    "NULL");
    memset(l, 0, sizeof *l);
    KVPLAN__FAIL_IF(o->struct_size != sizeof *o, err, KVPLAN_INVALID_ARGUMENT,
                    "struct_size",
                    "kvplan_options.struct_size is %u, expected %zu: fill the "
                    "options with kvplan_options_init() of this kvplan.h",
                    (unsigned)o->struct_size, sizeof *o);
    if (o->model_path == NULL && o->model_config == NULL)
        o->model_path = KVPLAN_DEFAULT_MODEL;
    kvplan_plan_options *p = &o->plan;
    calibration cal;
    KVPLAN__TRY(kvplan__options_resolve_gpu(o, &l->gpu_count, err));
    if (o->calibration != NULL)
        KVPLAN__TRY(read_calibration(o->calibration, o, &cal, err));
    if (o->model_config == NULL)
        KVPLAN__TRY(hub_resolve(o, l, err));
    const char *from = l->hub_dir[0] ? l->hub_dir : o->model_path;
    kvplan_status st = load_model(o, from, &l->model, err);
    if (st == KVPLAN_OK && l->hub_dir[0] != '\0') /* named by its id */
        st = kvplan__model_name_as(l->model, o->model_path, err);
    if (st == KVPLAN_OK && o->draft_model_path != NULL)
        st = kvplan_model_load(o->draft_model_path, &l->draft, err);
    if (st != KVPLAN_OK) {
        kvplan_loaded_free(l);
        return st;
    }
    p->server.speculative_draft_model = l->draft;
    if (o->calibration != NULL)
        check_calibration(&cal, o->calibration, o, l);
    else if (o->model_config == NULL)
        measure_weights(o, from, l);
    return kvplan__ok(err);
}

/* A name that is no local path and no Hub id: the catalog's (a catalog
 * name without '/' is, whatever the working folder holds). */
static bool catalog_name(const char *name)
{
    struct stat sb;
    if (name == NULL || kvplan_hub_repo_id(name))
        return false;
    return (strchr(name, '/') == NULL && kvplan__catalog_entry_of(name)) ||
           stat(name, &sb) != 0;
}

bool kvplan__options_reusable(const kvplan_options *o)
{
    const char *model =
        o->model_path != NULL ? o->model_path : KVPLAN_DEFAULT_MODEL;
    return o->calibration == NULL &&
           (o->model_config != NULL || catalog_name(model)) &&
           (o->draft_model_path == NULL || catalog_name(o->draft_model_path));
}

kvplan_status kvplan__options_load_with(kvplan_options *o, kvplan_loaded *l,
                                        kvplan_model *model,
                                        kvplan_model *draft, kvplan_error *err)
{
    memset(l, 0, sizeof *l);
    if (o->model_path == NULL && o->model_config == NULL)
        o->model_path = KVPLAN_DEFAULT_MODEL;
    KVPLAN__TRY(kvplan__options_resolve_gpu(o, &l->gpu_count, err));
    l->model = model;
    l->draft = draft;
    o->plan.server.speculative_draft_model = draft;
    return kvplan__ok(err);
}
