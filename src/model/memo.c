/*
 * memo.c: the catalog's models, read once per process. A catalog config
 * never changes, so the first load of an entry keeps its model (parsed
 * and derived, ~20 µs, up to ~0.5 ms for the largest config) and every
 * later load is a copy of it (~1 µs): an embedder or a binding that loads
 * a model for each question no longer parses its JSON each time.
 *
 * The kept models are built under a mutex and published with a release
 * store; a load reads them with an acquire load and copies, so threads
 * share them without a race. They are never changed or freed (at most one
 * per catalog entry, reachable to the end). Loads with overrides and
 * entries that fail to load are not kept.
 */
#include "model/catalog.h"
#include "model/model.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Room for this many entries; an entry past it is loaded each time. */
#define KVPLAN__MEMO_ENTRIES 512

static _Atomic(const kvplan_model *) kept[KVPLAN__MEMO_ENTRIES];
static pthread_mutex_t keeping = PTHREAD_MUTEX_INITIALIZER;

static bool copy_ids(id_list *to, const id_list *from)
{
    to->ids = NULL;
    if (from->ids == NULL || from->count == 0)
        return true;
    to->ids = malloc(from->count * sizeof *to->ids);
    if (to->ids == NULL)
        return false;
    memcpy(to->ids, from->ids, from->count * sizeof *to->ids);
    return true;
}

kvplan_status kvplan__model_copy(const kvplan_model *src, kvplan_model **out,
                                 kvplan_error *err)
{
    kvplan_model *m = malloc(sizeof *m);
    if (m == NULL)
        return kvplan__fail(err, KVPLAN_NOMEM, NULL, "out of memory");
    *m = *src;
    m->plan_cache = NULL; /* the copy's own, made below */
    char **strs[KVPLAN__MODEL_STRINGS];
    id_list *lists[KVPLAN__MODEL_ID_LISTS];
    kvplan__model_owned(m, strs, lists);
    bool ok = true;
    for (size_t i = 0; i < KVPLAN__MODEL_STRINGS; i++) {
        const char *s = *strs[i];
        *strs[i] = NULL;
        ok &= s == NULL || (*strs[i] = kvplan__dup_str(s)) != NULL;
    }
    for (size_t i = 0; i < KVPLAN__MODEL_ID_LISTS; i++) {
        /* src's list at the same place in its struct */
        const id_list *from =
            (const id_list *)((const char *)src +
                              ((const char *)lists[i] - (const char *)m));
        ok &= copy_ids(lists[i], from);
    }
    m->info.name = m->name;
    m->info.hf_id = m->hf_id;
    m->info.architecture = m->arch;
    m->info.model_type = m->model_type;
    if (!ok) {
        kvplan_model_free(m);
        return kvplan__fail(err, KVPLAN_NOMEM, NULL, "out of memory");
    }
    m->plan_cache = kvplan__plan_cache_new(); /* NULL: plans keep nothing */
    *out = m;
    return kvplan__ok(err);
}

kvplan_status kvplan__catalog_load(const kvplan__catalog_entry *e,
                                   kvplan_model **out, kvplan_error *err)
{
    size_t i = (size_t)(e - kvplan__catalog);
    if (i >= KVPLAN__MEMO_ENTRIES)
        return kvplan__model_load_text((const char *)e->json, e->json_size,
                                       e->name, e->name, e->hf_id, NULL, NULL,
                                       out, err);
    const kvplan_model *m =
        atomic_load_explicit(&kept[i], memory_order_acquire);
    if (m == NULL) {
        kvplan_model *fresh = NULL;
        kvplan_status st = KVPLAN_OK;
        pthread_mutex_lock(&keeping);
        m = atomic_load_explicit(&kept[i], memory_order_relaxed);
        if (m == NULL) {
            st = kvplan__model_load_text((const char *)e->json, e->json_size,
                                         e->name, e->name, e->hf_id, NULL, NULL,
                                         &fresh, err);
            if (st == KVPLAN_OK)
                atomic_store_explicit(&kept[i], fresh, memory_order_release);
            m = fresh;
        }
        pthread_mutex_unlock(&keeping);
        if (st != KVPLAN_OK)
            return st;
    }
    return kvplan__model_copy(m, out, err);
}
