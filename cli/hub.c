/*
 * hub.c: --model-path org/name, resolved as docs/hub.md says: a local file
 * or folder first; else the Hugging Face Hub (unless HF_HUB_OFFLINE), with
 * the local Hub cache as its fallback; else the built-in catalog, with a
 * note that says why. The Hub's own variables are read here: HF_ENDPOINT,
 * HF_TOKEN, HF_TOKEN_PATH, HF_HOME, HF_HUB_CACHE, HF_HUB_OFFLINE, and
 * KVPLAN_HUB_TIMEOUT (seconds per request, default 30).
 */
#include "cli.h"
#include "hub.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The first line of a token file, trimmed; "" when absent. */
static void read_token(const char *path, char *out, size_t size)
{
    out[0] = '\0';
    FILE *f = path != NULL ? fopen(path, "r") : NULL;
    if (f == NULL)
        return;
    if (fgets(out, (int)size, f) == NULL)
        out[0] = '\0';
    fclose(f);
    out[strcspn(out, "\r\n \t")] = '\0';
}

static void on_progress(void *ctx, size_t done, size_t total,
                        const char *file)
{
    const char *repo = ctx;
    fprintf(cli_err(), "\rkvplan: %s from the Hub: %zu of %zu files (%.60s)%s",
            repo, done, total, file, done == total ? "\n" : "   ");
}

kvplan_status cli_hub_resolve(cli_args *cli, char *dir, size_t size,
                              kvplan_error *err)
{
    dir[0] = '\0';
    cli->hub_source[0] = cli->hub_note[0] = cli->hub_commit[0] = '\0';
    cli->model_source = NULL;
    struct stat sb;
    const char *name = cli->o.model_path;
    if (name == NULL || stat(name, &sb) == 0 || !kvplan_hub_repo_id(name))
        return KVPLAN_OK; /* a local path, or a catalog name */
    kvplan_hub_options o;
    kvplan_hub_options_init(&o);
    char cache[4096], token[512], token_path[4200];
    const char *home = cli_getenv("HOME"), *hf_home = cli_getenv("HF_HOME");
    if (kvplan_hub_cache_dir(cli_getenv("HF_HUB_CACHE"), hf_home, home, cache,
                             sizeof cache))
        o.cache_dir = cache;
    o.endpoint = cli_getenv("HF_ENDPOINT");
    o.revision = cli->o.revision;
    const char *t = cli_getenv("HF_TOKEN");
    if (t != NULL && t[0] != '\0') {
        snprintf(token, sizeof token, "%s", t);
    } else {
        const char *tp = cli_getenv("HF_TOKEN_PATH");
        if (tp == NULL || tp[0] == '\0') {
            if (hf_home != NULL && hf_home[0] != '\0')
                snprintf(token_path, sizeof token_path, "%s/token", hf_home);
            else
                snprintf(token_path, sizeof token_path,
                         "%s/.cache/huggingface/token", home ? home : "");
            tp = token_path;
        }
        read_token(tp, token, sizeof token);
    }
    o.token = token[0] ? token : NULL;
    const char *off = cli_getenv("HF_HUB_OFFLINE");
    o.offline = off != NULL && kvplan_env_bool(off, strlen(off), false);
    const char *to = cli_getenv("KVPLAN_HUB_TIMEOUT");
    if (to != NULL && atof(to) > 0)
        o.timeout_s = atof(to);
    if (fileno(cli_err()) >= 0 && isatty(fileno(cli_err()))) {
        o.progress = on_progress;
        o.progress_ctx = (void *)name;
    }
    kvplan_hub_result r;
    kvplan_error why;
    kvplan_status st = kvplan_hub_fetch(name, &o, &r, &why);
    if (st == KVPLAN_OK) {
        snprintf(dir, size, "%s", r.dir);
        snprintf(cli->hub_source, sizeof cli->hub_source, "%s",
                 r.from_cache ? "the Hub cache" : "the Hub");
        snprintf(cli->hub_commit, sizeof cli->hub_commit, "%s", r.commit);
        cli->model_source = r.from_cache ? "hub_cache" : "hub";
        return KVPLAN_OK;
    }
    if (st == KVPLAN_INVALID_ARGUMENT) { /* --revision */
        *err = why;
        return st;
    }
    /* the catalog, if it has the id: said in the notes */
    kvplan_model *m = NULL;
    kvplan_error cat;
    if ((st = kvplan_model_load(name, &m, &cat)) == KVPLAN_OK) {
        kvplan_model_free(m);
        cli->model_source = "catalog";
        snprintf(cli->hub_note, sizeof cli->hub_note,
                 "planned from the built-in catalog's config.json, not the "
                 "Hub's: %.300s",
                 why.message);
        return KVPLAN_OK;
    }
    /* neither: the catalog's words (its "did you mean"), then the Hub's */
    const char *reason = why.message;
    size_t n = strlen(name);
    if (strncmp(reason, name, n) == 0 && reason[n] == ':')
        reason += n + 2;
    *err = cat;
    size_t k = strlen(err->message);
    snprintf(err->message + k, sizeof err->message - k, "; the Hub: %s",
             reason);
    return st;
}
