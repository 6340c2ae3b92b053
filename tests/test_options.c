/*
 * test_options.c: options by name (kvplan_option_at, kvplan_option_find,
 * kvplan_options_set and its typed twins): every spelling finds its row,
 * every value is read as the command reads it and refused in the same
 * words whatever its type, the error names the option as the caller spelled
 * it, sglang's flags kvplan does not read are listed, and the variables of
 * options->env come before the process's.
 */
#include "check.h"
#include "kvplan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void test_find(void)
{
    const kvplan_option *tp = kvplan_option_find("tp_size");
    CHECK(tp != NULL);
    if (tp == NULL)
        return;
    CHECK_STR(tp->flag, "--tp-size");
    CHECK(kvplan_option_find("--tp-size") == tp);
    CHECK(kvplan_option_find("--tp") == tp);
    CHECK(kvplan_option_find("--tensor-parallel-size") == tp);
    CHECK(kvplan_option_find("tp-size") == tp);
    CHECK(kvplan_option_find_n("--tp-size=4", 9) == tp);
    CHECK_STR(tp->vllm, "--tensor-parallel-size");
    CHECK_STR(tp->trtllm, "--tp_size");
    CHECK_INT(tp->type, KVPLAN_OPTION_INTEGER);
    CHECK_INT(tp->scope, KVPLAN_SCOPE_SGLANG);
    CHECK(tp->min == 1 && tp->sweep && tp->echo);
    CHECK(kvplan_option_find("tp_sizee") == NULL);
    CHECK(kvplan_option_find(NULL) == NULL);
    /* one of sglang's flags kvplan does not read */
    const kvplan_option *host = kvplan_option_find("--host");
    CHECK(host != NULL && host->type == KVPLAN_OPTION_NOT_READ);
    CHECK(kvplan_option_find("host") == host);
    const kvplan_option *quant = kvplan_option_find("--quantize-and-serve");
    CHECK(quant != NULL && quant->memory != NULL && quant->meta == NULL);
    /* every row: its name finds it, and the names are one each */
    size_t n = 0, read = 0;
    const kvplan_option *o;
    for (; (o = kvplan_option_at(n)) != NULL; n++) {
        CHECK(kvplan_option_find(o->name) == o);
        CHECK(kvplan_option_find(o->flag) == o);
        read += o->type != KVPLAN_OPTION_NOT_READ;
        CHECK(o->help != NULL || o->type == KVPLAN_OPTION_NOT_READ);
    }
    CHECK(read > 60);
    CHECK(n > 300);
}

static void test_values(void)
{
    kvplan_options o;
    kvplan_error err;
    kvplan_options_init(&o);
    CHECK_INT(o.struct_size, sizeof o);
    CHECK_INT(o.plan.server.tp_size, 1);
    CHECK_INT(kvplan_options_set(&o, "tp_size", "4", &err), KVPLAN_OK);
    CHECK_INT(o.plan.server.tp_size, 4);
    CHECK_INT(kvplan_options_set_integer(&o, "--pp", 2, &err), KVPLAN_OK);
    CHECK_INT(o.plan.server.pp_size, 2);
    CHECK_INT(kvplan_options_set_number(&o, "mem_fraction_static", 0.85, &err),
              KVPLAN_OK);
    CHECK(o.plan.mem_fraction_static.set &&
          o.plan.mem_fraction_static.value == 0.85);
    /* a whole real is an integer's value */
    CHECK_INT(kvplan_options_set_number(&o, "page_size", 64.0, &err),
              KVPLAN_OK);
    CHECK_INT(o.plan.server.page_size, 64);
    CHECK_INT(kvplan_options_set_number(&o, "page_size", 64.5, &err),
              KVPLAN_PARSE);
    CHECK_STR(err.field, "page_size");
    CHECK_STR(err.message,
              "page_size: expected a positive integer, got '64.5'");
    CHECK_INT(kvplan_options_set(&o, "kv_cache_dtype", "fp8_e4m3", &err),
              KVPLAN_OK);
    CHECK_INT(o.plan.server.kv_cache_dtype, KVPLAN_KV_FP8_E4M3);
    CHECK_INT(kvplan_options_set(&o, "speculative_algorithm", "nextn", &err),
              KVPLAN_OK);
    CHECK_INT(o.plan.server.speculative_algorithm, KVPLAN_SPEC_EAGLE);
    CHECK_INT(kvplan_options_set(&o, "attention_backend", "fa3", &err),
              KVPLAN_OK);
    CHECK_STR(o.plan.attention_backend, "fa3");
    CHECK_INT(kvplan_options_set_switch(&o, "disable_radix_cache", true, &err),
              KVPLAN_OK);
    CHECK(o.plan.server.disable_radix_cache);
    CHECK_INT(
        kvplan_options_set_switch(&o, "--disable-radix-cache", false, &err),
        KVPLAN_OK);
    CHECK(!o.plan.server.disable_radix_cache);
    CHECK_INT(kvplan_options_set(&o, "gpu", "h200", &err), KVPLAN_OK);
    CHECK(o.plan.gpu_set);
    CHECK_STR(o.plan.gpu.name, "H200");
    CHECK_INT(kvplan_options_set(&o, "gpu_memory_mib", "80GB", &err),
              KVPLAN_OK);
    CHECK(o.gpu_memory_mib.set &&
          fabs(o.gpu_memory_mib.value - 80e9 / 1048576) < 1e-9);
    CHECK_INT(kvplan_options_set(&o, "kv_cache_memory", "8GiB", &err),
              KVPLAN_OK);
    CHECK_INT(o.engine_options.kv_cache_memory_bytes.value, 8589934592);
    CHECK_INT(kvplan_options_set_integer(&o, "kv_cache_memory", 1000, &err),
              KVPLAN_OK);
    CHECK_INT(o.engine_options.kv_cache_memory_bytes.value, 1000);
    CHECK_INT(kvplan_options_set(&o, "sglang_version", "0.5.9", &err),
              KVPLAN_OK);
    CHECK_INT(o.plan.sglang_version, KVPLAN_SGLANG_E3);
    CHECK_INT(kvplan_options_set(&o, "compare_version", "main", &err),
              KVPLAN_OK);
    CHECK(o.compare_version_set && o.compare_version == KVPLAN_SGLANG_MAIN);
    CHECK_INT(kvplan_options_set(&o, "engine", "vllm", &err), KVPLAN_OK);
    CHECK_INT(o.engine, KVPLAN_ENGINE_VLLM);
    CHECK_INT(kvplan_options_set(&o, "solve_for", "tp-size", &err), KVPLAN_OK);
    CHECK_INT(o.solve_for, KVPLAN_KNOB_TP_SIZE);
    CHECK_INT(kvplan_options_set(&o, "rank_by", "tokens", &err), KVPLAN_OK);
    CHECK_INT(o.rank_by, KVPLAN_SWEEP_TOKENS);
    CHECK_INT(kvplan_options_set(&o, "hisparse_config",
                                 "{\"host_to_device_ratio\": 4}", &err),
              KVPLAN_OK);
    CHECK(o.plan.server.hisparse_host_to_device_ratio == 4);
    CHECK_INT(kvplan_options_set(&o, "model_path", "qwen3-8b", &err),
              KVPLAN_OK);
    CHECK_STR(o.model_path, "qwen3-8b");
}

/* A value of the wrong type is refused in the same words everywhere, the
 * option named as the caller spelled it. */
static void test_refusals(void)
{
    kvplan_options o;
    kvplan_error err;
    kvplan_options_init(&o);
    /* true or false for a valued option */
    CHECK_INT(kvplan_options_set_switch(&o, "tp_size", true, &err),
              KVPLAN_PARSE);
    CHECK_STR(err.field, "tp_size");
    CHECK_STR(err.message, "tp_size: expected a positive integer, got true");
    CHECK_INT(kvplan_options_set_switch(&o, "tp_size", false, &err),
              KVPLAN_PARSE);
    CHECK_STR(err.message, "tp_size: expected a positive integer, got false");
    CHECK_INT(kvplan_options_set_switch(&o, "--kv-cache-dtype", true, &err),
              KVPLAN_PARSE);
    CHECK_STR(err.field, "--kv-cache-dtype");
    CHECK_CONTAINS(err.message, "expected one of auto, fp8_e5m2");
    CHECK_INT(kvplan_options_set_switch(&o, "model_path", true, &err),
              KVPLAN_PARSE);
    /* a number for a switch or a word */
    CHECK_INT(kvplan_options_set_integer(&o, "disable_radix_cache", 1, &err),
              KVPLAN_PARSE);
    CHECK_STR(err.message,
              "disable_radix_cache: expected true or false, got 1");
    CHECK_INT(kvplan_options_set_number(&o, "kv_cache_dtype", 8, &err),
              KVPLAN_PARSE);
    /* out of bounds: the same words as the command's */
    CHECK_INT(kvplan_options_set_integer(&o, "tp_size", 0, &err), KVPLAN_PARSE);
    CHECK_STR(err.message, "tp_size: expected a positive integer, got '0'");
    CHECK_INT(kvplan_options_set(&o, "--tp", "0", &err), KVPLAN_PARSE);
    CHECK_STR(err.field, "--tp-size");
    CHECK_STR(err.message, "--tp-size: expected a positive integer, got '0'");
    CHECK_INT(kvplan_options_set_number(&o, "mem_fraction_static", 1.0, &err),
              KVPLAN_PARSE);
    CHECK_INT(kvplan_options_set_number(&o, "mem_fraction_static", NAN, &err),
              KVPLAN_PARSE);
    CHECK_INT(kvplan_options_set(&o, "mem_fraction_static", "0x0.8p0", &err),
              KVPLAN_PARSE);
    CHECK_INT(kvplan_options_set(&o, "gpu", "h100", &err), KVPLAN_PARSE);
    CHECK_CONTAINS(err.message, "did you mean H100-80GB or H100-NVL?");
    CHECK_INT(kvplan_options_set(&o, "sglang_version", "0.2.9", &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_INT(kvplan_options_set(&o, "rank_by", "speed", &err), KVPLAN_PARSE);
    CHECK_INT(kvplan_options_set(&o, "hisparse_config", "4", &err),
              KVPLAN_PARSE);
    CHECK_INT(kvplan_options_set(&o, "tp_size", NULL, &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.message, "tp_size needs a value");
    /* a name that is no option: in the caller's spelling */
    CHECK_INT(kvplan_options_set(&o, "tp_sizee", "2", &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "tp_sizee");
    CHECK_STR(err.message, "tp_sizee: unknown option; did you mean tp_size?");
    CHECK_INT(kvplan_options_set(&o, "--tp-sizee", "2", &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.message,
              "--tp-sizee: unknown option; did you mean --tp-size?");
    CHECK_INT(kvplan_options_set(NULL, "tp_size", "2", &err),
              KVPLAN_INVALID_ARGUMENT);
    kvplan_options stale;
    memset(&stale, 0, sizeof stale);
    CHECK_INT(kvplan_options_set(&stale, "tp_size", "2", &err),
              KVPLAN_INVALID_ARGUMENT);
    CHECK_STR(err.field, "struct_size");
    /* nothing refused was written */
    CHECK_INT(o.plan.server.tp_size, 1);
    CHECK(!o.plan.mem_fraction_static.set);
}

/* sglang's flags kvplan does not read: taken, listed once each. */
static void test_not_read(void)
{
    kvplan_options o;
    kvplan_error err;
    kvplan_options_init(&o);
    CHECK_INT(kvplan_options_set(&o, "host", "0.0.0.0", &err), KVPLAN_OK);
    CHECK_INT(kvplan_options_set_integer(&o, "--port", 8000, &err), KVPLAN_OK);
    CHECK_INT(kvplan_options_set_switch(&o, "trust_remote_code", true, &err),
              KVPLAN_OK);
    CHECK_INT(kvplan_options_set(&o, "--host", "::", &err), KVPLAN_OK);
    CHECK_INT(o.internal_.num_not_read, 3);
    CHECK_STR(kvplan_option_at(o.internal_.not_read[0])->flag, "--host");
    CHECK_STR(kvplan_option_at(o.internal_.not_read[2])->flag,
              "--trust-remote-code");
}

/* The variables of options->env come first; NULL there unsets one. */
static void test_env(void)
{
    kvplan_options o;
    kvplan_options_init(&o);
    setenv("SGLANG_SWA_EVICTION_INTERVAL", "64", 1);
    setenv("SGLANG_MAMBA_SSM_DTYPE", "float16", 1);
    const char *env[] = {"SGLANG_SWA_EVICTION_INTERVAL", "32",
                         "SGLANG_MAMBA_SSM_DTYPE", NULL, NULL};
    o.env = env;
    kvplan_options_read_env(&o);
    CHECK_INT(o.plan.server.SGLANG_SWA_EVICTION_INTERVAL, 32);
    CHECK(o.plan.SGLANG_MAMBA_SSM_DTYPE == NULL);
    CHECK_STR(kvplan_options_getenv(&o, "SGLANG_SWA_EVICTION_INTERVAL"), "32");
    o.env = NULL;
    kvplan_options_read_env(&o);
    CHECK_INT(o.plan.server.SGLANG_SWA_EVICTION_INTERVAL, 64);
    CHECK_STR(o.plan.SGLANG_MAMBA_SSM_DTYPE, "float16");
    /* a value not of its kind: sglang's default, and listed */
    const char *bad[] = {"SGLANG_OPT_USE_ONLINE_COMPRESS", "maybe", NULL};
    o.env = bad;
    kvplan_options_read_env(&o);
    CHECK_INT(o.internal_.num_bad_env, 1);
    CHECK(!o.plan.server.SGLANG_OPT_USE_ONLINE_COMPRESS);
    unsetenv("SGLANG_SWA_EVICTION_INTERVAL");
    unsetenv("SGLANG_MAMBA_SSM_DTYPE");
}

int main(void)
{
    test_find();
    test_values();
    test_refusals();
    test_not_read();
    test_env();
    return check_report();
}
