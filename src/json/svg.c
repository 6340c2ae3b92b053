/*
 * svg.c: the plan as a picture, plain SVG written here, onto the stream
 * its caller gives (the command's --svg FILE, kvplan_json's "svg").
 *
 * A plan: one GPU's memory as a stacked bar (the CUDA context, the
 * weights, each KV pool, the mamba state, the reserve, what is left), and
 * below it the requests of one length that run at once against that
 * length, each point the forward plan at --context-length L, with the
 * plan's context_len and what binds it marked. A sweep: its rows as bars of
 * the --rank-by figure.
 */
#include "json/doc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 960
#define H 600

static const char *const colors[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759",
                                     "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
                                     "#9c755f", "#bab0ac"};

/* Text for an SVG element: &, <, > and " escaped. */
static void text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

static void head(FILE *f, const char *title)
{
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
            "height=\"%d\" viewBox=\"0 0 %d %d\" "
            "font-family=\"sans-serif\" font-size=\"13\">\n"
            "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n"
            "<text x=\"20\" y=\"30\" font-size=\"18\" font-weight=\"bold\">",
            W, H, W, H, W, H);
    text(f, title);
    fputs("</text>\n", f);
}

/* One segment of the memory bar. */
typedef struct segment {
    char label[64];
    double gib;
} segment;

static size_t add(segment *s, size_t n, const char *label, double gib)
{
    if (gib <= 0 || n >= 16)
        return n;
    snprintf(s[n].label, sizeof s[n].label, "%s", label);
    s[n].gib = gib;
    return n + 1;
}

static void memory_bar(FILE *f, const kvplan_plan *p)
{
    const kvplan_budget *b = &p->budget;
    const kvplan_stage_plan *sp = &p->stages[p->binding_stage];
    const kvplan_capacity *c = &p->capacity;
    segment seg[16];
    size_t n = 0;
    double total;
    if (!b->given) {
        n = add(seg, n, "CUDA context, NCCL",
                b->context_overhead_bytes / KVPLAN__GIB);
        n = add(seg, n, "weights",
                (double)(sp->weight_bytes + sp->draft_weight_bytes) /
                    KVPLAN__GIB);
        total = b->gpu_mem_mib / 1024;
    } else {
        total = (double)sp->available_bytes / KVPLAN__GIB;
    }
    for (size_t i = 0; i < c->num_pools; i++) {
        const kvplan_pool_info *pl = &c->pools[i];
        /* DeepSeek V4's full pool is the index the others derive from */
        if (sp->configurator.kind == KVPLAN_CONFIGURATOR_DSV4 &&
            pl->kind == KVPLAN_POOL_FULL)
            continue;
        if (pl->kind == KVPLAN_POOL_MAMBA)
            continue; /* below, as allocated */
        char label[64];
        snprintf(label, sizeof label, "%s pool",
                 kvplan_pool_kind_name(pl->kind));
        double gib =
            (double)pl->capacity_tokens * pl->bytes_per_token / KVPLAN__GIB;
        n = add(seg, n, label, gib);
    }
    n = add(seg, n, "draft KV pool",
            (double)sp->allocation.draft_kv_bytes / KVPLAN__GIB);
    n = add(seg, n, "mamba state",
            (double)sp->allocation.mamba_state_bytes / KVPLAN__GIB);
    if (!b->given)
        n = add(seg, n, "reserve (1 - mem_fraction_static)",
                b->pre_load_gib * (1 - b->mem_fraction_static));
    double used = 0;
    for (size_t i = 0; i < n; i++)
        used += seg[i].gib;
    if (total - used > 0.005)
        n = add(seg, n, "left over", total - used);
    if (used > total)
        total = used;

    int x0 = 20, y0 = 60, bw = W - 40, bh = 44;
    fprintf(f,
            "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">one GPU's memory, "
            "%.2f GiB",
            x0, y0 - 8, total);
    if (b->given)
        fputs(" available (--available-bytes)", f);
    fputs("</text>\n", f);
    double x = x0;
    for (size_t i = 0; i < n; i++) {
        double w = seg[i].gib / total * bw;
        fprintf(f,
                "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
                "fill=\"%s\" stroke=\"#ffffff\"><title>",
                x, y0, w, bh, colors[i % 10]);
        text(f, seg[i].label);
        fprintf(f, ": %.2f GiB</title></rect>\n", seg[i].gib);
        /* the legend, two columns */
        int lx = x0 + (int)(i % 2) * (bw / 2),
            ly = y0 + bh + 22 + (int)(i / 2) * 18;
        fprintf(f,
                "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" "
                "fill=\"%s\"/><text x=\"%d\" y=\"%d\">",
                lx, ly - 11, colors[i % 10], lx + 18, ly);
        text(f, seg[i].label);
        fprintf(f, " %.2f GiB</text>\n", seg[i].gib);
        x += w;
    }
}

/* The curve: requests of L tokens at once for L = 2^k up to the model's
 * context length, each the forward plan at --context-length L. */
static void curve(FILE *f, const kvplan_model *model, const kvplan__doc *d,
                  const kvplan_plan *plan, kvplan_plan *work)
{
    enum { MAXP = 40 };
    int64_t len[MAXP], conc[MAXP];
    size_t n = 0;
    int64_t top = kvplan_model_get_info(model)->context_len;
    if (plan->context_len > top)
        top = plan->context_len;
    kvplan_plan_options o = d->o->plan;
    for (int64_t l = 256; n < MAXP; l *= 2) {
        int64_t at = l < top ? l : top;
        o.server.context_length = (kvplan_opt_int){at, true};
        if (kvplan_plan_compute(model, &o, work, NULL) == KVPLAN_OK) {
            len[n] = at;
            conc[n] = work->capacity.max_concurrency_at_context_len;
            n++;
        }
        if (at == top)
            break;
    }
    int x0 = 90, y0 = 250, pw = W - 130, ph = H - y0 - 70;
    fprintf(f,
            "<text x=\"20\" y=\"%d\" font-weight=\"bold\">requests of L "
            "tokens at once, against L</text>\n",
            y0 - 14);
    fprintf(f,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
            "fill=\"#fafafa\" stroke=\"#888888\"/>\n",
            x0, y0, pw, ph);
    if (n == 0) {
        fprintf(f, "<text x=\"%d\" y=\"%d\">no length plans</text>\n", x0 + 10,
                y0 + 20);
        return;
    }
    int64_t ymax = 1;
    for (size_t i = 0; i < n; i++)
        ymax = conc[i] > ymax ? conc[i] : ymax;
    double lx0 = log2((double)len[0]), lx1 = log2((double)len[n - 1]);
    if (lx1 <= lx0)
        lx1 = lx0 + 1;
    double ly1 = log2((double)ymax + 1);
#define PX(l) (x0 + (log2((double)(l)) - lx0) / (lx1 - lx0) * pw)
#define PY(c) (y0 + ph - log2((double)(c) + 1) / ly1 * ph)
    /* axes' ticks */
    for (size_t i = 0; i < n; i++) {
        fprintf(f,
                "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
                "font-size=\"11\">%lld</text>\n",
                PX(len[i]), y0 + ph + 16, (long long)len[i]);
    }
    for (int64_t c = 1; c <= ymax; c *= 4)
        fprintf(f,
                "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
                "stroke=\"#dddddd\"/><text x=\"%d\" y=\"%.1f\" "
                "text-anchor=\"end\" font-size=\"11\">%lld</text>\n",
                x0, PY(c), x0 + pw, PY(c), x0 - 6, PY(c) + 4, (long long)c);
    fprintf(f,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">context length "
            "L (tokens)</text>\n",
            x0 + pw / 2, y0 + ph + 38);
    fputs("<polyline fill=\"none\" stroke=\"#4e79a7\" stroke-width=\"2.5\" "
          "points=\"",
          f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%.1f,%.1f ", PX(len[i]), PY(conc[i]));
    fputs("\"/>\n", f);
    for (size_t i = 0; i < n; i++)
        fprintf(f,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"#4e79a7\">"
                "<title>%lld tokens: %lld requests</title></circle>\n",
                PX(len[i]), PY(conc[i]), (long long)len[i], (long long)conc[i]);
    /* the plan's own point */
    const kvplan_capacity *c = &plan->capacity;
    double px = PX(plan->context_len),
           py = PY(c->max_concurrency_at_context_len);
    fprintf(f,
            "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
            "stroke=\"#e15759\" stroke-dasharray=\"5,4\"/>\n"
            "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"#e15759\"/>\n"
            "<text x=\"%.1f\" y=\"%.1f\" fill=\"#e15759\" "
            "text-anchor=\"%s\">context_len %lld: %lld request%s (",
            px, y0, px, y0 + ph, px, py, px > x0 + pw / 2 ? px - 10 : px + 10,
            py - 12 < y0 + 16 ? py + 22 : py - 12,
            px > x0 + pw / 2 ? "end" : "start", (long long)plan->context_len,
            (long long)c->max_concurrency_at_context_len,
            c->max_concurrency_at_context_len == 1 ? "" : "s");
    text(f, kvplan__binding_name(c, c->binding, c->binding_pool));
    fputs(" binds)</text>\n", f);
#undef PX
#undef PY
}

int kvplan__svg_plan(FILE *f, const kvplan__doc *d, const kvplan_plan *plan)
{
    kvplan_plan *work = malloc(sizeof *work);
    if (work == NULL)
        return -1;
    const kvplan_model_info *info = kvplan_model_get_info(d->model);
    char title[200];
    const kvplan_server_args *s = &plan->resolved;
    snprintf(title, sizeof title, "kvplan %s: %s, tp %lld pp %lld on %s",
             kvplan_version(), info->name, (long long)s->tp_size,
             (long long)s->pp_size,
             plan->budget.given ? "the bytes given" : d->o->plan.gpu.name);
    head(f, title);
    memory_bar(f, plan);
    curve(f, d->model, d, plan, work);
    fputs("</svg>\n", f);
    free(work);
    return ferror(f) ? -1 : 0;
}

int kvplan__svg_bars(FILE *f, const char *title, const char *figure,
                     const kvplan__svg_bar *bars, size_t n)
{
    head(f, title);
    size_t shown = n < 40 ? n : 40;
    double top = 0;
    for (size_t i = 0; i < shown; i++)
        top = bars[i].value > top ? bars[i].value : top;
    if (top <= 0)
        top = 1;
    int x0 = 300, y0 = 60, bw = W - x0 - 110;
    double rh = (double)(H - y0 - 30) / (double)(shown > 0 ? shown : 1);
    if (rh > 26)
        rh = 26;
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">", x0, y0 - 10);
    text(f, figure);
    fputs("</text>\n", f);
    for (size_t i = 0; i < shown; i++) {
        double y = y0 + rh * (double)i;
        double w = bars[i].fits ? bars[i].value / top * bw : 0;
        fprintf(f,
                "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
                "font-size=\"12\">",
                x0 - 8, y + rh * 0.7);
        text(f, bars[i].label);
        fputs("</text>\n", f);
        if (bars[i].fits)
            fprintf(f,
                    "<rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                    "fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\" "
                    "font-size=\"12\">%.4g</text>\n",
                    x0, y + 2, w, rh - 4, i == 0 ? "#59a14f" : "#4e79a7",
                    x0 + w + 6, y + rh * 0.7, bars[i].value);
        else
            fprintf(f,
                    "<text x=\"%d\" y=\"%.1f\" fill=\"#e15759\" "
                    "font-size=\"12\">does not fit</text>\n",
                    x0 + 4, y + rh * 0.7);
    }
    if (n > shown)
        fprintf(f, "<text x=\"%d\" y=\"%d\">%zu more rows</text>\n", x0, H - 10,
                n - shown);
    fputs("</svg>\n", f);
    return ferror(f) ? -1 : 0;
}
