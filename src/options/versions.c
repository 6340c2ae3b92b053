/*
 * versions.c: the version options' values. --sglang-version names an
 * sglang profile, --vllm-version a vLLM one, --trtllm-version a
 * TensorRT-LLM one, --compare-version one of any (the engine asked picks);
 * each is parsed by its profile's parser, refused in the flag's own
 * spelling, and its text kept for the documents' "requested".
 */
#include "options/options.h"

#include <string.h>

kvplan_status kvplan__version_value(kvplan_options *o,
                                    const kvplan__option_row *row, void *field,
                                    const char *f, const char *v,
                                    kvplan_error *err)
{
    if (row->store == KVPLAN__STORE_TRTLLM_VERSION) {
        kvplan_trtllm_profile p;
        KVPLAN__TRY(kvplan_trtllm_profile_parse(v, &p, err));
        memcpy(field, &p, sizeof p);
        o->internal_.trtllm_version_text = v;
        return KVPLAN_OK;
    }
    if (row->store == KVPLAN__STORE_VLLM_VERSION) {
        kvplan_vllm_profile p;
        KVPLAN__TRY(kvplan_vllm_profile_parse(v, &p, err));
        memcpy(field, &p, sizeof p);
        o->internal_.vllm_version_text = v;
        return KVPLAN_OK;
    }
    kvplan_sglang_profile p;
    kvplan_error why;
    kvplan_vllm_profile vp;
    kvplan_trtllm_profile tp;
    /* --compare-version: a release of any engine; the one asked picks
     * (kvplan__options_for_question refuses the others') */
    bool compare = row->region == KVPLAN__IN_OPTIONS;
    bool vllm = compare && kvplan_vllm_profile_parse(v, &vp, NULL) == KVPLAN_OK;
    bool trtllm =
        compare && kvplan_trtllm_profile_parse(v, &tp, NULL) == KVPLAN_OK;
    if (vllm) {
        o->compare_vllm_set = true;
        o->compare_vllm_version = vp;
    }
    if (trtllm) {
        o->compare_trtllm_set = true;
        o->compare_trtllm_version = tp;
    }
    if (vllm || trtllm)
        o->internal_.compare_version_text = v;
    if (kvplan_sglang_profile_parse(v, &p, &why) != KVPLAN_OK) {
        if (vllm || trtllm)
            return KVPLAN_OK;
        /* a release of none: refused in the terms of the engine asked
         * where it came first, else sglang's (the parser speaks of
         * --sglang-version: named as spelled), naming the others */
        if (compare && o->engine != KVPLAN_ENGINE_SGLANG)
            return kvplan__compare_release_refusal(o->engine, f, v, err);
        const char *rest = strchr(why.message, ':');
        return kvplan__fail(err, why.code, f, "%s%s%s", f,
                            rest ? rest : ": not a version",
                            compare ? "; vLLM's and TensorRT-LLM's releases "
                                      "are compared under their engine "
                                      "(--engine vllm, --engine trtllm)"
                                    : "");
    }
    memcpy(field, &p, sizeof p);
    if (row->region == KVPLAN__IN_OPTIONS) {
        o->compare_version_set = true;
        o->internal_.compare_version_text = v;
    } else {
        o->internal_.sglang_version_text = v;
    }
    return KVPLAN_OK;
}
