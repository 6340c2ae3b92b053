/*
 * weights.c: the weights' bytes, measured or estimated, and one request's
 * mamba state.
 *
 * Measured: the safetensors of a model directory, from their headers
 * alone (no tensor is read). Estimated: from the shapes config.json gives
 * (model/shape.c), one line per projection. Embeddings, attention
 * projections and MLP or MoE experts are counted; norms and biases are
 * left out, and every layer of a hybrid is priced as attention + MLP, so
 * it is an estimate and reported as one.
 */
#include "budget/budget.h"

#include "common/json.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The bytes of one .safetensors file's tensors, from its header alone: an
 * 8-byte little-endian length, then a JSON object of tensors with
 * data_offsets. -1 when the file is not readable as such. */
static int64_t safetensors_bytes(const char *path)
{
    bool special;
    FILE *f = kvplan__open_regular(path, &special);
    if (f == NULL)
        return -1;
    unsigned char len8[8];
    int64_t total = -1;
    if (fread(len8, 1, 8, f) == 8) {
        uint64_t n = 0;
        for (int i = 7; i >= 0; i--)
            n = (n << 8) | len8[i];
        char *hdr = n > 0 && n < (100u << 20) ? malloc((size_t)n) : NULL;
        if (hdr != NULL && fread(hdr, 1, (size_t)n, f) == n) {
            json_t *h = json_loadb(hdr, (size_t)n, 0, NULL);
            const char *key;
            json_t *t;
            total = h ? 0 : -1;
            json_object_foreach(h, key, t)
            {
                const json_t *off = json_object_get(t, "data_offsets");
                if (json_array_size(off) == 2)
                    total +=
                        (int64_t)(json_integer_value(json_array_get(off, 1)) -
                                  json_integer_value(json_array_get(off, 0)));
            }
            json_decref(h);
        }
        free(hdr);
    }
    fclose(f);
    return total;
}

/* The weights of a model directory: model.safetensors.index.json's
 * metadata.total_size, else the sum over the *.safetensors headers. */
static kvplan_opt_int directory_weights(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
    bool special;
    FILE *f = kvplan__open_regular(path, &special);
    json_t *index = f ? json_loadf(f, 0, NULL) : NULL;
    if (f != NULL)
        fclose(f);
    const json_t *total =
        json_object_get(json_object_get(index, "metadata"), "total_size");
    kvplan_opt_int out = {0, false};
    if (json_is_integer(total) && json_integer_value(total) > 0)
        out = (kvplan_opt_int){(int64_t)json_integer_value(total), true};
    json_decref(index);
    if (out.set)
        return out;
    DIR *d = opendir(dir);
    if (d == NULL)
        return out;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n > 12 && strcmp(e->d_name + n - 12, ".safetensors") == 0) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            int64_t b = safetensors_bytes(path);
            if (b > 0)
                out = (kvplan_opt_int){out.value + b, true};
        }
    }
    closedir(d);
    return out;
}

kvplan_status kvplan_weights_from_dir(const char *dir, int64_t *bytes,
                                      kvplan_error *err)
{
    KVPLAN__FAIL_IF(dir == NULL || bytes == NULL, err, KVPLAN_INVALID_ARGUMENT,
                    NULL,
                    "kvplan_weights_from_dir needs a directory and a place "
                    "for the bytes; got NULL");
    struct stat sb;
    KVPLAN__FAIL_IF(stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode), err, KVPLAN_IO,
                    "--model-path", "%s: not a directory", dir);
    kvplan_opt_int w = directory_weights(dir);
    KVPLAN__FAIL_IF(!w.set, err, KVPLAN_IO, "--model-path",
                    "%s: no model.safetensors.index.json and no readable "
                    "*.safetensors file",
                    dir);
    *bytes = w.value;
    return kvplan__ok(err);
}

/* Parameters of one layer's attention projections. */
static double attention_params(const kvplan__weight_shape *w)
{
    double h = w->hidden, heads = w->heads;
    if (w->is_mla) {
        /* q: h x q_lora, q_lora x heads*(nope+rope) (or h x heads*(nope+
         * rope) without q compression); kv_a: h x (lora+rope); kv_b: lora x
         * heads*(nope+v); o: heads*v x h */
        double q = w->q_lora > 0
                       ? h * w->q_lora + w->q_lora * heads * (w->nope + w->rope)
                       : h * heads * (w->nope + w->rope);
        return q + h * (w->kv_lora + w->rope) +
               w->kv_lora * heads * (w->nope + w->v_head_dim) +
               heads * w->v_head_dim * h;
    }
    /* q: h x heads*hd (or through q_lora); k, v: h x kv*hd each; o: heads*hd
     * x h */
    double q = w->q_lora > 0 ? h * w->q_lora + w->q_lora * heads * w->head_dim
                             : h * heads * w->head_dim;
    return q + 2 * h * w->kv_heads * w->head_dim + heads * w->head_dim * h;
}

/* Dense and expert parameters of the whole model. */
static void count_params(const kvplan__weight_shape *w, double *dense,
                         double *expert)
{
    double h = w->hidden, layers = w->layers, inter = w->inter;
    double attn = attention_params(w);
    double mlp_dense = layers * 3 * h * inter, mlp_experts = 0; /* gated */
    if (w->nemotron_h) {
        /* Nemotron-H: the pattern says what each layer is; its MLPs and
         * experts are not gated (relu^2): two matrices each. A mamba layer:
         * in_proj h x (2 d_inner + 2 groups state + heads), out d_inner x h */
        double d_inner = w->mamba_heads * w->mamba_head_dim;
        double mamba = h * (2 * d_inner + 2 * w->mamba_groups * w->mamba_state +
                            w->mamba_heads) +
                       d_inner * h;
        attn *= w->n_attn / (layers > 0 ? layers : 1); /* only '*' layers */
        /* latent MoE: experts work in moe_latent_size, with a projection
         * from and back to the hidden size per layer */
        double latent = w->moe_latent;
        double width = latent > 0 ? latent : h;
        mlp_dense =
            w->n_mamba * mamba + w->n_mlp * 2 * h * inter +
            w->n_moe * (h * w->experts + 2 * h * w->shared_inter * w->shared +
                        (latent > 0 ? 2 * h * latent : 0));
        mlp_experts = w->n_moe * w->experts * 2 * width * w->moe_inter;
    } else if (w->experts > 0) {
        double moe_layers =
            layers - w->first_dense > 0 ? layers - w->first_dense : 0;
        double dense_layers = w->first_dense;
        if (w->moe_step > 1) { /* Llama4: every step-th layer is MoE */
            moe_layers = layers / (double)w->moe_step;
            dense_layers = layers - moe_layers;
            inter = w->inter_mlp;
        }
        /* the router h x experts and the shared experts are dense */
        mlp_dense =
            dense_layers * 3 * h * inter +
            moe_layers * (h * w->experts + 3 * h * w->shared_inter *
                                               (w->shared > 0 ? w->shared : 0));
        mlp_experts = moe_layers * w->experts * 3 * h * w->moe_inter;
    }
    /* embeddings, and the LM head unless tied */
    *dense =
        w->vocab * h * (w->tied_embeddings ? 1 : 2) + layers * attn + mlp_dense;
    *expert = mlp_experts;
    if (!(*dense >= 0 && *dense < 1e30))
        *dense = 0; /* nonsense dims: no estimate */
    if (!(*expert >= 0 && *expert < 1e30))
        *expert = 0;
}

double kvplan__weights_estimate(const kvplan__weight_shape *w,
                                kvplan_dtype dtype)
{
    double dense_params, expert_params;
    count_params(w, &dense_params, &expert_params);
    double elem = kvplan_dtype_size(dtype);
    const char *q = w->quant_method;
    double dense_elem = elem, expert_elem = elem;
    if (strcmp(q, "fp8") == 0 || strcmp(q, "fbgemm_fp8") == 0) {
        dense_elem = expert_elem = 1.0;
    } else if (strcmp(q, "mxfp4") == 0) {
        expert_elem = 0.53125; /* 4 bits + one e8m0 scale per 32 */
    } else if (strcmp(q, "modelopt_fp4") == 0 || strcmp(q, "nvfp4") == 0) {
        dense_elem = expert_elem = 0.5625; /* 4 bits + fp8 scale per 16 */
    } else if (strcmp(q, "compressed-tensors") == 0 && w->quant_bits > 0) {
        /* the experts at num_bits, plus a scale per group of 32; what the
         * config leaves unquantized (attention, shared MLPs) stays */
        expert_elem = w->quant_bits / 8.0 + 2.0 / 32;
    }
    return dense_params * dense_elem + expert_params * expert_elem;
}

/* Conv state in bf16 (conv_dim / tp, width) and the ssm state
 * (heads / tp, a, b) at ssm_size bytes, per mamba layer. */
double kvplan__mamba_per_request(const kvplan__mamba_shape *s, int64_t tp)
{
    double conv = (double)(s->conv_dim / tp) * (double)s->conv_width * 2.0;
    double ssm = (double)(s->temporal_heads / tp) * (double)s->temporal_a *
                 (double)s->temporal_b * (double)s->ssm_size;
    return (conv + ssm) * (double)s->layers;
}

int64_t kvplan__mamba_ratio(bool disable_radix_cache,
                            bool disable_overlap_schedule, int64_t page_size)
{
    if (disable_radix_cache)
        return 1;
    if (!disable_overlap_schedule)
        return 5; /* extra_buffer with the overlap schedule */
    return page_size > 1 ? 4 : 3;
}
