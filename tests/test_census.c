/*
 * test_census.c: kvplan_model_parameters against transformers' own model
 * classes. tests/data/reference/transformers-census.jsonl counts the
 * parameters of each catalog config as transformers 5.17 builds it on the
 * meta device (tests/data/reference/README.md). For every config it
 * covers, kvplan's count is within 0.5 % of it, the LM head is there
 * exactly when the census says the model is untied, and the exceptions
 * are the table below, each with its reason. Where the census built a
 * ...ForCausalLM of a multimodal model (no vision tower in its split),
 * kvplan's text model is compared.
 *
 *   test_census CENSUS.jsonl
 */
#include "check.h"
#include "kvplan.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The configs kvplan does not count, and why. */
static const struct {
    const char *model;
    kvplan_status status; /* kvplan_model_load's */
    const char *why;
} exceptions[] = {
    {"jamba-tiny-random", KVPLAN_UNSUPPORTED,
     "sglang has no Jamba model class: kvplan refuses the model"},
    {"jamba-v0.1", KVPLAN_UNSUPPORTED,
     "sglang has no Jamba model class: kvplan refuses the model"},
};

static const char *exception_for(const char *model, kvplan_status *status)
{
    for (size_t i = 0; i < sizeof exceptions / sizeof exceptions[0]; i++)
        if (strcmp(exceptions[i].model, model) == 0) {
            *status = exceptions[i].status;
            return exceptions[i].why;
        }
    return NULL;
}

static int64_t member(const json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

/* One census line: 1 when compared, 0 when the census could not build it
 * or the table excepts it. */
static int compare(const json_t *row, double *worst)
{
    const char *name = json_string_value(json_object_get(row, "model"));
    const json_t *split = json_object_get(row, "split");
    CHECK(name != NULL);
    if (name == NULL || json_object_get(row, "error") != NULL)
        return 0; /* custom code, or a type this transformers lacks */
    kvplan_status want = KVPLAN_OK;
    const char *why = exception_for(name, &want);
    kvplan_model *m = NULL;
    kvplan_error err;
    kvplan_status st = kvplan_model_load(name, &m, &err);
    if (why != NULL) {
        CHECK_INT(st, want);
        kvplan_model_free(m);
        printf("  %-40s excepted: %s\n", name, why);
        return 0;
    }
    CHECK_INT(st, KVPLAN_OK);
    if (st != KVPLAN_OK) {
        fprintf(stderr, "  %s: %s\n", name, err.message);
        return 0;
    }
    kvplan_model_params p;
    CHECK_INT(kvplan_model_parameters(m, &p, &err), KVPLAN_OK);
    kvplan_model_free(m);
    int64_t census = member(row, "params");
    /* the census's class built no vision tower: the text model */
    int64_t mine =
        json_object_get(split, "vision") != NULL ? p.total : p.total - p.vision;
    double off = 100.0 * (double)(mine - census) / (double)census;
    printf("  %-40s %16lld %16lld %+7.3f %%\n", name, (long long)mine,
           (long long)census, off);
    if (fabs(off) > 0.5)
        fprintf(stderr, "  %s: %lld parameters, transformers %lld (%+.2f %%)\n",
                name, (long long)mine, (long long)census, off);
    CHECK(fabs(off) <= 0.5);
    /* an LM head of its own exactly where transformers' is untied */
    bool tied = json_is_true(json_object_get(row, "tied"));
    CHECK_INT(p.lm_head == 0, tied);
    if (!tied)
        CHECK_INT(p.lm_head, member(split, "lm_head"));
    /* (Nemotron-H's is "embeddings", a name the census files under
     * "rest") */
    if (json_object_get(split, "embed") != NULL)
        CHECK_INT(p.embed, member(split, "embed"));
    if (fabs(off) > *worst)
        *worst = fabs(off);
    return 1;
}

/* Plan options on the preset `gpu` at TP `tp`. */
static kvplan_plan_options on_preset(const char *gpu, int64_t tp)
{
    kvplan_plan_options o;
    kvplan_plan_options_init(&o);
    CHECK(kvplan_gpu_preset(gpu, &o.gpu));
    o.gpu_set = true;
    o.server.tp_size = tp;
    return o;
}

/* A reward model (tests/data/models/skywork-reward-llama-3.1-8b: Llama 3.1
 * 8B's body under LlamaForSequenceClassification): sglang's class has a
 * score head of one row and no LM head, so the model is Llama 3.1 8B less
 * its 128,256 x 4,096 head, 7.50 B parameters (its model card: 7.5 B); its
 * plan holds the head's 0.98 GiB more KV cache. */
static void test_reward_model(const char *census)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", census);
    char *slash = strrchr(dir, '/');
    snprintf(slash != NULL ? slash : dir,
             sizeof dir - (size_t)(slash != NULL ? slash - dir : 0),
             "/../models/skywork-reward-llama-3.1-8b");
    kvplan_model *rm = NULL, *lm = NULL;
    kvplan_error err;
    CHECK_INT(kvplan_model_load(dir, &rm, &err), KVPLAN_OK);
    CHECK_INT(kvplan_model_load("llama-3.1-8b-instruct", &lm, NULL), KVPLAN_OK);
    if (rm == NULL || lm == NULL) {
        fprintf(stderr, "  %s: %s\n", dir, err.message);
        kvplan_model_free(rm);
        kvplan_model_free(lm);
        return;
    }
    kvplan_model_params r, l;
    CHECK_INT(kvplan_model_parameters(rm, &r, NULL), KVPLAN_OK);
    CHECK_INT(kvplan_model_parameters(lm, &l, NULL), KVPLAN_OK);
    CHECK_INT(r.lm_head, 0);
    CHECK_INT(l.lm_head, 128256LL * 4096);
    CHECK_INT(r.total, l.total - l.lm_head);
    CHECK(fabs((double)r.total / 7.5e9 - 1) < 0.005);
    kvplan_plan_options o = on_preset("H100-80GB", 1);
    kvplan_plan *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    CHECK_INT(kvplan_plan_compute(rm, &o, a, NULL), KVPLAN_OK);
    CHECK_INT(kvplan_plan_compute(lm, &o, b, NULL), KVPLAN_OK);
    /* the same pools' shape, 1.00 GiB less of weights (the head, as the
     * allocator rounds it) */
    CHECK_INT(a->stages[0].configurator.cell_size,
              b->stages[0].configurator.cell_size);
    double less =
        (double)(b->stages[0].weight_bytes - a->stages[0].weight_bytes) /
        1073741824.0;
    CHECK(fabs(less - 0.98) < 0.01);
    CHECK(a->max_total_num_tokens > b->max_total_num_tokens);
    printf("reward model: %lld parameters (Llama 3.1 8B's less its LM "
           "head); %lld tokens on an H100 against the causal LM's %lld\n",
           (long long)r.total, (long long)a->max_total_num_tokens,
           (long long)b->max_total_num_tokens);
    free(a);
    free(b);
    kvplan_model_free(rm);
    kvplan_model_free(lm);
}

/* The bytes of the tensors the plan holds on one rank (copies and
 * scales, before the allocator rounds them). */
static double tensor_bytes(const kvplan_plan *p)
{
    double sum = 0;
    for (size_t i = 0; i < p->budget.num_weight_tensors; i++) {
        const kvplan_weight_tensor *t = &p->budget.weight_tensors[i];
        sum += (double)t->count * (double)t->rank_rows * (double)t->rank_cols *
               t->elem_bytes;
    }
    return sum;
}

/*
 * Quantized checkpoints against their published size: metadata.total_size
 * of the repository's model.safetensors.index.json. gpt-oss (MXFP4): each
 * figure is its config's tensors summed, which checks it here: the experts'
 * blocks (E x 2I x H/2 and E x H x I/2 bytes), e8m0 scales (one per 32) and
 * bf16 biases; bf16 attention with its biases and sinks; the router, the
 * norms, the embedding and the untied LM head. 20b: 24 x 423,567,360
 * (experts) + 24 x 53,100,288 (attention, sinks) + 24 x 184,384 (router)
 * + 282,240 (norms) + 2 x 1,158,266,880 = 13,761,264,768. kvplan leaves
 * out the biases, sinks and norms (0.1 %). sglang loads the experts in
 * the checkpoint's layout (mxfp4.py), padded only where a rank's share of
 * the intermediate is no multiple of its kernel's (below).
 *
 * DeepSeek-R1 (FP8, 128 x 128 blocks with float32 scales): the Hub's
 * safetensors parameter counts by dtype (BF16 3,918,786,560; F8_E4M3
 * 680,571,043,840; F32 41,555,600) are 688,574,839,360 bytes. The
 * checkpoint holds the MTP module too (layer 61 with its own copies of
 * the embedding and the LM head: README_WEIGHTS.md's 14 B of 685 B),
 * which sglang loads only as a NEXTN draft: kvplan's target and draft,
 * and those two copies, against it.
 */
static void test_published_sizes(void)
{
    static const struct {
        const char *model;
        double bytes;
        const char *source;
        bool mtp; /* the checkpoint holds an MTP module */
    } published[] = {
        {"gpt-oss-20b", 13761264768.0,
         "openai/gpt-oss-20b model.safetensors.index.json", false},
        {"gpt-oss-120b", 65248815744.0,
         "openai/gpt-oss-120b model.safetensors.index.json", false},
        {"deepseek-r1", 3918786560.0 * 2 + 680571043840.0 + 41555600.0 * 4,
         "the Hub's safetensors parameters of deepseek-ai/DeepSeek-R1", true},
    };
    kvplan_plan *p = malloc(sizeof *p);
    for (size_t i = 0; i < sizeof published / sizeof published[0]; i++) {
        kvplan_model *m = NULL;
        CHECK_INT(kvplan_model_load(published[i].model, &m, NULL), KVPLAN_OK);
        kvplan_plan_options o;
        kvplan_plan_options_init(&o);
        o.gpu.total_mib = 4 << 20; /* 4 TiB: the whole model on one rank */
        snprintf(o.gpu.name, sizeof o.gpu.name, "large");
        o.gpu.compute_capability = 90;
        o.gpu_set = true;
        if (published[i].mtp)
            o.server.speculative_algorithm = KVPLAN_SPEC_EAGLE; /* NEXTN */
        CHECK_INT(kvplan_plan_compute(m, &o, p, NULL), KVPLAN_OK);
        const kvplan_model_info *info = kvplan_model_get_info(m);
        double bytes = tensor_bytes(p);
        if (published[i].mtp)
            bytes +=
                p->budget.rank_draft_bytes +
                2.0 * (double)info->vocab_size * (double)info->hidden_size * 2;
        double off = bytes / published[i].bytes - 1;
        printf("  %-14s %.0f bytes of tensors, %.0f published (%s): "
               "%+.3f %%\n",
               published[i].model, bytes, published[i].bytes,
               published[i].source, 100 * off);
        CHECK(fabs(off) < 0.01);
        kvplan_model_free(m);
    }
    /* DeepSeek-V3 and V3.1 are R1's shapes and quantization (685 B in
     * their READMEs too): the same tensors, so R1's check is theirs */
    double r1 = 0;
    static const char *same[] = {"deepseek-r1", "deepseek-v3", "deepseek-v3.1"};
    for (size_t i = 0; i < 3; i++) {
        kvplan_model *m = NULL;
        CHECK_INT(kvplan_model_load(same[i], &m, NULL), KVPLAN_OK);
        kvplan_plan_options o = on_preset("H200", 8);
        CHECK_INT(kvplan_plan_compute(m, &o, p, NULL), KVPLAN_OK);
        if (i == 0)
            r1 = tensor_bytes(p);
        else
            CHECK_DOUBLE(tensor_bytes(p), r1);
        kvplan_model_free(m);
    }
    /* sglang's MXFP4 MoE kernels pad a rank's expert intermediate
     * (mxfp4.py create_weights): gpt-oss-120b at TP8 holds 360 of 2880 per
     * rank, 384 on an H100 (triton_kernels: a multiple of 32), 512 with
     * the hidden size 3072 on a B200 (FlashInfer's MXFP4: 256) */
    static const struct {
        const char *gpu;
        int tp;
        int64_t inter, hidden;
    } pads[] = {{"H100-80GB", 1, 2880, 2880},
                {"H100-80GB", 8, 384, 2880},
                {"B200", 1, 3072, 3072},
                {"B200", 8, 512, 3072},
                {"MI355X", 8, 360, 2880}};
    kvplan_model *m = NULL;
    CHECK_INT(kvplan_model_load("gpt-oss-120b", &m, NULL), KVPLAN_OK);
    for (size_t i = 0; i < sizeof pads / sizeof pads[0]; i++) {
        kvplan_plan_options o = on_preset(pads[i].gpu, pads[i].tp);
        CHECK_INT(kvplan_plan_compute(m, &o, p, NULL), KVPLAN_OK);
        for (size_t t = 0; t < p->budget.num_weight_tensors; t++) {
            const kvplan_weight_tensor *w = &p->budget.weight_tensors[t];
            if (strcmp(w->name, "mlp.experts.w2 (down)") != 0)
                continue;
            CHECK_INT(w->rank_cols, pads[i].inter);
            CHECK_INT(w->rank_rows, 128 * pads[i].hidden);
        }
    }
    kvplan_model_free(m);
    free(p);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_census CENSUS.jsonl\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    CHECK(f != NULL);
    if (f == NULL)
        return check_report();
    char line[4096];
    int compared = 0, lines = 0;
    double worst = 0;
    printf("  %-40s %16s %16s %9s\n", "model", "kvplan", "transformers", "off");
    while (fgets(line, sizeof line, f) != NULL) {
        json_error_t je;
        json_t *row = json_loads(line, 0, &je);
        CHECK(row != NULL);
        if (row == NULL)
            continue;
        lines++;
        compared += compare(row, &worst);
        json_decref(row);
    }
    fclose(f);
    /* 73 lines; 61 built by transformers, 2 of them excepted */
    CHECK_INT(lines, 73);
    CHECK_INT(compared, 59);
    printf("census: %d configs compared, the farthest %.3f %% off\n", compared,
           worst);
    test_reward_model(argv[1]);
    test_published_sizes();
    /* kvplan_model_parameters refuses NULLs */
    kvplan_model_params p;
    CHECK_INT(kvplan_model_parameters(NULL, &p, NULL), KVPLAN_INVALID_ARGUMENT);
    return check_report();
}
