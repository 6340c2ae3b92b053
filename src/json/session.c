/*
 * session.c: a session of kvplan_json (kvplan_json_session): the models it
 * loaded, kept for the calls that name them again, so that a binding that
 * plans the same model many times pays its load once. Only what cannot
 * change between calls is kept (kvplan__options_reusable: a catalog name,
 * config.json's text, with the same override and draft); the key is every
 * input of the load, byte for byte.
 */
#include "json/request.h"

#include <stdlib.h>
#include <string.h>

#define SESSION_MODELS 8

typedef struct entry {
    char *key; /* the load's inputs, NUL-separated */
    size_t len;
    kvplan_model *model, *draft;
} entry;

struct kvplan_json_session {
    entry entries[SESSION_MODELS];
    size_t next; /* the entry replaced next (round robin) */
};

kvplan_json_session *kvplan_json_session_new(void)
{
    return calloc(1, sizeof(kvplan_json_session));
}

static void drop(entry *e)
{
    free(e->key);
    kvplan_model_free(e->model);
    kvplan_model_free(e->draft);
    memset(e, 0, sizeof *e);
}

void kvplan_json_session_free(kvplan_json_session *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < SESSION_MODELS; i++)
        drop(&s->entries[i]);
    free(s);
}

/* The inputs of a load, as one key (the caller frees it); NULL out of
 * memory. */
static char *key_of(const kvplan_options *o, size_t *len)
{
    const char *parts[4] = {
        o->model_path != NULL ? o->model_path : KVPLAN_DEFAULT_MODEL,
        o->model_override_args != NULL ? o->model_override_args : "",
        o->draft_model_path != NULL ? o->draft_model_path : ""};
    size_t n[4] = {strlen(parts[0]), strlen(parts[1]), strlen(parts[2]),
                   o->model_config != NULL ? o->model_config_len : 0};
    parts[3] = o->model_config != NULL ? o->model_config : "";
    size_t total = n[0] + n[1] + n[2] + n[3] + 4;
    char *key = malloc(total);
    if (key == NULL)
        return NULL;
    size_t at = 0;
    for (int i = 0; i < 4; i++) {
        memcpy(key + at, parts[i], n[i]);
        at += n[i];
        key[at++] = '\0';
    }
    *len = total;
    return key;
}

kvplan_status kvplan__session_load(kvplan_json_session *s, kvplan_options *o,
                                   kvplan_loaded *l, bool *borrowed,
                                   kvplan_error *err)
{
    *borrowed = false;
    if (s == NULL || !kvplan__options_reusable(o))
        return kvplan_options_load(o, l, err);
    size_t len = 0;
    char *key = key_of(o, &len);
    if (key == NULL)
        return kvplan_options_load(o, l, err);
    for (size_t i = 0; i < SESSION_MODELS; i++) {
        entry *e = &s->entries[i];
        if (e->key != NULL && e->len == len && memcmp(e->key, key, len) == 0) {
            free(key);
            *borrowed = true;
            return kvplan__options_load_with(o, l, e->model, e->draft, err);
        }
    }
    kvplan_status st = kvplan_options_load(o, l, err);
    if (st != KVPLAN_OK) {
        free(key);
        return st;
    }
    /* kept: the session owns the models from here */
    entry *e = &s->entries[s->next];
    s->next = (s->next + 1) % SESSION_MODELS;
    drop(e);
    *e = (entry){key, len, l->model, l->draft};
    *borrowed = true;
    return KVPLAN_OK;
}
