/*
 * layers.c: which layers hold which cache: the sliding and full layers of a
 * hybrid SWA model (docs/sglang-rules.md §1.9), the attention layers of a
 * mamba / linear-attention hybrid (§1.10), and MiniMax's dense, sparse and
 * k-only indexer layers (§2.3), and the DSA layers that compute their own
 * top-k (later sglang, docs/versions.md). Global ids, ascending.
 */
#include "model/model.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* §1.9: hybrid SWA layer ids. */
kvplan_status kvplan__derive_swa_ids(kvplan_model *m, const kvplan__view *v)
{
    int64_t n = m->info.num_hidden_layers;
    const char *a = m->arch;
    int layout = m->swa_layout; /* the registry's rule for the class */
    kvplan_status st;
    if (layout == KVPLAN__SWA_EVERY_FOURTH) {
        /* chunked attention on 3 of 4 layers, global on every 4th */
        if ((st = kvplan__alloc_ids(&m->swa_ids, (size_t)n, v->err)) !=
                KVPLAN_OK ||
            (st = kvplan__alloc_ids(&m->full_ids, (size_t)n, v->err)) !=
                KVPLAN_OK)
            return st;
        size_t s = 0, f = 0;
        for (int64_t i = 0; i < n; i++) {
            if ((i + 1) % 4 != 0)
                m->swa_ids.ids[s++] = i;
            else
                m->full_ids.ids[f++] = i;
        }
        m->swa_ids.count = s;
        m->full_ids.count = f;
        return KVPLAN_OK;
    }
    if (layout == KVPLAN__SWA_ONE_LAYER) {
        if ((st = kvplan__alloc_ids(&m->swa_ids, 1, v->err)) != KVPLAN_OK)
            return st;
        m->swa_ids.ids[0] = 0;
        return KVPLAN_OK;
    }
    if (layout == KVPLAN__SWA_ALL) {
        if ((st = kvplan__alloc_ids(&m->swa_ids, (size_t)n, v->err)) !=
            KVPLAN_OK)
            return st;
        for (int64_t i = 0; i < n; i++)
            m->swa_ids.ids[i] = i;
        return KVPLAN_OK;
    }
    const json_t *pattern = kvplan__tget(v, "hybrid_layer_pattern");
    if (pattern != NULL && (layout == KVPLAN__SWA_PATTERN ||
                            kvplan__tget(v, "layer_types") == NULL)) {
        json_int_t one = 1;
        if ((st = kvplan__ids_where(v, pattern, "hybrid_layer_pattern",
                                    (size_t)n, kvplan__pick_int, &one,
                                    &m->swa_ids)) != KVPLAN_OK)
            return st;
        return kvplan__ids_where(v, pattern, "hybrid_layer_pattern", (size_t)n,
                                 kvplan__pick_zero, NULL, &m->full_ids);
    }
    const json_t *types = kvplan__tget(v, "layer_types");
    if (types == NULL && layout == KVPLAN__SWA_ALTERNATE) {
        /* GptOssConfig's default: sliding on even layers, full on odd */
        if ((st = kvplan__alloc_ids(&m->swa_ids, (size_t)(n + 1) / 2,
                                    v->err)) != KVPLAN_OK ||
            (st = kvplan__alloc_ids(&m->full_ids, (size_t)n / 2, v->err)) !=
                KVPLAN_OK)
            return st;
        for (int64_t i = 0; i < n; i++) {
            if (i % 2 == 0)
                m->swa_ids.ids[i / 2] = i;
            else
                m->full_ids.ids[i / 2] = i;
        }
        return KVPLAN_OK;
    }
    if (types == NULL)
        return kvplan__fail_at(
            v->err, KVPLAN_PARSE, v, true, "layer_types",
            "required for a hybrid sliding-window %s, but absent", a);
    if ((st = kvplan__ids_where(v, types, "layer_types", (size_t)n,
                                kvplan__pick_string, "sliding_attention",
                                &m->swa_ids)) != KVPLAN_OK)
        return st;
    return kvplan__ids_where(v, types, "layer_types", (size_t)n,
                             kvplan__pick_string, "full_attention",
                             &m->full_ids);
}

/* The sliding layers as transformers' config classes name them, for the
 * engines that honour them where sglang does not (vLLM; docs/engines.md):
 * layer_types' "sliding_attention", else the class default, sliding
 * where (i + 1) % pattern != 0 (Gemma2 2, Gemma3 6, Cohere2 4). Empty
 * without a positive sliding_window. */
kvplan_status kvplan__derive_hf_swa_ids(kvplan_model *m, const kvplan__view *v,
                                        int64_t window)
{
    if (window <= 0)
        return KVPLAN_OK;
    const json_t *types = kvplan__tget(v, "layer_types");
    if (json_is_array(types))
        return kvplan__ids_where(
            v, types, "layer_types", (size_t)m->info.num_hidden_layers,
            kvplan__pick_string, "sliding_attention", &m->hf_swa_ids);
    const char *mt = v->model_type ? v->model_type : "";
    int64_t deflt = strcmp(mt, "gemma2") == 0       ? 2
                    : strncmp(mt, "gemma3", 6) == 0 ? 6
                    : strcmp(mt, "cohere2") == 0    ? 4
                                                    : 0;
    if (deflt == 0)
        return KVPLAN_OK;
    int64_t pattern = kvplan__tint_or(v, "sliding_window_pattern", deflt);
    if (pattern <= 1)
        return KVPLAN_OK;
    int64_t n = m->info.num_hidden_layers;
    kvplan_status st = kvplan__alloc_ids(&m->hf_swa_ids, (size_t)n, v->err);
    if (st != KVPLAN_OK)
        return st;
    size_t k = 0;
    for (int64_t i = 0; i < n; i++)
        if ((i + 1) % pattern != 0)
            m->hf_swa_ids.ids[k++] = i;
    m->hf_swa_ids.count = k;
    return KVPLAN_OK;
}

/* §1.10: the attention layers of a mamba / linear-attention hybrid; false
 * when the model is not one. */
kvplan_status kvplan__derive_mambaish(kvplan_model *m, const kvplan__view *v,
                                      bool *is_mambaish)
{
    const char *mt = v->model_type ? v->model_type : "";
    int64_t n = m->info.num_hidden_layers;
    kvplan_status st;
    *is_mambaish = true;
    if (strcmp(mt, "nemotron_h") == 0) {
        const json_t *p = kvplan__tget(v, "hybrid_override_pattern");
        if (json_is_string(p)) {
            const char *s = json_string_value(p);
            size_t len = strlen(s), k = 0;
            if ((st = kvplan__alloc_ids(&m->mamba_full_ids, len, v->err)) !=
                KVPLAN_OK)
                return st;
            for (size_t i = 0; i < len; i++)
                if (s[i] == '*')
                    m->mamba_full_ids.ids[k++] = (int64_t)i;
            m->mamba_full_ids.count = k;
            return KVPLAN_OK;
        }
        const json_t *blocks = kvplan__tget(v, "layers_block_type");
        if (blocks != NULL)
            return kvplan__ids_where(v, blocks, "layers_block_type", SIZE_MAX,
                                     kvplan__pick_string, "attention",
                                     &m->mamba_full_ids);
        return kvplan__fail_at(
            v->err, KVPLAN_PARSE, v, true, "hybrid_override_pattern",
            "required for Nemotron-H (or layers_block_type), but "
            "absent");
    }
    if (strcmp(mt, "falcon_h1") == 0) {
        if ((st = kvplan__alloc_ids(&m->mamba_full_ids, (size_t)n, v->err)) !=
            KVPLAN_OK)
            return st;
        for (int64_t i = 0; i < n; i++)
            m->mamba_full_ids.ids[i] = i;
        return KVPLAN_OK;
    }
    if (strcmp(mt, "qwen3_next") == 0 || strncmp(mt, "qwen3_5", 7) == 0) {
        /* every full_attention_interval-th layer; layer_types is ignored */
        kvplan_opt_int every;
        if ((st = kvplan__tint(v, "full_attention_interval", &every)) !=
            KVPLAN_OK)
            return st;
        if (!every.set || every.value <= 0)
            return kvplan__fail_at(v->err, KVPLAN_PARSE, v, true,
                                   "full_attention_interval",
                                   "expected a positive integer");
        if ((st = kvplan__alloc_ids(&m->mamba_full_ids, (size_t)n, v->err)) !=
            KVPLAN_OK)
            return st;
        size_t k = 0;
        for (int64_t i = 0; i < n; i++)
            if ((i + 1) % every.value == 0)
                m->mamba_full_ids.ids[k++] = i;
        m->mamba_full_ids.count = k;
        return KVPLAN_OK;
    }
    if (strncmp(mt, "lfm2", 4) == 0) {
        const json_t *types = kvplan__tget(v, "layer_types");
        if (types == NULL)
            return KVPLAN_OK; /* Lfm2Moe without layer_types: no layer */
        return kvplan__ids_where(v, types, "layer_types", SIZE_MAX,
                                 kvplan__pick_string, "full_attention",
                                 &m->mamba_full_ids);
    }
    if (strcmp(mt, "granitemoehybrid") == 0) {
        const json_t *types = kvplan__tget(v, "layer_types");
        size_t i;
        const json_t *e;
        bool any_mamba = false;
        json_array_foreach(types, i, e) any_mamba |=
            kvplan__pick_string(e, "mamba");
        if (any_mamba)
            return kvplan__ids_where(v, types, "layer_types", SIZE_MAX,
                                     kvplan__pick_string, "attention",
                                     &m->mamba_full_ids);
    }
    if (strcmp(mt, "kimi_linear") == 0) {
        /* layers whose 1-based number is not a KDA layer */
        const json_t *kda =
            kvplan__get(kvplan__tget(v, "linear_attn_config"), "kda_layers");
        if ((st = kvplan__alloc_ids(&m->mamba_full_ids, (size_t)n, v->err)) !=
            KVPLAN_OK)
            return st;
        /* one pass over kda_layers marks the linear layers (a layer may
         * be listed twice), one over the layers collects the others:
         * linear in both, where a scan per layer was quadratic */
        unsigned char *linear = calloc((size_t)n > 0 ? (size_t)n : 1, 1);
        if (linear == NULL)
            return kvplan__fail(v->err, KVPLAN_NOMEM, NULL, "out of memory");
        size_t j;
        const json_t *e;
        json_array_foreach(kda, j, e)
        {
            json_int_t x = json_is_integer(e) ? json_integer_value(e) : 0;
            if (x >= 1 && x <= n)
                linear[x - 1] = 1;
        }
        size_t k = 0;
        for (int64_t i = 0; i < n; i++)
            if (!linear[i])
                m->mamba_full_ids.ids[k++] = i;
        free(linear);
        m->mamba_full_ids.count = k;
        return KVPLAN_OK;
    }
    *is_mambaish = false;
    return KVPLAN_OK;
}

/* §2.3: MiniMax sparse layer ids from sparse_attention_config. */
kvplan_status kvplan__derive_minimax(kvplan_model *m, const kvplan__view *v)
{
    const json_t *cfg = kvplan__tget(v, "sparse_attention_config");
    if (cfg == NULL)
        cfg = kvplan__get(v->top, "sparse_attention_config");
    if (!json_is_object(cfg))
        return kvplan__fail_at(
            v->err, KVPLAN_PARSE, v, true, "sparse_attention_config",
            "required for MiniMax sparse attention, but absent");
    kvplan__view sv = *v;
    snprintf(sv.text_path, sizeof sv.text_path, "%.60s/sparse_attention_config",
             v->text_path);
    sv.text = cfg;
    sv.model_type = NULL;
    const json_t *freq = kvplan__get(cfg, "sparse_attention_freq");
    if (freq == NULL)
        return kvplan__fail_at(v->err, KVPLAN_PARSE, &sv, true,
                               "sparse_attention_freq", "required, but absent");
    kvplan_status st;
    if ((st = kvplan__ids_where(&sv, freq, "sparse_attention_freq", SIZE_MAX,
                                kvplan__pick_zero, NULL, &m->minimax_dense)) !=
            KVPLAN_OK ||
        (st = kvplan__ids_where(&sv, freq, "sparse_attention_freq", SIZE_MAX,
                                kvplan__pick_nonzero, NULL,
                                &m->minimax_sparse)) != KVPLAN_OK)
        return st;
    const json_t *k_only = kvplan__get(cfg, "sparse_disable_index_value");
    if (k_only != NULL &&
        (st = kvplan__ids_where(&sv, k_only, "sparse_disable_index_value",
                                SIZE_MAX, kvplan__pick_nonzero, NULL,
                                &m->minimax_k_only)) != KVPLAN_OK)
        return st;
    if ((st = kvplan__tint(&sv, "sparse_index_dim", &m->minimax_index_dim)) !=
        KVPLAN_OK)
        return st;
    if (!m->minimax_index_dim.set)
        return kvplan__fail_at(v->err, KVPLAN_PARSE, &sv, true,
                               "sparse_index_dim", "required, but absent");
    return KVPLAN_OK;
}

/* One entry of a top-k schedule as later sglang reads it: 1 computes its
 * top-k ("f", "full", "compute"), 0 reuses the previous layer's ("s",
 * "shared", "skip"), -1 says nothing (empty), -2 is not a word it takes. */
static int topk_entry(const json_t *e, char c)
{
    char word[16] = "";
    if (e != NULL && json_is_string(e))
        snprintf(word, sizeof word, "%s", json_string_value(e));
    else if (e == NULL)
        word[0] = c, word[1] = '\0';
    else
        return -2;
    char *s = word, *end;
    while (*s == ' ')
        s++;
    for (end = s; *end; end++)
        *end = (char)tolower((unsigned char)*end);
    while (end > s && end[-1] == ' ')
        *--end = '\0';
    if (!strcmp(s, "f") || !strcmp(s, "full") || !strcmp(s, "compute"))
        return 1;
    if (!strcmp(s, "s") || !strcmp(s, "shared") || !strcmp(s, "skip"))
        return 0;
    return *s == '\0' ? -1 : -2;
}

kvplan_status kvplan__derive_dsa_topk(kvplan_model *m, const kvplan__view *v)
{
    const json_t *types = kvplan__tget(v, "indexer_types");
    const json_t *pattern = kvplan__tget(v, "index_topk_pattern");
    const char *key =
        json_is_array(types) ? "indexer_types" : "index_topk_pattern";
    if (!json_is_array(types))
        types = NULL;
    if (!json_is_array(pattern) && !json_is_string(pattern))
        pattern = NULL;
    int64_t freq = kvplan__tint_or(v, "index_topk_freq", 1);
    kvplan_opt_int offset = {0, false};
    kvplan_status st = kvplan__tint(v, "index_skip_topk_offset", &offset);
    if (st != KVPLAN_OK)
        return st;
    if (types == NULL && pattern == NULL && freq <= 1)
        return KVPLAN_OK; /* every layer computes its top-k */
    if (offset.set && offset.value <= 0 && freq > 1)
        return kvplan__fail_at(
            v->err, KVPLAN_PARSE, v, true, "index_skip_topk_offset",
            "must be positive, got %lld", (long long)offset.value);
    int64_t n = m->info.num_hidden_layers;
    if ((st = kvplan__alloc_ids(&m->dsa_topk_ids, (size_t)n, v->err)) !=
        KVPLAN_OK)
        return st;
    size_t k = 0;
    const char *text =
        json_is_string(pattern) ? json_string_value(pattern) : NULL;
    for (int64_t i = 0; i < n; i++) {
        int t = -1;
        if (types != NULL && (size_t)i < json_array_size(types))
            t = topk_entry(json_array_get(types, (size_t)i), 0);
        else if (types == NULL && text != NULL && (size_t)i < strlen(text))
            t = topk_entry(NULL, text[i]);
        else if (types == NULL && json_is_array(pattern) &&
                 (size_t)i < json_array_size(pattern))
            t = topk_entry(json_array_get(pattern, (size_t)i), 0);
        if (t == -2)
            return kvplan__fail_at(v->err, KVPLAN_PARSE, v, true, key,
                                   "layer %lld: sglang takes \"full\" or "
                                   "\"shared\" (f, s, compute, skip)",
                                   (long long)i);
        bool computes;
        if (t >= 0)
            computes = t == 1;
        else if (freq <= 1)
            computes = true;
        else if (offset.set)
            computes = kvplan__max(i - offset.value + 1, 0) % freq == 0;
        else
            computes = kvplan__max(i - 1, 0) % freq == 0;
        if (computes)
            m->dsa_topk_ids.ids[k++] = i;
    }
    m->dsa_topk_ids.count = k;
    m->dsa_topk_schedule = true;
    return KVPLAN_OK;
}
