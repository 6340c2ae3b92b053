/*
 * tensors.c: the weights one GPU holds, tensor by tensor, as sglang's
 * model classes lay them out: the fused projections (qkv_proj,
 * gate_up_proj), what tensor parallelism splits and what every rank keeps
 * whole (MLA's down-projections, the DSA indexer, MoE routers, KV heads
 * when there are fewer than ranks, embeddings under DP attention, the
 * vision tower), the absorbed MLA copies sglang makes after loading, the
 * scales and indices of each quantization scheme, and PyTorch's caching
 * allocator rounding each tensor up.
 *
 * It is an estimate: norms and other tensors under 1 MiB are left out,
 * and what sglang allocates beside the tensors while it loads them (kernel
 * modules, RoPE caches) is one measured constant (load_overhead).
 */
#include "budget/budget.h"

#include <math.h>
#include <string.h>

/* What sglang's "mem usage" shows beyond the tensors on every rank: the
 * mean of (logged mem usage - these tensors) over the idle-GPU logs of
 * tests/logs (0.12-0.15 GiB; docs/budget.md). */
#define LOAD_OVERHEAD_BYTES (0.07 * 1073741824.0)

/* One class of weights as a scheme stores it: bytes per element of the
 * weight, of its scales (and zero points), and whether int32 g_idx and
 * sort indices (one per input column, twice) come with it. */
typedef struct cost {
    double elem, scale;
    bool g_idx;
    /* MXFP4: padded as the MoE kernel pads (kvplan__weights_request) */
    bool mx;
} cost;

/* The quantization schemes kvplan prices, by quant_method (one table:
 * what prices a scheme and whether it is priced at all). */
typedef enum scheme {
    SCHEME_NONE,        /* priced as the dtype */
    SCHEME_FP8,         /* 8-bit floats, a float32 scale per block or row */
    SCHEME_INT8,        /* 8-bit ints */
    SCHEME_MXFP4,       /* the experts in 4 bits, an e8m0 scale per 32 */
    SCHEME_FP4,         /* 4 bits, an fp8 scale per 16 */
    SCHEME_COMPRESSED,  /* compressed-tensors: ints packed in int32 */
    SCHEME_PACKED,      /* AWQ-style: packed ints, a scale and zeros per
                           group */
    SCHEME_PACKED_G_IDX /* GPTQ: the same, with g_idx and sort indices */
} scheme;

static const struct {
    const char *method;
    scheme kind;
} schemes[] = {
    {"fp8", SCHEME_FP8},
    {"fbgemm_fp8", SCHEME_FP8},
    {"modelopt", SCHEME_FP8},
    {"modelopt_fp8", SCHEME_FP8},
    {"w8a8_fp8", SCHEME_FP8},
    {"w8a8_int8", SCHEME_INT8},
    {"mxfp4", SCHEME_MXFP4},
    {"modelopt_fp4", SCHEME_FP4},
    {"nvfp4", SCHEME_FP4},
    {"w4afp8", SCHEME_FP4},
    {"compressed-tensors", SCHEME_COMPRESSED},
    {"awq", SCHEME_PACKED},
    {"awq_marlin", SCHEME_PACKED},
    {"moe_wna16", SCHEME_PACKED},
    {"gptq", SCHEME_PACKED_G_IDX},
    {"gptq_marlin", SCHEME_PACKED_G_IDX},
};

static scheme scheme_of(const char *method)
{
    for (size_t i = 0; i < sizeof schemes / sizeof schemes[0]; i++)
        if (strcmp(schemes[i].method, method) == 0)
            return schemes[i].kind;
    return SCHEME_NONE;
}

bool kvplan__priced_quantization(const char *method)
{
    return scheme_of(method) != SCHEME_NONE;
}

/* The scheme `method` for class `c` (KVPLAN__W_*), `dtype` bytes for what
 * it leaves alone. */
static cost scheme_cost(const kvplan__weight_shape *w, const char *method,
                        int c, double dtype)
{
    cost k = {dtype, 0, false, false};
    if (w->quant_skip[c] || method[0] == '\0')
        return k;
    double bits = w->quant_bits > 0 ? w->quant_bits : 4;
    double group = w->quant_group;
    switch (scheme_of(method)) {
    case SCHEME_FP8:
        if (c == KVPLAN__W_LM_HEAD)
            return k; /* FP8 checkpoints keep the LM head at 16 bits */
        if (c == KVPLAN__W_EXPERT && w->experts_fp4) {
            k.elem = 0.5; /* DeepSeek-V4's MXFP4 experts */
            k.scale = 1.0 / 32;
            return k;
        }
        k.elem = 1;
        /* a float32 scale per block (weight_block_size), else per row */
        if (w->quant_block > 0)
            k.scale = 4.0 / ((double)w->quant_block * (double)w->quant_block);
        return k;
    case SCHEME_INT8:
        if (c != KVPLAN__W_LM_HEAD)
            k.elem = 1;
        return k;
    case SCHEME_MXFP4:
        if (c == KVPLAN__W_EXPERT) {
            k.elem = 0.5;
            k.scale = 1.0 / 32;
            k.mx = true;
        }
        return k;
    case SCHEME_FP4:
        if (c != KVPLAN__W_LM_HEAD) {
            k.elem = 0.5;
            k.scale = 1.0 / 16;
        }
        return k;
    case SCHEME_COMPRESSED:
        /* a 16-bit scale per group (per row when there is no group) */
        k.elem = bits / 8;
        k.scale = group > 0 ? 2.0 / group : 0;
        k.g_idx = bits < 8 && c == KVPLAN__W_EXPERT;
        return k;
    case SCHEME_PACKED:
    case SCHEME_PACKED_G_IDX:
        if (c == KVPLAN__W_LM_HEAD)
            return k;
        /* packed weights; per group a 16-bit scale and packed zeros */
        k.elem = bits / 8;
        k.scale = (2 + bits / 8) / (group > 0 ? group : 128);
        k.g_idx = scheme_of(method) == SCHEME_PACKED_G_IDX;
        return k;
    case SCHEME_NONE:
        break;
    }
    return k; /* a scheme kvplan does not know: priced as the dtype */
}

/* PyTorch's CUDA caching allocator: up to 1 MiB in shared 2 MiB blocks, up
 * to 10 MiB in shared 20 MiB blocks, above that a block of its own
 * rounded up to 2 MiB. */
static double allocated(double bytes)
{
    if (bytes <= 0)
        return 0;
    double mib2 = 2.0 * 1048576;
    if (bytes < 10.0 * 1048576)
        return ceil(bytes / 512) * 512;
    return ceil(bytes / mib2) * mib2;
}

typedef struct builder {
    const kvplan__weights_request *rq;
    kvplan__weights_estimate_out *out;
    cost costs[KVPLAN__W_CLASSES];
    cost plain; /* the model dtype: embeddings, routers, the vision tower */
    double gidx_rows; /* g_idx rows of a tensor: its experts, else 1 */
    bool copy;        /* a copy of weights counted already: no parameter */
    /* the parameter count each tensor adds to beside the whole's */
    enum { BODY, EMBED, HEAD, VISION } part;
    bool ovf;
} builder;

/* A tensor of `rows` x `cols` (the whole of it), of which a rank holds
 * rank_rows x rank_cols, `count` times on the rank and `all` times in the
 * model. */
static void add(builder *b, const char *name, double rows, double cols,
                double rank_rows, double rank_cols, double count, double all,
                const cost *k)
{
    if (!(rows > 0 && cols > 0) || (count <= 0 && all <= 0))
        return;
    double one = allocated(rank_rows * rank_cols * k->elem) +
                 allocated(rank_rows * rank_cols * k->scale) +
                 (k->g_idx ? 2 * allocated(b->gidx_rows * rank_cols * 4) : 0);
    kvplan__weights_estimate_out *o = b->out;
    o->rank_bytes += one * count;
    o->rank_exact_bytes += rank_rows * rank_cols * (k->elem + k->scale) * count;
    o->model_bytes += rows * cols * (k->elem + k->scale) * all;
    if (b->rq->params) { /* kvplan_model_parameters's: not the plans' */
        double params = b->copy ? 0 : rows * cols * all;
        o->model_params += params;
        if (b->part == EMBED)
            o->embed_params += params;
        else if (b->part == HEAD)
            o->head_params += params;
        else if (b->part == VISION)
            o->vision_params += params;
    }
    if (count <= 0 || o->tensors == NULL ||
        o->num_tensors >= KVPLAN_MAX_WEIGHT_TENSORS)
        return;
    kvplan_weight_tensor *t = &o->tensors[o->num_tensors++];
    t->name = name;
    t->rows = kvplan__trunc(rows, &b->ovf);
    t->cols = kvplan__trunc(cols, &b->ovf);
    t->rank_rows = kvplan__trunc(rank_rows, &b->ovf);
    t->rank_cols = kvplan__trunc(rank_cols, &b->ovf);
    t->count = kvplan__trunc(count, &b->ovf);
    t->elem_bytes = k->elem + k->scale;
    t->rank_bytes = kvplan__trunc(one, &b->ovf);
}

/* Layers i in [lo, hi) with lo <= i < hi within [0, n) of a kind that
 * covers [a, b). */
static double overlap(double lo, double hi, double a, double b)
{
    double x = lo > a ? lo : a, y = hi < b ? hi : b;
    return y > x ? y - x : 0;
}

/* Llama4's MoE layers: i with (i + 1) % step == 0, in [lo, hi). */
static double every(double lo, double hi, double step)
{
    return floor(hi / step) - floor(lo / step);
}

/* a rounded up to a multiple of m (m <= 1: a) */
static double round_up(double a, int32_t m)
{
    return m > 1 ? ceil(a / m) * m : a;
}

static double div_ceil(double a, double b)
{
    return b > 0 ? ceil(a / b) : a;
}

/* q, k and v fused, and o: `kv` heads of k (`hd`) and v (`vhd`; 0 where
 * v is k) split while there are enough of them, else one on each rank. */
static void projections(builder *b, const char *qkv, const char *o, double q_in,
                        double kv, double hd, double vhd, double count,
                        double all)
{
    const kvplan__weight_shape *w = b->rq->shape;
    double heads = w->heads, atp = (double)b->rq->attn_tp;
    double rh = div_ceil(heads, atp), rkv = kv >= atp ? div_ceil(kv, atp) : 1;
    const cost *k = &b->costs[KVPLAN__W_ATTN];
    add(b, qkv, heads * hd + kv * (hd + vhd), q_in, rh * hd + rkv * (hd + vhd),
        q_in, count, all, k);
    double ov = vhd > 0 ? vhd : hd; /* v is k where vhd is 0 */
    double g = w->o_groups, r = w->o_lora;
    if (r > 0 && g >= 1) {
        /* grouped low-rank: each group's heads into r, then all into the
         * hidden size; TP splits the groups */
        double rg = div_ceil(g, atp);
        add(b, "self_attn.wo_a (grouped)", g * r, heads * ov / g, rg * r,
            heads * ov / g, count, all, k);
        add(b, "self_attn.wo_b", w->hidden, g * r, w->hidden, rg * r, count,
            all, k);
        return;
    }
    add(b, o, w->hidden, heads * ov, w->hidden, rh * ov, count, all, k);
}

/* Attention of the full layers (of every layer but the sliding ones with
 * shapes of their own): `count` on the rank, `all` in total. */
static void attention(builder *b, double count, double all)
{
    const kvplan__weight_shape *w = b->rq->shape;
    double h = w->hidden, heads = w->heads, atp = (double)b->rq->attn_tp;
    const cost *k = &b->costs[KVPLAN__W_ATTN];
    double rh = div_ceil(heads, atp);
    if (w->is_mla) {
        double qk = w->nope + w->rope;
        /* q_a and kv_a fused, on every rank; then the per-head parts */
        double a_rows = w->q_lora + w->kv_lora + w->rope;
        add(b, "self_attn.fused_qkv_a_proj_with_mqa", a_rows, h, a_rows, h,
            count, all, k);
        if (w->q_lora > 0)
            add(b, "self_attn.q_b_proj", heads * qk, w->q_lora, rh * qk,
                w->q_lora, count, all, k);
        else
            add(b, "self_attn.q_proj", heads * qk, h, rh * qk, h, count, all,
                k);
        double kvb = w->nope + w->v_head_dim;
        add(b, "self_attn.kv_b_proj", heads * kvb, w->kv_lora, rh * kvb,
            w->kv_lora, count, all, k);
        add(b, "self_attn.o_proj", h, heads * w->v_head_dim, h,
            rh * w->v_head_dim, count, all, k);
        /* w_kc and w_vc: kv_b_proj's halves copied out after loading, in
         * 16 bits */
        b->copy = true;
        add(b, "self_attn.w_kc+w_vc (absorbed)", heads * kvb, w->kv_lora,
            rh * kvb, w->kv_lora, count, all, &b->plain);
        b->copy = false;
        if (w->is_dsa) {
            double ih = w->index_heads, id = w->index_head_dim;
            double q_in = w->q_lora > 0 ? w->q_lora : h;
            add(b, "self_attn.indexer.wq_b", ih * id, q_in, ih * id, q_in,
                count, all, k);
            add(b, "self_attn.indexer.wk", id, h, id, h, count, all, k);
            add(b, "self_attn.indexer.weights_proj", ih, h, ih, h, count, all,
                &b->plain);
        }
        return;
    }
    double q_in = w->q_lora > 0 ? w->q_lora : h;
    if (w->q_lora > 0)
        add(b, "self_attn.q_a_proj", w->q_lora, h, w->q_lora, h, count, all, k);
    projections(b, "self_attn.qkv_proj", "self_attn.o_proj", q_in, w->kv_heads,
                w->head_dim, w->full_k_eq_v ? 0 : w->v_head_dim, count, all);
}

/* A gated MLP of `inter` (gate_up, down) split over `tp`. */
static void mlp(builder *b, const char *gate_up, const char *down, double inter,
                double mats, double count, double all, const cost *k)
{
    double h = b->rq->shape->hidden, tp = (double)b->rq->tp;
    double ri = div_ceil(inter, tp);
    add(b, gate_up, (mats - 1) * inter, h, (mats - 1) * ri, h, count, all, k);
    add(b, down, h, inter, h, ri, count, all, k);
}

/* The routed experts of `count` MoE layers (`all` in the model). */
static void experts(builder *b, double mats, double width, double count,
                    double all)
{
    const kvplan__weight_shape *w = b->rq->shape;
    double e = w->experts, tp = (double)b->rq->tp;
    const cost *k = &b->costs[KVPLAN__W_EXPERT];
    double ri = div_ceil(w->moe_inter, tp), rw = width;
    if (k->mx) { /* the MoE kernel's padding of MXFP4 (budget.h) */
        ri = round_up(ri, b->rq->mx_inter);
        rw = round_up(width, b->rq->mx_hidden);
    }
    add(b, "mlp.router", e, w->hidden, e, w->hidden, count, all, &b->plain);
    /* every rank holds a 1/tp share of all the experts (TP or EP); g_idx
     * and its sort indices come per expert */
    b->gidx_rows = e;
    add(b, "mlp.experts.w13 (gate_up)", e * (mats - 1) * w->moe_inter, width,
        e * (mats - 1) * ri, rw, count, all, k);
    add(b, "mlp.experts.w2 (down)", e * width, w->moe_inter, e * rw, ri, count,
        all, k);
    b->gidx_rows = 1;
    if (w->shared > 0)
        mlp(b, "mlp.shared_experts.gate_up_proj",
            "mlp.shared_experts.down_proj", w->shared * w->shared_inter, mats,
            count, all, &b->costs[KVPLAN__W_SHARED]);
}

static void vision(builder *b)
{
    const kvplan__weight_shape *w = b->rq->shape;
    if (!(w->vision_layers > 0) || !b->rq->first_stage)
        return;
    b->part = VISION;
    double vh = w->vision_hidden, n = w->vision_layers;
    double mats = w->vision_mlp_mats, in = w->vision_proj_in;
    add(b, "vision.blocks.attn (qkv, proj)", 4 * vh, vh, 4 * vh, vh, n, n,
        &b->plain);
    add(b, "vision.blocks.mlp (fc1, fc2)", mats * w->vision_inter, vh,
        mats * w->vision_inter, vh, n, n, &b->plain);
    add(b, "vision.position_embedding", w->vision_positions, vh,
        w->vision_positions, vh, 1, 1, &b->plain);
    /* the projector into the text's width: from 2x2 patches merged (an
     * MLP of that width first), or from one patch */
    double rows = in > vh ? in + w->vision_out : w->vision_out;
    add(b, "vision.projector", rows, in, rows, in, 1, 1, &b->plain);
}

void kvplan__weights_estimate(const kvplan__weights_request *rq,
                              kvplan__weights_estimate_out *out)
{
    memset(out, 0, offsetof(kvplan__weights_estimate_out, tensors));
    out->num_tensors = 0;
    const kvplan__weight_shape *w = rq->shape;
    builder b = {.rq = rq, .out = out, .gidx_rows = 1};
    double dtype = rq->dtype_bytes;
    const char *method =
        rq->quantization != NULL ? rq->quantization : w->quant_method;
    for (int c = 0; c < KVPLAN__W_CLASSES; c++)
        b.costs[c] = scheme_cost(w, method, c, dtype);
    b.plain = (cost){dtype, 0, false, false};
    double L = w->layers, lo = rq->start_layer, hi = rq->end_layer;
    double here = hi - lo, h = w->hidden, tp = (double)rq->tp;

    /* the vocabulary, padded to 64, split over the ranks (whole on each
     * under DP attention) */
    double vocab = ceil(w->vocab / 64) * 64;
    double split = rq->dp_attention ? 1 : tp;
    b.part = EMBED;
    add(&b, "embed_tokens", vocab, h, div_ceil(vocab, split), h,
        rq->first_stage ? 1 : 0, 1, &b.plain);
    b.part = HEAD;
    /* the LM head: the embedding itself when tied, unless PP puts it on
     * another stage (then the model still counts it once) */
    if (w->score_head) /* a reward model's score: its MLP, if any */
        add(&b, "score (reward head)", w->score_mlp, h, w->score_mlp, h,
            rq->last_stage ? 1 : 0, 1, &b.plain);
    else if (!w->tied_embeddings)
        add(&b, "lm_head", vocab, h, div_ceil(vocab, tp), h,
            rq->last_stage ? 1 : 0, 1, &b.costs[KVPLAN__W_LM_HEAD]);
    else if (rq->last_stage && !rq->first_stage)
        add(&b, "lm_head (tied, own copy on the last stage)", vocab, h,
            div_ceil(vocab, tp), h, 1, 0, &b.plain);

    b.part = BODY;
    double share = L > 0 ? here / L : 0; /* of layers counted, not placed */
    if (w->nemotron_h) {
        double d_inner = w->mamba_heads * w->mamba_head_dim;
        double in_rows =
            2 * d_inner + 2 * w->mamba_groups * w->mamba_state + w->mamba_heads;
        const cost *k = &b.costs[KVPLAN__W_ATTN];
        add(&b, "mixer.in_proj (mamba)", in_rows, h, div_ceil(in_rows, tp), h,
            w->n_mamba * share, w->n_mamba, k);
        add(&b, "mixer.out_proj (mamba)", h, d_inner, h, div_ceil(d_inner, tp),
            w->n_mamba * share, w->n_mamba, k);
        attention(&b, w->n_attn * share, w->n_attn);
        mlp(&b, "mixer.up_proj", "mixer.down_proj", w->inter, 2,
            w->n_mlp * share, w->n_mlp, &b.costs[KVPLAN__W_MLP]);
        double width = w->moe_latent > 0 ? w->moe_latent : h;
        if (w->moe_latent > 0)
            add(&b, "mixer.latent projections", 2 * w->moe_latent, h,
                2 * w->moe_latent, h, w->n_moe * share, w->n_moe, &b.plain);
        experts(&b, 2, width, w->n_moe * share, w->n_moe);
    } else {
        double gdn = w->gdn_layers;
        double attn_all = w->attn_layers >= 0 ? w->attn_layers : L - gdn;
        double swa = w->swa_layers <= attn_all ? w->swa_layers : 0;
        attention(&b, (attn_all - swa) * share, attn_all - swa);
        if (swa > 0)
            projections(&b, "self_attn.qkv_proj (sliding)",
                        "self_attn.o_proj (sliding)", h, w->swa_kv_heads,
                        w->swa_head_dim, w->swa_v_head_dim, swa * share, swa);
        if (gdn > 0) {
            double kd = w->gdn_k_heads * w->gdn_k_dim;
            double vd = w->gdn_v_heads * w->gdn_v_dim;
            double in_rows = 2 * kd + 2 * vd + 2 * w->gdn_v_heads;
            const cost *k = &b.costs[KVPLAN__W_ATTN];
            add(&b, "linear_attn.in_proj (qkvz, ba)", in_rows, h,
                div_ceil(in_rows, tp), h, gdn * share, gdn, k);
            add(&b, "linear_attn.out_proj", h, vd, h, div_ceil(vd, tp),
                gdn * share, gdn, k);
        }
        double dense_all = L, dense_here = here, moe_all = 0, moe_here = 0;
        double inter = w->inter;
        if (w->experts > 0) {
            if (w->moe_step > 1) { /* Llama4 */
                moe_all = every(0, L, (double)w->moe_step);
                moe_here = every(lo, hi, (double)w->moe_step);
                inter = w->inter_mlp;
            } else {
                double fd = w->first_dense < L ? w->first_dense : L;
                moe_all = L - fd;
                moe_here = overlap(lo, hi, fd, L);
            }
            if (!w->moe_with_mlp) {
                dense_all = L - moe_all;
                dense_here = here - moe_here;
            }
        }
        if (w->mlp_inter_sum > 0) { /* DeciLM: one MLP of the mean size */
            inter = w->mlp_inter_sum / (L > 0 ? L : 1);
        }
        mlp(&b, "mlp.gate_up_proj", "mlp.down_proj", inter, w->mlp_mats,
            dense_here, dense_all, &b.costs[KVPLAN__W_MLP]);
        if (moe_all > 0)
            experts(&b, 3, h, moe_here, moe_all);
    }
    vision(&b);
    out->load_overhead_bytes = LOAD_OVERHEAD_BYTES;
    if (!(out->model_bytes >= 0 && out->model_bytes < 1e30) ||
        !(out->rank_bytes >= 0 && out->rank_bytes < 1e30) || b.ovf) {
        memset(out, 0, offsetof(kvplan__weights_estimate_out, tensors));
        out->num_tensors = 0;
        out->beyond = true; /* nonsense dims: no estimate, and the plan says
                               so */
    }
}
