/*
 * trtllm_versions.c: the TensorRT-LLM releases a plan can follow
 * (docs/engines.md, "TensorRT-LLM versions"), and the KV cache manager
 * each gives a model when use_kv_cache_manager_v2 is not given.
 *
 * The boundaries are main's version bumps, read in the bump PRs: main was
 * 1.3.0rc21 from 2026-06-30 (#15742), a day before #15823 (the "auto"
 * default) was opened, and 1.3.0rc28 from 2026-09-17 (#19346), when the
 * last family of the KV cache docs' table, Llama (#19004, opened
 * 2026-09-10), was in: KimiLinear's #19387 of 2026-09-18 follows "the
 * model-preference approach used for Llama in #19004". Which release
 * between took each family is not established, so there a plan of a
 * model whose default moved needs use_kv_cache_manager_v2 given.
 */
#include "engine/engine.h"

#include <stdlib.h>
#include <string.h>

static const kvplan_rule_info rules[] = {
    {KVPLAN_TRTLLM_RULE_V1_DEFAULT, "v1_default",
     "TensorRT-LLM#15823 (use_kv_cache_manager_v2: auto, opened 2026-07-01) "
     "and the families' model defaults after it (GPT-OSS #16942, Gemma "
     "#17396, DeepSeek V3 and DSA #16060, MiniMax M2 #17360, Llama #19004)",
     "every model takes KV cache manager V1 unless use_kv_cache_manager_v2 "
     "is true (Gemma 4, which only V2 allocates, aside); later releases "
     "resolve auto to the model's preference, V2 for the families of "
     "TensorRT-LLM's KV cache docs",
     true},
    {KVPLAN_TRTLLM_RULE_V2_SYNC_RAISES, "v2_sync_raises",
     "TensorRT-LLM#15991 (nvbugs/6418103, merged 2026-07-07: \"allreduce(MIN) "
     "must never raise the local quota\") and #16545 (2026-07-17: keep "
     "max_util_for_resume's headroom in the sync); the clamped sync read at "
     "1fe0b08",
     "over more than one rank KV cache manager V2 turns its whole quota into "
     "tokens and back, and below max_batch_size requests' windows (a hybrid "
     "Mamba's states) the quota becomes them, more than the budget; later "
     "releases take the tokens of quota x max_util_for_resume, back over "
     "max_util_for_resume, never above the quota",
     true},
};

#define NUM_RULES (sizeof rules / sizeof rules[0])

bool kvplan_trtllm_rule_at(size_t index, kvplan_rule_info *out)
{
    return kvplan__rule_copy(rules, NUM_RULES, index, out);
}

/* Releases as major * 10^7 + minor * 10^5 + patch * 10^3 + rc (999 for
 * the final release). */
#define REL(major, minor, rc) ((major)*10000000L + (minor)*100000L + (rc))
#define FINAL 999

static const kvplan__release_range profiles[] = {
    {KVPLAN_TRTLLM_LATEST, "1.3.0rc28-1.4", REL(1, 3, 28),
     REL(1, 4, FINAL) + 99000L, 0},
    {KVPLAN_TRTLLM_V1_0, "1.0-1.3.0rc20", REL(1, 0, 0), REL(1, 3, 20),
     KVPLAN_TRTLLM_RULE_V1_DEFAULT | KVPLAN_TRTLLM_RULE_V2_SYNC_RAISES},
    {KVPLAN_TRTLLM_RC21, "1.3.0rc21-rc27", REL(1, 3, 21), REL(1, 3, 27), 0},
};

#define NUM_PROFILES (sizeof profiles / sizeof profiles[0])

uint64_t kvplan_trtllm_rules(kvplan_trtllm_profile p)
{
    const kvplan__release_range *r =
        kvplan__range_of(profiles, NUM_PROFILES, (int)p);
    return r != NULL ? r->rules : 0;
}

const char *kvplan_trtllm_profile_name(kvplan_trtllm_profile p)
{
    const kvplan__release_range *r =
        kvplan__range_of(profiles, NUM_PROFILES, (int)p);
    return r != NULL ? r->name : NULL;
}

/* One number of at most two digits at *s, moving past it; -1 if none. */
static long part(const char **s)
{
    if (**s < '0' || **s > '9')
        return -1;
    char *end;
    long n = strtol(*s, &end, 10);
    *s = end;
    return n <= 99 ? n : -1;
}

/* "1.3.0rc24", "v1.4.0rc4.post1", "1.2", "1.2.0": REL's number with the
 * patch in thousands; -1 when not a version, -2 for a final 1.3.x. */
static long release(const char *v)
{
    if (*v == 'v' || *v == 'V')
        v++;
    long major = part(&v), minor = -1, patch = 0, rc = FINAL;
    if (major < 0 || *v++ != '.' || (minor = part(&v)) < 0)
        return -1;
    if (*v == '.' && v[1] >= '0' && v[1] <= '9') {
        v++;
        if ((patch = part(&v)) < 0)
            return -1;
    }
    if (strncmp(v, "rc", 2) == 0) {
        v += 2;
        if ((rc = part(&v)) < 0)
            return -1;
    }
    if (*v == '.' && strncmp(v + 1, "post", 4) == 0) /* an rc's fix */
        v += strlen(v);
    if (*v != '\0')
        return -1;
    if (major == 1 && minor == 3 && (rc == FINAL || patch > 0))
        return -2;
    return major * 10000000L + minor * 100000L + patch * 1000L + rc;
}

kvplan_status kvplan_trtllm_profile_parse(const char *version,
                                          kvplan_trtllm_profile *out,
                                          kvplan_error *err)
{
    KVPLAN__FAIL_IF(version == NULL || out == NULL, err,
                    KVPLAN_INVALID_ARGUMENT, "--trtllm-version",
                    "--trtllm-version: no version given");
    if (kvplan__ascii_ieq(version, "latest") ||
        kvplan__ascii_ieq(version, "main")) {
        *out = KVPLAN_TRTLLM_LATEST;
        return kvplan__ok(err);
    }
    long n = strlen(version) < 40 ? release(version) : -1;
    const kvplan__release_range *r =
        kvplan__range_find(profiles, NUM_PROFILES, version, n);
    if (r != NULL) {
        *out = (kvplan_trtllm_profile)r->profile;
        return kvplan__ok(err);
    }
    return kvplan__fail(
        err, KVPLAN_INVALID_ARGUMENT, "--trtllm-version",
        "--trtllm-version: kvplan has no profile for '%.40s'%s; it knows "
        "latest (the default: 1.3.0rc28-1.4), 1.3.0rc21-rc27 and "
        "1.0-1.3.0rc20, or a release of those ranges such as 1.2.0 or "
        "1.3.0rc24",
        version,
        n == -1   ? " (not a version)"
        : n == -2 ? " (1.3.0 itself: which of main's release candidates its "
                    "branch was cut from is not established; name that rc)"
        : n < REL(1, 0, 0) ? " (older than 1.0: the TensorRT engine flow, "
                             "not modelled)"
                           : " (newer than 1.4)");
}

/* V1's mamba cost as the releases before the families' defaults priced
 * it; the later V1, a hybrid Mamba's deprecated compatibility path
 * (kv_cache/mamba_cache_manager, late 2026), holds every live and dummy
 * state and snapshots nothing by default: refused there. */
static kvplan_status mamba_v1(const kvplan__engine_census *c,
                              const kvplan_engine_options *o,
                              const kvplan_engine_plan *p, kvplan_error *err)
{
    KVPLAN__FAIL_IF(
        c->mambaish && p->kv_cache_manager == 1 &&
            !(p->trtllm_rules & KVPLAN_TRTLLM_RULE_V1_DEFAULT),
        err, KVPLAN_UNSUPPORTED,
        p->kv_cache_manager_choice == KVPLAN_KVCM_GIVEN
            ? "--no-use-kv-cache-manager-v2"
            : "--trtllm-version",
        "a hybrid Mamba under KV cache manager V1 is modelled as TensorRT-LLM "
        "1.0-1.3.0rc20 sized it (a snapshot every mamba_state_cache_interval "
        "tokens, priced per token); %s's V1, its deprecated compatibility "
        "path, holds every live and CUDA-graph dummy state and snapshots "
        "nothing by default, which kvplan does not restate: plan V2 "
        "(--use-kv-cache-manager-v2) or give --trtllm-version 1.0-1.3.0rc20",
        kvplan_trtllm_profile_name(o->trtllm_version));
    return KVPLAN_OK;
}

kvplan_status kvplan__trtllm_manager(const kvplan_model *m,
                                     const kvplan__engine_census *c,
                                     const kvplan_engine_options *o,
                                     kvplan_engine_plan *p, kvplan_error *err)
{
    KVPLAN__FAIL_IF(o->use_kv_cache_manager_v2 && o->no_use_kv_cache_manager_v2,
                    err, KVPLAN_INVALID_ARGUMENT,
                    "--no-use-kv-cache-manager-v2",
                    "--use-kv-cache-manager-v2 and "
                    "--no-use-kv-cache-manager-v2 ask for both KV cache "
                    "managers; give one (neither: the release's default)");
    p->trtllm_version = o->trtllm_version;
    p->trtllm_rules =
        kvplan_trtllm_rules(o->trtllm_version) ^ o->trtllm_rules_flip;
    p->v2_default = kvplan__trtllm_v2_default(
        kvplan_model_get_info(m)->architecture, c->dsa);
    p->kv_cache_manager = 1;
    if (kvplan__trtllm_gemma4(m)) {
        p->kv_cache_manager = 2;
        p->kv_cache_manager_choice = KVPLAN_KVCM_MODEL;
        p->v2_default = "Gemma 4, whose per-layer geometry only V2 allocates, "
                        "whatever use_kv_cache_manager_v2 says";
        return KVPLAN_OK;
    }
    if (kvplan_model_get_info(m)->is_deepseek_v4) { /* trtllm_dsv4.c */
        p->kv_cache_manager = 2;
        p->kv_cache_manager_choice = KVPLAN_KVCM_MODEL;
        p->v2_default = "DeepSeek-V4, whose caches TensorRT-LLM holds in "
                        "DeepseekV4CacheManager, a V2 manager";
        return KVPLAN_OK;
    }
    if (o->use_kv_cache_manager_v2 || o->no_use_kv_cache_manager_v2) {
        p->kv_cache_manager = o->use_kv_cache_manager_v2 ? 2 : 1;
        p->kv_cache_manager_choice = KVPLAN_KVCM_GIVEN;
        return mamba_v1(c, o, p, err);
    }
    p->kv_cache_manager_choice = KVPLAN_KVCM_DEFAULT;
    if (p->v2_default == NULL ||
        (p->trtllm_rules & KVPLAN_TRTLLM_RULE_V1_DEFAULT))
        return mamba_v1(c, o, p, err);
    KVPLAN__FAIL_IF(
        o->trtllm_version == KVPLAN_TRTLLM_RC21, err, KVPLAN_UNSUPPORTED,
        "--trtllm-version",
        "--trtllm-version: %s took KV cache manager V2 by default "
        "(use_kv_cache_manager_v2: auto) in one of TensorRT-LLM %s, which "
        "kvplan has not pinned down: give --use-kv-cache-manager-v2 or "
        "--no-use-kv-cache-manager-v2 (a launch's log says which: V2 logs "
        "\"KV cache manager v2 device quota set to\")",
        p->v2_default, kvplan_trtllm_profile_name(o->trtllm_version));
    p->kv_cache_manager = 2;
    return KVPLAN_OK;
}

int kvplan__trtllm_default_manager(const kvplan_model *m,
                                   const kvplan_engine_options *o)
{
    kvplan__engine_census c;
    kvplan_engine_plan p;
    kvplan_engine_options d = *o;
    d.use_kv_cache_manager_v2 = d.no_use_kv_cache_manager_v2 = false;
    if (kvplan__engine_census_of(m, &d, &c, NULL) != KVPLAN_OK)
        return 0;
    memset(&p, 0, sizeof p);
    return kvplan__trtllm_manager(m, &c, &d, &p, NULL) == KVPLAN_OK
               ? p.kv_cache_manager
               : 0;
}

/* The plan of o under release v: its figures, returning its manager. */
static int32_t figures_at(const kvplan_model *m, kvplan_engine_options *o,
                          kvplan_trtllm_profile v,
                          kvplan_engine_version_figures *f)
{
    o->trtllm_version = v;
    return kvplan__engine_figures(m, o, f);
}

kvplan_status kvplan_trtllm_version_compare(
    const kvplan_model *m, const kvplan_engine_options *options,
    kvplan_trtllm_profile other, kvplan_trtllm_version_comparison *out,
    kvplan_error *err)
{
    KVPLAN__FAIL_IF(m == NULL || options == NULL || out == NULL, err,
                    KVPLAN_INVALID_ARGUMENT, NULL,
                    "kvplan_trtllm_version_compare needs a model, options "
                    "and a result; got NULL");
    KVPLAN__FAIL_IF(kvplan_trtllm_profile_name(other) == NULL ||
                        kvplan_trtllm_profile_name(options->trtllm_version) ==
                            NULL,
                    err, KVPLAN_INVALID_ARGUMENT, "--compare-version",
                    "--compare-version: %d is not a kvplan_trtllm_profile",
                    (int)(kvplan_trtllm_profile_name(other) == NULL
                              ? other
                              : options->trtllm_version));
    memset(out, 0, sizeof *out);
    kvplan_engine_options o = *options;
    o.engine = KVPLAN_ENGINE_TRTLLM;
    out->profile = options->trtllm_version;
    out->compared = other;
    out->kv_cache_manager = figures_at(m, &o, out->profile, &out->plan);
    out->compared_kv_cache_manager =
        figures_at(m, &o, other, &out->compared_plan);
    /* each rule switched alone from the plan's release */
    o.trtllm_version = out->profile;
    out->num_rules = kvplan__engine_rule_deltas(
        m, &o, &o.trtllm_rules_flip, rules, NUM_RULES,
        kvplan_trtllm_rules(out->profile) ^ options->trtllm_rules_flip,
        kvplan_trtllm_rules(other), &out->plan, out->rules,
        sizeof out->rules / sizeof out->rules[0]);
    return kvplan__ok(err);
}
