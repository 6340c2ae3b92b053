/*
 * k8s_words.c: a container's command as the server receives it
 * (k8s_words.h): the kubelet's $(VAR) expansion of command and args
 * (kubernetes.io, "Define a Command and Arguments for a Container"), a
 * shell wrapper's script cut into its simple commands, the image's
 * entrypoint.
 */
#include "k8s_words.h"

#include "launch.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cli_k8s_note(cli_k8s_launch *l, const char *fmt, ...)
{
    if (l->num_notes == CLI_K8S_MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->notes[l->num_notes++], sizeof l->notes[0], fmt, ap);
    va_end(ap);
}

void cli_k8s_unread(cli_k8s_launch *l, const char *fmt, ...)
{
    if (l->unread[0] != '\0')
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->unread, sizeof l->unread, fmt, ap);
    va_end(ap);
}

/* The container's literal variables (name, value) into `names`/`values`;
 * the others named as not read. */

const char *cli_k8s_env_get(const cli_k8s_env *env, const char *name,
                            size_t len)
{
    for (size_t i = env->n; i-- > 0;) /* the last definition wins */
        if (strlen(env->name[i]) == len &&
            strncmp(env->name[i], name, len) == 0)
            return env->value[i];
    return NULL;
}

/* The words' text: an cli_k8s_arena the launch owns. */

char *cli_k8s_arena_put(cli_k8s_arena *a, const char *s, size_t len)
{
    if (a->used + len + 1 > a->size)
        return NULL;
    char *p = a->buf + a->used;
    memcpy(p, s, len);
    p[len] = '\0';
    a->used += len + 1;
    return p;
}

/* $(VAR) as the kubelet expands command and args: a variable the
 * container defines literally; $$ is $; anything else stays. */
/* Pieces of one string: `len` bytes of `s` appended, the string closed by
 * finish(). */
static bool append(cli_k8s_arena *a, const char *s, size_t len)
{
    if (cli_k8s_arena_put(a, s, len) == NULL)
        return false;
    a->used--; /* no terminator between pieces */
    return true;
}

static char *finish(cli_k8s_arena *a, size_t start)
{
    if (a->used >= a->size)
        return NULL;
    a->buf[a->used++] = '\0';
    return a->buf + start;
}

char *cli_k8s_expand(cli_k8s_arena *a, const char *s, const cli_k8s_env *env,
                     cli_k8s_launch *l)
{
    size_t start = a->used;
    for (const char *p = s; *p;) {
        const char *close = p[0] == '$' && p[1] == '(' ? strchr(p, ')') : NULL;
        const char *v =
            close ? cli_k8s_env_get(env, p + 2, (size_t)(close - p - 2)) : NULL;
        const char *next = close ? close + 1 : p + 1;
        if (p[0] == '$' && p[1] == '$') {
            v = "$";
            next = p + 2;
        } else if (close != NULL && v == NULL) {
            cli_k8s_note(l, "%.*s is not defined literally: left as written",
                         (int)(close - p + 1), p);
        }
        if (!append(a, v ? v : p, v ? strlen(v) : (size_t)(next - p)))
            return NULL;
        p = next;
    }
    return finish(a, start);
}

/* $NAME and ${NAME} of a shell script, for the variables the container
 * sets literally (the others stay, and splitting refuses them). */
char *cli_k8s_expand_shell(cli_k8s_arena *a, const char *s,
                           const cli_k8s_env *env)
{
    size_t start = a->used;
    bool single = false;
    for (const char *p = s; *p;) {
        if (*p == '\'')
            single = !single;
        const char *name = NULL, *next = p + 1;
        size_t len = 0;
        if (!single && p[0] == '$' && p[1] == '{' && strchr(p, '}')) {
            name = p + 2;
            len = (size_t)(strchr(p, '}') - name);
            next = name + len + 1;
        } else if (!single && p[0] == '$' &&
                   (p[1] == '_' || (p[1] >= 'A' && p[1] <= 'Z') ||
                    (p[1] >= 'a' && p[1] <= 'z'))) {
            name = p + 1;
            while (name[len] == '_' || (name[len] >= 'A' && name[len] <= 'Z') ||
                   (name[len] >= 'a' && name[len] <= 'z') ||
                   (name[len] >= '0' && name[len] <= '9'))
                len++;
            next = name + len;
        }
        const char *v = name ? cli_k8s_env_get(env, name, len) : NULL;
        if (!append(a, v ? v : p, v ? strlen(v) : (size_t)(next - p)))
            return NULL;
        p = next;
    }
    return finish(a, start);
}

/* ---- the command: a shell wrapper opened, the server's words found ------ */

/* A sh -c / bash -c script: argv[i + 1] after a flag holding 'c'. */
const char *cli_k8s_shell_script(int argc, char **argv)
{
    const char *b = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
    if (strcmp(b, "sh") != 0 && strcmp(b, "bash") != 0 &&
        strcmp(b, "dash") != 0 && strcmp(b, "ash") != 0)
        return NULL;
    for (int i = 1; i + 1 < argc && argv[i][0] == '-'; i++)
        if (argv[i][1] != '-' && strchr(argv[i], 'c') != NULL)
            return argv[i + 1];
    return NULL;
}

/* The script's simple commands, split at unquoted ; & | and line ends,
 * without 2>&1-style redirections; the first that starts a server goes
 * into `words`. Returns its count, 0 when none does. */
int cli_k8s_script_launch(cli_k8s_arena *a, const char *script, char **words,
                          int max, cli_k8s_launch *l)
{
    size_t len = strlen(script);
    char *seg = malloc(len + 1), *buf = malloc(len + 1);
    int found = 0;
    if (seg == NULL || buf == NULL) {
        free(seg);
        free(buf);
        return 0;
    }
    const char *p = script;
    while (*p && found == 0) {
        size_t n = 0;
        char quote = 0;
        for (; *p; p++) {
            if (quote == 0 &&
                (*p == ';' || *p == '&' || *p == '|' || *p == '\n') &&
                !(n > 0 && seg[n - 1] == '\\'))
                break;
            if (quote == 0 && (*p == '\'' || *p == '"'))
                quote = *p;
            else if (quote != 0 && *p == quote)
                quote = 0;
            if (quote == 0 && *p == '>') { /* 2>&1, > file: dropped */
                while (n > 0 && seg[n - 1] >= '0' && seg[n - 1] <= '9')
                    n--;
                p += p[1] == '&' ? 2 : 1;
                while (*p == ' ')
                    p++;
                while (*p && *p != ' ' && *p != ';' && *p != '\n' && *p != '|')
                    p++;
                p--;
                continue;
            }
            seg[n++] = *p;
        }
        while (*p == ';' || *p == '&' || *p == '|' || *p == '\n')
            p++;
        seg[n] = '\0';
        int nw = 0;
        kvplan_error e;
        if (cli_shell_split(seg, buf, words, max, &nw, &e) != KVPLAN_OK) {
            if (strstr(seg, "sglang") || strstr(seg, "vllm") ||
                strstr(seg, "trtllm"))
                cli_k8s_note(
                    l, "the script's command '%.80s' cannot be read: %.100s",
                    seg, e.message);
            continue;
        }
        int at0 = cli_launch_find(nw, words);
        if (at0 < 0)
            continue;
        while (at0 > 0 && strchr(words[at0 - 1], '=') != NULL)
            at0--; /* its VAR=value words */
        found = nw - at0;
        for (int i = at0; i < nw; i++) {
            words[i - at0] = cli_k8s_arena_put(a, words[i], strlen(words[i]));
            if (words[i - at0] == NULL) {
                cli_k8s_unread(l, "the script's command is over %zu bytes",
                               a->size);
                found = i - at0;
                break;
            }
        }
    }
    free(seg);
    free(buf);
    return found;
}

/* The image's entrypoint where the container gives args only: vLLM's
 * images start `vllm serve` (docs.vllm.ai, "Using Docker"). */
const char *const *cli_k8s_entrypoint(const char *image)
{
    static const char *const vllm[] = {"vllm", "serve", NULL};
    return image && strstr(image, "vllm-openai") != NULL ? vllm : NULL;
}

/* The release in an image's tag where the image is the engine's own:
 * vllm/vllm-openai:v0.25.0 gives 0.25.0, nvcr.io/nvidia/tensorrt-llm/
 * release:1.3.0rc24 gives 1.3.0rc24, lmsysorg/sglang:v0.5.16-cu129 gives
 * 0.5.16 (up to the first '-'); "" for latest, a digest, another image. */
static void tag_release(const char *image, kvplan_engine e, char *out,
                        size_t size)
{
    static const char *const own[] = {"lmsysorg/sglang", "vllm-openai",
                                      "nvidia/tensorrt-llm"};
    out[0] = '\0';
    const char *slash = image ? strrchr(image, '/') : NULL;
    const char *tag = strrchr(slash ? slash : image ? image : "", ':');
    if (tag == NULL || strchr(image, '@') != NULL || (unsigned)e > 2 ||
        strstr(image, own[e]) == NULL)
        return;
    tag += tag[1] == 'v' ? 2 : 1;
    size_t n = strcspn(tag, "-");
    if (n > 0 && n < size && tag[0] >= '0' && tag[0] <= '9')
        snprintf(out, size, "%.*s", (int)n, tag);
}

/* The profile `o` follows for its engine */
static const char *followed(const kvplan_options *o)
{
    kvplan_engine e = o->engine;
    return e == KVPLAN_ENGINE_SGLANG
               ? kvplan_sglang_profile_name(o->plan.sglang_version)
           : e == KVPLAN_ENGINE_VLLM
               ? kvplan_vllm_profile_name(o->engine_options.vllm_version)
               : kvplan_trtllm_profile_name(o->engine_options.trtllm_version);
}

bool cli_k8s_image_version(const char *image, cli_args *cli, char *note,
                           size_t size, cli_k8s_rules *r)
{
    static const char *const flags[] = {"--sglang-version", "--vllm-version",
                                        "--trtllm-version"};
    static const char *const names[] = {"sglang", "vLLM", "TensorRT-LLM"};
    kvplan_options *o = &cli->o;
    const struct kvplan__options_internal *in = &o->internal_;
    kvplan_engine e = o->engine;
    const char *given = e == KVPLAN_ENGINE_SGLANG ? in->sglang_version_text
                        : e == KVPLAN_ENGINE_VLLM ? in->vllm_version_text
                                                  : in->trtllm_version_text;
    r->from = "command";
    r->profile = followed(o);
    snprintf(r->release, sizeof r->release, "%s", given ? given : "");
    if (given != NULL || (unsigned)e > 2)
        return false; /* the command line's own */
    char rel[40];
    tag_release(image, e, rel, sizeof rel);
    kvplan_error err;
    bool set = rel[0] != '\0' &&
               kvplan_options_set(o, flags[e], rel, &err) == KVPLAN_OK;
    snprintf(r->release, sizeof r->release, "%s", rel);
    r->profile = followed(o);
    r->from = set ? "image" : "default";
    if (rel[0] != '\0' && !set)
        snprintf(note, size,
                 "the image's tag names %s %s, which kvplan has no profile "
                 "for: planned under %s's rules (%s to choose)",
                 names[e], rel, r->profile, flags[e]);
    else if (set)
        snprintf(note, size,
                 "%s %s, the image's tag: planned under its rules (%s)",
                 names[e], rel, r->profile);
    else
        snprintf(note, size,
                 "the image (%.120s) names no %s release: planned under "
                 "kvplan's default, %s (%s to choose)",
                 image && image[0] ? image : "none given", names[e], r->profile,
                 flags[e]);
    return true;
}

const char *cli_k8s_program(const cli_k8s_launch *l, char *buf, size_t size)
{
    int i = cli_launch_find(l->argc, l->argv);
    size_t used = 0;
    snprintf(buf, size, "%s", i < 0 ? "its command not read" : "");
    for (int k = i; k >= 0 && k < l->argc && k < i + 4; k++) {
        if (k > i + 1 && l->argv[k][0] == '-')
            break;
        int w = snprintf(buf + used, size - used, "%s%s", k > i ? " " : "",
                         l->argv[k]);
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
    }
    return buf;
}
