/*
 * env.c: sglang's environment variables, read as sglang reads them (its
 * EnvBool and int parsing, a value not of its kind warned of and left at
 * the default), from the options' own list (kvplan_options.env: a
 * request's "env", Python's env=) before the process's.
 */
#include "options/options.h"

#include <stdlib.h>
#include <string.h>

const char *kvplan_options_getenv(const kvplan_options *o, const char *name)
{
    if (name == NULL)
        return NULL;
    for (const char *const *e = o != NULL ? o->env : NULL;
         e != NULL && e[0] != NULL; e += 2)
        if (strcmp(e[0], name) == 0)
            return e[1];
    return getenv(name);
}

/* Every variable kvplan reads: sglang's that move its pools, vLLM's one,
 * the Hub's (docs/hub.md) and kvplan's own. */
static const char *const read_names[] = {
    "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN",
    "SGLANG_DSV4_COMPRESS_STATE_DTYPE",
    "SGLANG_EXPERIMENTAL_ONLINE_C128_MTP",
    "SGLANG_MAMBA_SSM_DTYPE",
    "SGLANG_OPT_USE_ONLINE_COMPRESS",
    "SGLANG_PP_LAYER_PARTITION",
    "SGLANG_SWA_EVICTION_INTERVAL",
    "SGLANG_VLM_CACHE_SIZE_MB",
    "VLLM_ALLOW_LONG_MAX_MODEL_LEN",
    "HF_ENDPOINT",
    "HF_HOME",
    "HF_HUB_CACHE",
    "HF_HUB_OFFLINE",
    "HF_TOKEN",
    "HF_TOKEN_PATH",
    "KVPLAN_HUB_DEADLINE",
    "KVPLAN_HUB_TIMEOUT",
    "HOME",
};

bool kvplan__env_is_read(const char *name)
{
    for (size_t i = 0;
         name != NULL && i < sizeof read_names / sizeof *read_names; i++)
        if (strcmp(name, read_names[i]) == 0)
            return true;
    return false;
}

bool kvplan__env_is_process_only(const char *name)
{
    /* a path, an endpoint or a secret: from a request, a way to read a
     * file or send it elsewhere (review R13) */
    static const char *const only[] = {"HF_ENDPOINT",   "HF_HOME",
                                       "HF_HUB_CACHE",  "HF_TOKEN",
                                       "HF_TOKEN_PATH", "HOME"};
    for (size_t i = 0; name != NULL && i < sizeof only / sizeof *only; i++)
        if (strcmp(name, only[i]) == 0)
            return true;
    return false;
}

const char *kvplan__env_nearest(const char *name)
{
    return kvplan__nearest_word(name, read_names,
                                sizeof read_names / sizeof *read_names, 3);
}

/* A variable sglang warns of and then ignores (its value is not of its
 * kind), for the documents to say so too. */
static void bad_env(kvplan_options *o, const char *name)
{
    struct kvplan__options_internal *in = &o->internal_;
    if (in->num_bad_env < KVPLAN__MAX_BAD_ENV)
        in->bad_env[in->num_bad_env++] = name;
}

/* sglang's EnvBool. */
static bool env_bool(kvplan_options *o, const char *name, bool fallback)
{
    const char *v = kvplan_options_getenv(o, name);
    if (v == NULL)
        return fallback;
    size_t n = strlen(v);
    /* garbage gives the fallback whatever it is */
    if (kvplan_env_bool(v, n, true) != kvplan_env_bool(v, n, false))
        bad_env(o, name);
    return kvplan_env_bool(v, n, fallback);
}

void kvplan_options_read_env(kvplan_options *o)
{
    if (o == NULL)
        return;
    kvplan_plan_options *p = &o->plan;
    kvplan_server_args *s = &p->server;
    o->internal_.num_bad_env = 0;
    s->SGLANG_PP_LAYER_PARTITION =
        kvplan_options_getenv(o, "SGLANG_PP_LAYER_PARTITION");
    s->SGLANG_DSV4_COMPRESS_STATE_DTYPE =
        kvplan_options_getenv(o, "SGLANG_DSV4_COMPRESS_STATE_DTYPE");
    s->SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN =
        env_bool(o, "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN", false);
    s->SGLANG_OPT_USE_ONLINE_COMPRESS =
        env_bool(o, "SGLANG_OPT_USE_ONLINE_COMPRESS", false);
    s->SGLANG_EXPERIMENTAL_ONLINE_C128_MTP =
        env_bool(o, "SGLANG_EXPERIMENTAL_ONLINE_C128_MTP", false);
    p->SGLANG_MAMBA_SSM_DTYPE =
        kvplan_options_getenv(o, "SGLANG_MAMBA_SSM_DTYPE");
    const char *vlm = kvplan_options_getenv(o, "SGLANG_VLM_CACHE_SIZE_MB");
    if (vlm != NULL) {
        size_t n = strlen(vlm);
        if (kvplan_env_int(vlm, n, 1) != kvplan_env_int(vlm, n, 2) ||
            kvplan_env_int(vlm, n, 0) < 0)
            bad_env(o, "SGLANG_VLM_CACHE_SIZE_MB");
        else
            p->SGLANG_VLM_CACHE_SIZE_MB =
                (kvplan_opt_int){kvplan_env_int(vlm, n, 100), true};
    }
    const char *iv = kvplan_options_getenv(o, "SGLANG_SWA_EVICTION_INTERVAL");
    if (iv != NULL) {
        size_t n = strlen(iv);
        if (kvplan_env_int(iv, n, 1) != kvplan_env_int(iv, n, 2))
            bad_env(o, "SGLANG_SWA_EVICTION_INTERVAL");
        s->SGLANG_SWA_EVICTION_INTERVAL =
            kvplan_env_int(iv, n, s->SGLANG_SWA_EVICTION_INTERVAL);
    }
}
