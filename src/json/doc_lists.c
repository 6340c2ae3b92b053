/*
 * doc_lists.c: what is built in, as documents: the catalog's models, the
 * GPU presets, the options the library reads (the table's rows, for an
 * interface that builds its form or its keywords from them) and the
 * version.
 */
#include "json/doc.h"

#include "common/option_table.h"

void kvplan__doc_models(kvplan__writer *w)
{
    const char *name;
    kvplan__w_array(w, NULL);
    for (size_t i = 0; (name = kvplan_catalog_name(i)) != NULL; i++) {
        kvplan_model *m = NULL;
        const char *arch = "";
        bool draft = false;
        if (kvplan_model_load(name, &m, NULL) == KVPLAN_OK) {
            arch = kvplan_model_get_info(m)->architecture;
            draft = kvplan_model_get_info(m)->is_draft_only;
        }
        kvplan__w_object(w, NULL);
        kvplan__w_str(w, "name", name);
        kvplan__w_str(w, "hf_id", kvplan_catalog_hf_id(i));
        kvplan__w_str(w, "architecture", arch);
        kvplan__w_bool(w, "draft_head", draft);
        kvplan__w_end(w);
        kvplan_model_free(m);
    }
    kvplan__w_end(w);
}

void kvplan__doc_gpus(kvplan__writer *w)
{
    kvplan_gpu g;
    kvplan__w_array(w, NULL);
    for (size_t i = 0; kvplan_gpu_preset_at(i, &g); i++) {
        kvplan__w_object(w, NULL);
        kvplan__w_str(w, "name", g.name);
        kvplan__w_real(w, "total_mib", g.total_mib);
        kvplan__w_str(w, "arch", g.arch);
        kvplan__w_end(w);
    }
    kvplan__w_end(w);
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
    case KVPLAN__STORE_VLLM_VERSION:
    case KVPLAN__STORE_TRTLLM_VERSION:
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
    case KVPLAN_SCOPE_SGLANG:
        return "sglang";
    case KVPLAN_SCOPE_KVPLAN:
        return "kvplan";
    case KVPLAN_SCOPE_ENGINE:
        return "engine";
    case KVPLAN_SCOPE_QUESTION:
        return "question";
    case KVPLAN_SCOPE_OUTPUT:
        return "output";
    }
    return "?";
}

void kvplan__doc_options(kvplan__writer *w)
{
    const kvplan_option *o;
    kvplan__w_array(w, NULL);
    for (size_t i = 0;
         (o = kvplan_option_at(i)) != NULL && o->type != KVPLAN_OPTION_NOT_READ;
         i++) {
        kvplan__w_object(w, NULL);
        kvplan__w_str(w, "flag", o->flag);
        kvplan__w_str(w, "key", o->name);
        kvplan__w_str(w, "kind", kind_name(o));
        kvplan__w_bool(w, "sglang", o->scope == KVPLAN_SCOPE_SGLANG);
        kvplan__w_str(w, "scope", scope_name(o->scope));
        kvplan__w_array(w, "words");
        const char *word;
        for (size_t k = 0; o->type == KVPLAN_OPTION_WORD &&
                           (word = kvplan_word_at((kvplan_word_set)o->words, k,
                                                  NULL)) != NULL;
             k++)
            kvplan__w_str(w, NULL, word);
        kvplan__w_end(w);
        kvplan__w_str(w, "help", o->help);
        kvplan__w_str(w, "vllm", o->vllm);
        kvplan__w_str(w, "trtllm", o->trtllm);
        kvplan__w_str(w, "question", o->question);
        kvplan__w_bool(w, "sweep", o->sweep);
        kvplan__w_end(w);
    }
    kvplan__w_end(w);
}

void kvplan__doc_version_info(kvplan__writer *w)
{
    kvplan__w_object(w, NULL);
    kvplan__w_str(w, "version", kvplan_version());
    kvplan__w_int(w, "version_number", (int64_t)kvplan_version_number());
    kvplan__w_end(w);
}
