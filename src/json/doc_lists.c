/*
 * doc_lists.c: what is built in, as documents: the catalog's models, the
 * GPU presets, the options the library reads (the table's rows, for an
 * interface that builds its form or its keywords from them) and the
 * version.
 */
#include "json/doc.h"

#include "common/option_table.h"

json_t *kvplan__doc_models(void)
{
    json_t *l = json_array();
    const char *name;
    for (size_t i = 0; l != NULL && (name = kvplan_catalog_name(i)) != NULL;
         i++) {
        kvplan_model *m = NULL;
        const char *arch = "";
        bool draft = false;
        if (kvplan_model_load(name, &m, NULL) == KVPLAN_OK) {
            arch = kvplan_model_get_info(m)->architecture;
            draft = kvplan_model_get_info(m)->is_draft_only;
        }
        json_t *o = json_pack("{s:o, s:o, s:o, s:b}", "name",
                              kvplan__json_text(name), "hf_id",
                              kvplan__json_text(kvplan_catalog_hf_id(i)),
                              "architecture", kvplan__json_text(arch),
                              "draft_head", draft);
        kvplan_model_free(m);
        if (json_array_append_new(l, o) != 0) {
            json_decref(l);
            return NULL;
        }
    }
    return l;
}

json_t *kvplan__doc_gpus(void)
{
    json_t *l = json_array();
    kvplan_gpu g;
    for (size_t i = 0; l != NULL && kvplan_gpu_preset_at(i, &g); i++)
        if (json_array_append_new(l, json_pack("{s:s, s:f, s:s}", "name",
                                               g.name, "total_mib", g.total_mib,
                                               "arch", g.arch)) != 0) {
            json_decref(l);
            return NULL;
        }
    return l;
}

/* A value's kind, as an interface reads it. */
static const char *kind_name(const kvplan_option *o)
{
    switch (kvplan__row_of(o)->store) {
    case KVPLAN__STORE_GPU:
        return "gpu";
    case KVPLAN__STORE_HISPARSE:
        return "object";
    case KVPLAN__STORE_VERSION:
        return "version";
    case KVPLAN__STORE_ENGINE:
    case KVPLAN__STORE_KNOB:
    case KVPLAN__STORE_RANK_KEY:
        return "word";
    default:
        break;
    }
    switch (o->type) {
    case KVPLAN_OPTION_INTEGER:
        return "integer";
    case KVPLAN_OPTION_NUMBER:
        return "number";
    case KVPLAN_OPTION_SWITCH:
        return "boolean";
    case KVPLAN_OPTION_WORD:
        return "word";
    case KVPLAN_OPTION_SIZE:
        return "size";
    default:
        return "text";
    }
}

static const char *scope_name(kvplan_option_scope s)
{
    switch (s) {
    case KVPLAN_SCOPE_SGLANG: return "sglang";
    case KVPLAN_SCOPE_KVPLAN: return "kvplan";
    case KVPLAN_SCOPE_ENGINE: return "engine";
    case KVPLAN_SCOPE_QUESTION: return "question";
    case KVPLAN_SCOPE_OUTPUT: return "output";
    }
    return "?";
}

json_t *kvplan__doc_options(void)
{
    json_t *l = json_array();
    const kvplan_option *o;
    for (size_t i = 0; l != NULL && (o = kvplan_option_at(i)) != NULL &&
                       o->type != KVPLAN_OPTION_NOT_READ;
         i++) {
        json_t *words = json_array();
        const char *w;
        for (size_t k = 0; words != NULL && o->type == KVPLAN_OPTION_WORD &&
                           (w = kvplan_word_at((kvplan_word_set)o->words, k,
                                               NULL)) != NULL;
             k++)
            json_array_append_new(words, json_string(w));
        json_t *one = json_pack(
            "{s:s, s:s, s:s, s:b, s:s, s:o, s:o, s:o, s:o, s:o}", "flag",
            o->flag, "key", o->name, "kind", kind_name(o), "sglang",
            o->scope == KVPLAN_SCOPE_SGLANG, "scope", scope_name(o->scope),
            "words", words ? words : json_null(), "help",
            kvplan__json_text(o->help), "vllm",
            o->vllm ? json_string(o->vllm) : json_null(), "trtllm",
            o->trtllm ? json_string(o->trtllm) : json_null(), "question",
            o->question ? json_string(o->question) : json_null());
        if (json_array_append_new(l, one) != 0) {
            json_decref(l);
            return NULL;
        }
    }
    return l;
}

json_t *kvplan__doc_version_info(void)
{
    return json_pack("{s:s, s:i}", "version", kvplan_version(),
                     "version_number", (int)kvplan_version_number());
}
