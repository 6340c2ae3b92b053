/*
 * cache.c: the front of a plan kept in its model handle. A plan's front
 * (the flags resolved against the GPU and the model, every stage's rank,
 * the weights) depends on the options and the model only, not on the
 * fraction's value; a sweep over TP sizes or GPUs asks the same fronts
 * again and again, and the front is two thirds of a plan. So
 * kvplan_plan_compute keeps the last few fronts of each model, keyed by
 * the whole options but mem_fraction_static's value (their strings by
 * content, not by pointer), and a plan whose key is kept starts from the
 * kept front: the fraction and the back of the pipeline run as always
 * (each stage's configurator, built from its rank alone, kept too once a
 * back has built it), and the plan is the one a fresh front gives, bit for
 * bit.
 *
 * The weight estimates of the model's own shape are kept the same way
 * (the last 8 requests: TP, layers, dtype, quantization), for the plans
 * whose front is not kept: a fit's probes change the context length only.
 *
 * The cache is allocated with the model (a plan allocates nothing) and
 * shared by the threads that plan with it, under one mutex for all models
 * (a plan holds it for a lookup and a copy). Not kept: plans with a draft
 * model (a pointer the key cannot read through), more than 2 pipeline
 * stages, or strings longer than the key's room.
 */
#include "plan/plan.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define KVPLAN__FRONTS 4       /* kept per model, the oldest replaced */
#define KVPLAN__FRONT_STAGES 2 /* the most stages a kept front has */
#define KVPLAN__FRONT_TEXT 512 /* the options' strings, with their NULs */

typedef kvplan__front_key front_key;

typedef struct kept_front {
    uint64_t age; /* 0: empty */
    front_key key;
    bool ovf;        /* the pipeline's, after the front */
    bool configured; /* the stages' configurators built (a back ran) */
    /* the plan after the front: its header, budget and stages */
    size_t num_stages;
    unsigned char header[offsetof(kvplan_plan, warnings)];
    kvplan_budget budget;
    kvplan_stage_plan stages[KVPLAN__FRONT_STAGES];
} kept_front;

/* What a weight estimate reads of its request (the shape is the model's):
 * zeroed, then filled, so that it compares as bytes. */
typedef struct weights_key {
    double dtype_bytes, start_layer, end_layer;
    int64_t tp, attn_tp;
    int32_t mx_inter, mx_hidden;
    bool dp_attention, first_stage, last_stage, quantization_set;
    char quantization[48];
} weights_key;

#define KVPLAN__WEIGHTS 8 /* estimates kept per model */

typedef struct kept_weights {
    uint64_t age; /* 0: empty */
    weights_key key;
    kvplan__weights_estimate_out out; /* its tensors: `tensors` */
    kvplan_weight_tensor tensors[KVPLAN_MAX_WEIGHT_TENSORS];
} kept_weights;

struct kvplan__plan_cache {
    uint64_t clock;
    kept_front fronts[KVPLAN__FRONTS];
    kept_weights weights[KVPLAN__WEIGHTS];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

struct kvplan__plan_cache *kvplan__plan_cache_new(void)
{
    return calloc(1, sizeof(struct kvplan__plan_cache));
}

void kvplan__plan_cache_free(struct kvplan__plan_cache *c)
{
    free(c);
}

/* One string into the key's text (NULL as a lone 0xff, apart from ""). */
static bool add_text(front_key *k, const char *s)
{
    size_t n = s != NULL ? strlen(s) + 1 : 1;
    if (n > sizeof k->text - k->text_len)
        return false;
    if (s != NULL)
        memcpy(k->text + k->text_len, s, n);
    else
        k->text[k->text_len] = (char)0xff;
    k->text_len += n;
    return true;
}

/* A given fraction over the rule's: true when one is given. All that the
 * fraction's value changes in the budget before the back (a kept front,
 * cache.c, has the rest). sglang multiplies a given fraction by the aiter
 * backend's factor too (b->aiter_factor, the rule's), unless it is the
 * value a log printed after that (`rules` of the plan's sglang). */
bool kvplan__fraction_given(const kvplan_plan_options *o, uint64_t rules,
                            kvplan_budget *b)
{
    if (!o->mem_fraction_static.set)
        return false;
    if (o->mem_fraction_printed && !(rules & KVPLAN_RULE_AITER_IN_MODEL_RUNNER))
        b->aiter_factor = 1;
    b->vision_factor = 1;
    b->mem_fraction_static = o->mem_fraction_static.value;
    if (b->aiter_factor != 1)
        b->mem_fraction_static *= b->aiter_factor;
    return true;
}

/* The key reads the options' eight strings by content and refuses the
 * draft model (a pointer it cannot read through); every other field is
 * compared as bytes. A new field must be one or the other. */
#if defined(__LP64__) /* the sizes of 64-bit pointers */
_Static_assert(sizeof(kvplan_plan_options) == 784 &&
                   sizeof(kvplan_server_args) == 280,
               "the options changed: a new pointer must be read by content "
               "in kvplan__front_key_of");
#endif

bool kvplan__front_key_of(const kvplan_plan_options *o, front_key *k)
{
    if (o->server.speculative_draft_model != NULL ||
        o->server.pp_size > KVPLAN__FRONT_STAGES || o->server.pp_size < 1)
        return false;
    k->o = *o;
    k->text_len = 0;
    const char **strs[] = {&k->o.model_path,
                           &k->o.attention_backend,
                           &k->o.quantization,
                           &k->o.moe_a2a_backend,
                           &k->o.mamba_ssm_dtype,
                           &k->o.SGLANG_MAMBA_SSM_DTYPE,
                           &k->o.server.SGLANG_PP_LAYER_PARTITION,
                           &k->o.server.SGLANG_DSV4_COMPRESS_STATE_DTYPE};
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        if (!add_text(k, *strs[i]))
            return false;
        *strs[i] = NULL;
    }
    k->o.mem_fraction_static.value = 0;
    return true;
}

static bool same(const front_key *a, const front_key *b)
{
    return a->text_len == b->text_len &&
           memcmp(&a->o, &b->o, sizeof a->o) == 0 &&
           memcmp(a->text, b->text, a->text_len) == 0;
}

/* A budget's bytes up to its last weight tensor: what a front holds. */
static size_t budget_used(const kvplan_budget *b)
{
    return offsetof(kvplan_budget, weight_tensors) +
           b->num_weight_tensors * sizeof b->weight_tensors[0];
}

int kvplan__front_restore(const kvplan_model *m, const front_key *k,
                          const kvplan_plan_options *o, kvplan__pipeline *p,
                          kvplan_plan *out)
{
    struct kvplan__plan_cache *c = m->plan_cache;
    if (c == NULL)
        return 0;
    bool hit = false, configured = false;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < KVPLAN__FRONTS && !hit; i++) {
        kept_front *f = &c->fronts[i];
        if (f->age == 0 || !same(&f->key, k))
            continue;
        hit = true;
        f->age = ++c->clock;
        memcpy(out, f->header, sizeof f->header);
        memcpy(&out->budget, &f->budget, budget_used(&f->budget));
        out->num_warnings = 0;
        out->binding_stage = 0;
        out->num_stages = f->num_stages;
        memcpy(out->stages, f->stages, f->num_stages * sizeof f->stages[0]);
        p->ovf = f->ovf;
        configured = f->configured;
    }
    pthread_mutex_unlock(&lock);
    if (!hit)
        return 0;
    /* the strings the front points to: this call's (the same text) */
    kvplan_server_args *s = &out->resolved;
    s->SGLANG_PP_LAYER_PARTITION = o->server.SGLANG_PP_LAYER_PARTITION;
    s->SGLANG_DSV4_COMPRESS_STATE_DTYPE =
        o->server.SGLANG_DSV4_COMPRESS_STATE_DTYPE;
    for (size_t i = 0; i < out->num_stages; i++)
        out->stages[i].rank.env.SGLANG_DSV4_COMPRESS_STATE_DTYPE =
            o->server.SGLANG_DSV4_COMPRESS_STATE_DTYPE;
    return configured ? 2 : 1;
}

void kvplan__front_keep(const kvplan_model *m, const front_key *k,
                        const kvplan__pipeline *p, const kvplan_plan *out)
{
    struct kvplan__plan_cache *c = m->plan_cache;
    if (c == NULL || out->num_stages > KVPLAN__FRONT_STAGES)
        return;
    pthread_mutex_lock(&lock);
    kept_front *f = &c->fronts[0];
    for (size_t i = 1; i < KVPLAN__FRONTS; i++)
        if (c->fronts[i].age < f->age)
            f = &c->fronts[i];
    f->age = ++c->clock;
    f->key.o = k->o; /* the text as long as it is */
    f->key.text_len = k->text_len;
    memcpy(f->key.text, k->text, k->text_len);
    f->ovf = p->ovf;
    f->configured = false;
    f->num_stages = out->num_stages;
    memcpy(f->header, out, sizeof f->header);
    memcpy(&f->budget, &out->budget, budget_used(&out->budget));
    memcpy(f->stages, out->stages, out->num_stages * sizeof out->stages[0]);
    pthread_mutex_unlock(&lock);
}

void kvplan__front_configured(const kvplan_model *m, const front_key *k,
                              const kvplan_plan *out)
{
    struct kvplan__plan_cache *c = m->plan_cache;
    if (c == NULL)
        return;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < KVPLAN__FRONTS; i++) {
        kept_front *f = &c->fronts[i];
        if (f->age == 0 || f->configured || f->num_stages != out->num_stages ||
            !same(&f->key, k))
            continue;
        for (size_t s = 0; s < out->num_stages; s++)
            f->stages[s].configurator = out->stages[s].configurator;
        f->configured = true;
        break;
    }
    pthread_mutex_unlock(&lock);
}

/* The key of a request on the model's own shape; false when it is not
 * kept (another shape: a draft's; a quantization name past the room). */
static bool weights_key_of(const kvplan_model *m,
                           const kvplan__weights_request *rq, weights_key *k)
{
    memset(k, 0, sizeof *k);
    /* a parameter count is not kept (the kept estimates have none) */
    if (rq->shape != &m->weights || rq->params ||
        (rq->quantization != NULL &&
         strlen(rq->quantization) >= sizeof k->quantization))
        return false;
    k->dtype_bytes = rq->dtype_bytes;
    k->start_layer = rq->start_layer;
    k->end_layer = rq->end_layer;
    k->tp = rq->tp;
    k->attn_tp = rq->attn_tp;
    k->mx_inter = rq->mx_inter;
    k->mx_hidden = rq->mx_hidden;
    k->dp_attention = rq->dp_attention;
    k->first_stage = rq->first_stage;
    k->last_stage = rq->last_stage;
    k->quantization_set = rq->quantization != NULL;
    if (rq->quantization != NULL)
        strcpy(k->quantization, rq->quantization);
    return true;
}

/* An estimate into the caller's `out`: its tensors into `want` when the
 * caller asked for them, else none counted (as an estimate that records
 * none). */
static void hand_out(kvplan__weights_estimate_out *out,
                     const kvplan__weights_estimate_out *kept,
                     const kvplan_weight_tensor *tensors,
                     kvplan_weight_tensor *want)
{
    *out = *kept;
    out->tensors = want;
    if (want != NULL)
        memcpy(want, tensors, kept->num_tensors * sizeof *want);
    else
        out->num_tensors = 0;
}

void kvplan__weights_estimate_kept(const kvplan_model *m,
                                   const kvplan__weights_request *rq,
                                   kvplan__weights_estimate_out *out)
{
    struct kvplan__plan_cache *c = m->plan_cache;
    kvplan_weight_tensor *want = out->tensors;
    weights_key k;
    if (c == NULL || !weights_key_of(m, rq, &k)) {
        kvplan__weights_estimate(rq, out);
        return;
    }
    bool hit = false;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < KVPLAN__WEIGHTS && !hit; i++) {
        kept_weights *w = &c->weights[i];
        if (w->age == 0 || memcmp(&w->key, &k, sizeof k) != 0)
            continue;
        hit = true;
        w->age = ++c->clock;
        hand_out(out, &w->out, w->tensors, want);
    }
    pthread_mutex_unlock(&lock);
    if (hit)
        return;
    /* estimated outside the lock, every tensor recorded, then kept */
    kvplan_weight_tensor tensors[KVPLAN_MAX_WEIGHT_TENSORS];
    kvplan__weights_estimate_out fresh = {.tensors = tensors};
    kvplan__weights_estimate(rq, &fresh);
    pthread_mutex_lock(&lock);
    kept_weights *w = &c->weights[0];
    for (size_t i = 1; i < KVPLAN__WEIGHTS; i++)
        if (c->weights[i].age < w->age)
            w = &c->weights[i];
    w->age = ++c->clock;
    w->key = k;
    w->out = fresh;
    w->out.tensors = NULL;
    memcpy(w->tensors, tensors, fresh.num_tensors * sizeof tensors[0]);
    pthread_mutex_unlock(&lock);
    hand_out(out, &fresh, tensors, want);
}
