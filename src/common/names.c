/*
 * names.c: the small tables that turn enums into the names sglang and torch
 * use (dtypes with their element sizes, speculative algorithms,
 * configurator classes) and back.
 */
#include "common/internal.h"

#include <string.h>

/* torch dtype -> element size in bytes (torch._utils._element_size). The
 * packed fp4 type holds two values in one byte and reports 1. */
static const struct {
    kvplan_dtype dtype;
    const char *name;
    int size;
} dtypes[] = {
    {KVPLAN_DTYPE_BFLOAT16, "bfloat16", 2},
    {KVPLAN_DTYPE_FLOAT16, "float16", 2},
    {KVPLAN_DTYPE_FLOAT32, "float32", 4},
    {KVPLAN_DTYPE_FLOAT8_E4M3FN, "float8_e4m3fn", 1},
    {KVPLAN_DTYPE_FLOAT8_E5M2, "float8_e5m2", 1},
    {KVPLAN_DTYPE_FLOAT4_E2M1FN_X2, "float4_e2m1fn_x2", 1},
    {KVPLAN_DTYPE_UINT8, "uint8", 1},
};

int kvplan_dtype_size(kvplan_dtype dtype)
{
    /* the table is in enum order: index it (every configurator asks) */
    size_t i = (size_t)dtype - 1;
    if (i < sizeof dtypes / sizeof dtypes[0] && dtypes[i].dtype == dtype)
        return dtypes[i].size;
    return 0;
}

const char *kvplan_dtype_name(kvplan_dtype dtype)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (dtypes[i].dtype == dtype)
            return dtypes[i].name;
    return NULL;
}

kvplan_dtype kvplan_dtype_from_name(const char *name)
{
    if (name == NULL)
        return KVPLAN_DTYPE_UNSET;
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (strcmp(dtypes[i].name, name) == 0)
            return dtypes[i].dtype;
    return KVPLAN_DTYPE_UNSET;
}

static const char *const spec_names[] = {
    [KVPLAN_SPEC_NONE] = "none",     [KVPLAN_SPEC_EAGLE] = "eagle",
    [KVPLAN_SPEC_EAGLE3] = "eagle3", [KVPLAN_SPEC_STANDALONE] = "standalone",
    [KVPLAN_SPEC_DFLASH] = "dflash", [KVPLAN_SPEC_DSPARK] = "dspark",
    [KVPLAN_SPEC_NGRAM] = "ngram",
};

const char *kvplan_spec_algorithm_name(kvplan_spec_algorithm a)
{
    if ((unsigned)a >= sizeof spec_names / sizeof spec_names[0])
        return NULL;
    return spec_names[a];
}

bool kvplan_spec_algorithm_from_name(const char *name,
                                     kvplan_spec_algorithm *out)
{
    if (name == NULL)
        return false;
    for (size_t i = 0; i < sizeof spec_names / sizeof spec_names[0]; i++) {
        if (strcmp(spec_names[i], name) == 0) {
            *out = (kvplan_spec_algorithm)i;
            return true;
        }
    }
    return false;
}

const char *kvplan_configurator_name(kvplan_configurator_kind k)
{
    switch (k) {
    case KVPLAN_CONFIGURATOR_DEFAULT:
        return "DefaultPoolConfigurator";
    case KVPLAN_CONFIGURATOR_HYBRID_SWA:
        return "HybridSWAPoolConfigurator";
    case KVPLAN_CONFIGURATOR_SWA_CHUNK_CAP:
        return "SWAChunkCapPoolConfigurator";
    case KVPLAN_CONFIGURATOR_DSV4:
        return "DSV4PoolConfigurator";
    }
    return NULL;
}

kvplan_dtype kvplan__dtype_of_flag(kvplan_dtype_flag flag,
                                   kvplan_dtype model_default)
{
    switch (flag) {
    case KVPLAN_DT_FLOAT16:
        return KVPLAN_DTYPE_FLOAT16;
    case KVPLAN_DT_BFLOAT16:
        return KVPLAN_DTYPE_BFLOAT16;
    case KVPLAN_DT_FLOAT32:
        return KVPLAN_DTYPE_FLOAT32;
    case KVPLAN_DT_AUTO:
        break;
    }
    return model_default;
}
