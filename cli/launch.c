/*
 * launch.c: a launch command pasted after "--" (cli/launch.h). The words
 * are read as the engine that command starts would read them: sglang's
 * launch_server or `sglang serve`, `vllm serve` or vLLM's OpenAI
 * api_server module, `trtllm-serve`. Leading VAR=value words are its
 * environment. One quoted string is first split as a POSIX shell splits
 * it. Anything else after "--" is refused: a plan of words kvplan did not
 * read would be a plan of the defaults.
 */
#include "launch.h"

#include "cli.h"
#include "common/option_table.h"
#include "launch_trtllm.h"
#include "launch_vllm.h"
#include "options/options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- one quoted string, split as a shell splits it ------------------------
 */

/* Shell syntax kvplan cannot carry out (a pipe, a list, a redirection, a
 * substitution): refused rather than read as words. */
static const char *shell_syntax(char c, char next)
{
    switch (c) {
    case '|':
        return "a pipe (|)";
    case ';':
        return "a list (;)";
    case '&':
        return "a list or background job (&)";
    case '<':
    case '>':
        return "a redirection (< or >)";
    case '`':
        return "a command substitution (`...`)";
    case '(':
    case ')':
        return "a subshell ((...))";
    case '$':
        return next == '(' ? "a command substitution ($(...))"
                           : "a variable ($NAME): give its value";
    default:
        return NULL;
    }
}

kvplan_status cli_shell_split(const char *s, char *buf, char **words,
                              int max_words, int *nwords, kvplan_error *err)
{
    int n = 0;
    char *out = buf;
    bool in_word = false;
    for (const char *p = s;; p++) {
        char c = *p;
        if (c == '\0' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            if (in_word) {
                *out++ = '\0';
                in_word = false;
            }
            if (c == '\0')
                break;
            continue;
        }
        if (c == '#' && !in_word)
            break; /* a comment to the end */
        if (!in_word) {
            if (n == max_words)
                return cli_usage_error(
                    err, "--",
                    "--: the pasted command has more than %d "
                    "words",
                    max_words);
            words[n++] = out;
            in_word = true;
        }
        if (c == '\\') {
            if (p[1] == '\n') { /* a line continued */
                p++;
                if (out == words[n - 1]) {
                    n--; /* nothing of the word yet */
                    in_word = false;
                }
                continue;
            }
            if (p[1] != '\0')
                *out++ = *++p;
            continue;
        }
        if (c == '\'') {
            const char *end = strchr(p + 1, '\'');
            if (end == NULL)
                return cli_usage_error(err, "--",
                                       "--: the pasted command opens a ' it "
                                       "does not close");
            memcpy(out, p + 1, (size_t)(end - p - 1));
            out += end - p - 1;
            p = end;
            continue;
        }
        if (c == '"') {
            for (p++; *p != '"'; p++) {
                if (*p == '\0')
                    return cli_usage_error(err, "--",
                                           "--: the pasted command opens a "
                                           "\" it does not close");
                if (*p == '$' || *p == '`')
                    return cli_usage_error(err, "--",
                                           "--: the pasted command holds %s, "
                                           "which kvplan does not carry out",
                                           shell_syntax(*p, p[1]));
                if (*p == '\\' && strchr("\"\\$`\n", p[1]) != NULL) {
                    if (*++p != '\n')
                        *out++ = *p;
                    continue;
                }
                *out++ = *p;
            }
            continue;
        }
        const char *what = shell_syntax(c, p[1]);
        if (what != NULL)
            return cli_usage_error(
                err, "--",
                "--: the pasted command holds %s, which "
                "kvplan does not carry out; paste one command",
                what);
        *out++ = c;
    }
    *nwords = n;
    return KVPLAN_OK;
}

static bool is_assignment(const char *word);

int cli_expand_launch(int argc, char **argv, char ***out_argv, char **owned,
                      kvplan_error *err)
{
    *out_argv = argv;
    *owned = NULL;
    int dash = -1;
    for (int i = 1; i < argc && dash < 0; i++)
        if (strcmp(argv[i], "--") == 0)
            dash = i;
    /* the first word after "--" holding a blank: a command quoted whole
     * (what follows it is kept) */
    if (dash < 0 || dash + 1 >= argc ||
        strpbrk(argv[dash + 1], " \t\n") == NULL)
        return argc;
    /* "X=a b" python3 ...: a value with a blank, the program after it */
    for (int i = dash + 2; i < argc && is_assignment(argv[dash + 1]); i++)
        if (argv[i][0] != '-')
            return argc;
    const char *s = argv[dash + 1];
    size_t len = strlen(s);
    enum { MAX_WORDS = 1024 };
    /* the words' text (never longer than the string) and the new argv */
    int rest = argc - dash - 2; /* after the quoted command */
    size_t slots = (size_t)(dash + 1 + MAX_WORDS + rest + 1);
    size_t need = len + 1 + slots * sizeof(char *);
    if (len >= (1u << 20)) {
        cli_usage_error(err, "--", "--: the pasted command is over 1 MiB");
        return -1;
    }
    char *mem = malloc(need);
    if (mem == NULL) {
        cli_usage_error(err, "--", "out of memory");
        err->code = KVPLAN_NOMEM;
        return -1;
    }
    char **nv = (char **)(void *)mem;
    char *text = mem + slots * sizeof(char *);
    memcpy(nv, argv, (size_t)(dash + 1) * sizeof(char *));
    int n = 0;
    if (cli_shell_split(s, text, nv + dash + 1, MAX_WORDS, &n, err) !=
        KVPLAN_OK) {
        free(mem);
        return -1;
    }
    memcpy(nv + dash + 1 + n, argv + dash + 2, (size_t)rest * sizeof(char *));
    nv[dash + 1 + n + rest] = NULL;
    *out_argv = nv;
    *owned = mem;
    return dash + 1 + n + rest;
}

/* ---- the command's program ------------------------------------------------
 */

/* The last part of a path ("/usr/bin/python3" -> "python3"). */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static bool is_python(const char *word)
{
    const char *b = base_name(word);
    if (strncmp(b, "python", 6) != 0)
        return false;
    for (b += 6; *b; b++)
        if (!((*b >= '0' && *b <= '9') || *b == '.'))
            return false;
    return true;
}

/* VAR=value: a name of letters, digits and '_', not starting with a
 * digit. */
static bool is_assignment(const char *word)
{
    const char *eq = strchr(word, '=');
    if (eq == NULL || eq == word || (word[0] >= '0' && word[0] <= '9'))
        return false;
    for (const char *p = word; p < eq; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || *p == '_'))
            return false;
    return true;
}

/* A python module that starts a server, and its engine. */
static int module_engine(const char *m)
{
    if (strcmp(m, "sglang.launch_server") == 0)
        return KVPLAN_ENGINE_SGLANG;
    if (strcmp(m, "vllm.entrypoints.openai.api_server") == 0)
        return KVPLAN_ENGINE_VLLM;
    return -1;
}

int cli_launch_find(int argc, char *const *argv)
{
    for (int j = 0; j < argc; j++) {
        const char *b = base_name(argv[j]);
        if (is_python(argv[j])) {
            int k = j + 1;
            while (k < argc && argv[k][0] == '-' && strcmp(argv[k], "-m") != 0)
                k++;
            if (k + 1 < argc && strcmp(argv[k], "-m") == 0 &&
                module_engine(argv[k + 1]) >= 0)
                return j;
        } else if ((strcmp(b, "sglang") == 0 || strcmp(b, "vllm") == 0) &&
                   j + 1 < argc && strcmp(argv[j + 1], "serve") == 0) {
            return j;
        } else if (strcmp(b, "trtllm-serve") == 0) {
            return j;
        }
    }
    return -1;
}

static kvplan_status not_a_launch(kvplan_error *err, const char *word)
{
    return cli_usage_error(
        err, "--",
        "--: '%.80s' does not start a server kvplan knows; after -- paste "
        "one of: python3 -m sglang.launch_server ARGS, sglang serve ARGS, "
        "vllm serve MODEL ARGS, python3 -m "
        "vllm.entrypoints.openai.api_server ARGS, trtllm-serve MODEL ARGS "
        "(or sglang's ARGS alone)",
        word);
}

/* The environment the command's leading VAR=value words give. */
static kvplan_status take_env(cli_args *cli, const char *word,
                              kvplan_error *err)
{
    cli_launch *l = &cli->launch;
    size_t k = l->num_env;
    if (k == CLI_MAX_LAUNCH_ENV)
        return cli_usage_error(err, "--",
                               "--: more than %d variables before the "
                               "command",
                               CLI_MAX_LAUNCH_ENV);
    const char *eq = strchr(word, '=');
    snprintf(l->env_names[k], sizeof l->env_names[k], "%.*s", (int)(eq - word),
             word);
    l->env[2 * k] = l->env_names[k];
    l->env[2 * k + 1] = eq + 1;
    l->env[2 * k + 2] = NULL;
    l->num_env++;
    return KVPLAN_OK;
}

kvplan_status cli_launch_start(int argc, char **argv, int i, cli_args *cli,
                               int *first_flag, kvplan_error *err)
{
    cli_launch *l = &cli->launch;
    memset(l, 0, sizeof *l);
    int j = i;
    /* env VAR=value ... / exec / VAR=value ... */
    for (; j < argc; j++) {
        if (strcmp(argv[j], "env") == 0 || strcmp(argv[j], "exec") == 0)
            continue;
        if (!is_assignment(argv[j]))
            break;
        CLI_TRY(take_env(cli, argv[j], err));
    }
    int engine = -1;
    const char *model = NULL;
    if (j == argc) {
        if (j == i)
            return cli_usage_error(err, "--",
                                   "--: no launch command follows it");
        engine = KVPLAN_ENGINE_SGLANG; /* the environment alone */
    } else if (argv[j][0] == '-' && argv[j][1] == '-') {
        engine = KVPLAN_ENGINE_SGLANG; /* sglang's flags alone */
        l->program = "sglang";
    } else if (is_python(argv[j])) {
        int k = j + 1;
        while (k < argc && argv[k][0] == '-' && strcmp(argv[k], "-m") != 0)
            k++; /* python3 -u -m ... */
        if (k + 1 >= argc || strcmp(argv[k], "-m") != 0)
            return not_a_launch(err, argv[j]);
        engine = module_engine(argv[k + 1]);
        if (engine < 0)
            return not_a_launch(err, argv[k + 1]);
        l->program = argv[k + 1];
        j = k + 2;
    } else if ((strcmp(base_name(argv[j]), "sglang") == 0 ||
                strcmp(base_name(argv[j]), "vllm") == 0) &&
               j + 1 < argc && strcmp(argv[j + 1], "serve") == 0) {
        engine = base_name(argv[j])[0] == 's' ? KVPLAN_ENGINE_SGLANG
                                              : KVPLAN_ENGINE_VLLM;
        l->program =
            engine == KVPLAN_ENGINE_SGLANG ? "sglang serve" : "vllm serve";
        j += 2;
        if (j < argc && argv[j][0] != '-')
            model = argv[j++];
    } else if (strcmp(base_name(argv[j]), "trtllm-serve") == 0) {
        engine = KVPLAN_ENGINE_TRTLLM;
        l->program = "trtllm-serve";
        j++;
        if (j < argc && strcmp(argv[j], "serve") == 0)
            j++;
        if (j < argc && argv[j][0] != '-')
            model = argv[j++];
    } else {
        return not_a_launch(err, argv[j]);
    }
    if (l->num_env > 0) {
        cli->o.env = l->env;
        kvplan_options_read_env(&cli->o);
    }
    if (model != NULL)
        cli->o.model_path = model;
    /* the engine the command starts, unless --engine said another */
    const char *given = cli->o.internal_.engine_text;
    if (given != NULL && (int)cli->o.engine != engine)
        return cli_usage_error(
            err, "--engine",
            "--engine %s, but the command after -- starts %s (%s): drop "
            "one",
            given, kvplan_engine_name((kvplan_engine)engine),
            cli_launch_program(l));
    if (given == NULL && engine != KVPLAN_ENGINE_SGLANG)
        CLI_TRY(kvplan_options_set(&cli->o, "--engine",
                                   kvplan_engine_name((kvplan_engine)engine),
                                   err));
    l->engine = (kvplan_engine)engine;
    l->active = true;
    *first_flag = j;
    return KVPLAN_OK;
}

/* ---- another engine's flags -----------------------------------------------
 */

/* A flag's name (its first `*len` characters) as the tables spell it:
 * vLLM's underscores as dashes, trtllm-serve's other names as the one its
 * table holds (--tensor_parallel_size: --tp_size); *len follows. */
static const char *table_name(kvplan_engine e, const char *flag, size_t *len,
                              char *buf, size_t size)
{
    if (e == KVPLAN_ENGINE_VLLM)
        return cli_vllm_name(flag, *len, buf, size);
    const char *other =
        e == KVPLAN_ENGINE_TRTLLM ? cli_trtllm_canonical(flag, *len) : NULL;
    if (other != NULL)
        *len = strlen(other);
    return other != NULL ? other : flag;
}

/* The option `flag` names in `engine`'s own spelling (the table's vllm and
 * trtllm columns; vLLM's -tp and -pp). */
static const kvplan_option *engine_option(kvplan_engine engine,
                                          const char *flag, size_t len)
{
    char name[96];
    snprintf(name, sizeof name, "%.*s", (int)(len < 90 ? len : 90), flag);
    if (engine == KVPLAN_ENGINE_VLLM && strcmp(name, "-tp") == 0)
        return kvplan_option_find("--tensor-parallel-size");
    if (engine == KVPLAN_ENGINE_VLLM && strcmp(name, "-pp") == 0)
        return kvplan_option_find("--pipeline-parallel-size");
    if (engine == KVPLAN_ENGINE_VLLM && strcmp(name, "-q") == 0)
        return kvplan_option_find("--quantization");
    const kvplan_option *o;
    for (size_t k = 0; (o = kvplan_option_at(k)) != NULL; k++) {
        const char *own = engine == KVPLAN_ENGINE_VLLM ? o->vllm : o->trtllm;
        if (own != NULL && strcmp(own, name) == 0)
            return o;
    }
    return NULL;
}

/* The engines' own flags that kvplan's table spells as sglang's, and their
 * plans do not read: vLLM's data parallelism (each replica's GPUs hold the
 * same plan; the experts spread with --enable-expert-parallel, said
 * there), TensorRT-LLM's --ep_size (said as changing memory). */
static bool own_only(kvplan_engine e, const char *flag, size_t len)
{
    static const struct {
        kvplan_engine engine;
        const char *flag;
    } flags[] = {{KVPLAN_ENGINE_VLLM, "-dp"},
                 {KVPLAN_ENGINE_VLLM, "--data-parallel-size"},
                 {KVPLAN_ENGINE_TRTLLM, "--ep_size"}};
    for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
        if (flags[k].engine == e && strlen(flags[k].flag) == len &&
            memcmp(flags[k].flag, flag, len) == 0)
            return true;
    return false;
}

kvplan_status cli_launch_flag(int argc, char **argv, int *i, cli_args *cli,
                              kvplan_error *err)
{
    cli_launch *l = &cli->launch;
    const char *arg = argv[*i];
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    const char *program = cli_launch_program(l);
    if (!(arg[0] == '-' && arg[1] != '\0'))
        return cli_usage_error(err, arg,
                               "--: '%.80s' is not a flag of %s (one model "
                               "only, before the flags)",
                               arg, program);
    kvplan_status st;
    if ((l->engine == KVPLAN_ENGINE_TRTLLM &&
         cli_trtllm_flag(argc, argv, i, cli, &st, err)) ||
        (l->engine == KVPLAN_ENGINE_VLLM &&
         cli_vllm_config_flag(argc, argv, i, cli, &st, err)))
        return st;
    char buf[128]; /* vLLM's --max_model_len is its --max-model-len */
    size_t klen = len;
    const char *key = table_name(l->engine, arg, &klen, buf, sizeof buf);
    if (own_only(l->engine, key, klen)) {
        /* the engine's own, spelled as one of sglang's kvplan reads */
        if (l->num_not_read < CLI_MAX_LAUNCH_NOT_READ)
            l->not_read[l->num_not_read++] = arg;
        if (eq == NULL && *i + 1 < argc && cli_is_value(argv[*i + 1]))
            ++*i;
        return KVPLAN_OK;
    }
    const kvplan_option *o = engine_option(l->engine, key, klen);
    if (o == NULL) {
        /* another engine's flag kvplan knows: not this command's */
        const kvplan_option *ours = kvplan_option_find_n(key, klen);
        if (ours != NULL && ours->type != KVPLAN_OPTION_NOT_READ &&
            ours->scope != KVPLAN_SCOPE_OUTPUT) {
            const char *peer = kvplan__row_of(ours)->peer[l->engine];
            const kvplan_option *p = peer ? kvplan_option_find(peer) : NULL;
            const char *own = p == NULL                         ? NULL
                              : l->engine == KVPLAN_ENGINE_VLLM ? p->vllm
                                                                : p->trtllm;
            return cli_usage_error(
                err, ours->flag, "--: %.*s is not a flag of %s%s%s%s", (int)len,
                arg, program, own ? "; the same for it is " : "",
                own ? own : "",
                own ? "" : " (give it before --, where kvplan reads it)");
        }
        /* the engine's own, not read by kvplan: listed */
        if (l->num_not_read < CLI_MAX_LAUNCH_NOT_READ)
            l->not_read[l->num_not_read++] = arg;
        if (eq == NULL)
            while (*i + 1 < argc && cli_is_value(argv[*i + 1]))
                ++*i;
        return KVPLAN_OK;
    }
    if (o->type == KVPLAN_OPTION_SWITCH) /* --enforce-eager[=false] */
        return kvplan_options_set(&cli->o, o->flag, eq ? eq + 1 : NULL, err);
    const char *v = eq ? eq + 1 : NULL;
    if (v == NULL && *i + 1 < argc)
        v = argv[++*i];
    if (v == NULL)
        return cli_usage_error(err, arg, "%.*s needs a value", (int)len, arg);
    st = kvplan_options_set(&cli->o, o->flag, v, err);
    if (st != KVPLAN_OK && err->code != KVPLAN_NOMEM)
        snprintf(err->field, sizeof err->field, "%.*s",
                 (int)(len < 100 ? len : 100), arg);
    return st;
}

/* What a flag the launch did not read changes in GPU memory; NULL: none
 * (launch_vllm.c's and launch_trtllm.c's tables). */
static const char *memory_effect(kvplan_engine e, const char *a)
{
    const char *eq = strchr(a, '=');
    size_t n = eq ? (size_t)(eq - a) : strlen(a);
    char buf[128];
    a = table_name(e, a, &n, buf, sizeof buf);
    return e == KVPLAN_ENGINE_VLLM     ? cli_vllm_memory_effect(a, n)
           : e == KVPLAN_ENGINE_TRTLLM ? cli_trtllm_memory_effect(a, n)
                                       : NULL;
}

void cli_launch_not_read(cli_launch *l, const char *word)
{
    size_t k = l->num_not_read;
    if (k >= CLI_MAX_LAUNCH_NOT_READ)
        return;
    snprintf(l->config_words[k], sizeof l->config_words[k], "%s", word);
    l->not_read[l->num_not_read++] = l->config_words[k];
}

bool cli_launch_config_value(cli_args *cli, const char *engine,
                             const char *twice, const char *v, bool eq,
                             const char *kept, kvplan_status *st,
                             kvplan_error *err)
{
    *st = v == NULL ? cli_usage_error(err, "--config", "--config needs a value")
          : kept != NULL ? cli_usage_error(err, "--config",
                                           "--config twice: %s refuses it "
                                           "(\"%s\")",
                                           engine, twice)
                         : KVPLAN_OK;
    if (*st == KVPLAN_OK && eq) /* merged on `"--config" in argv` only */
        snprintf(cli->launch.config_note, sizeof cli->launch.config_note,
                 "--config=%.200s is not read, by %s either: it merges a "
                 "config file given as two words, --config FILE, only",
                 v, engine);
    return *st == KVPLAN_OK && !eq;
}

size_t cli_launch_note_text(const cli_args *cli, bool memory, char *out,
                            size_t size)
{
    const cli_launch *l = &cli->launch;
    size_t used = 0, n = 0;
    char who[300];
    const char *program = cli_launch_program(l);
    const char *file = l->config_path ? l->config_path : cli->sglang_config;
    if (file != NULL)
        snprintf(who, sizeof who, "%s flags and %.200s members", program,
                 base_name(file));
    else
        snprintf(who, sizeof who, "%s flags", program);
    out[0] = '\0';
    for (size_t k = 0; k < l->num_not_read; k++) {
        const char *a = l->not_read[k];
        const char *why = memory_effect(l->engine, a);
        if ((why != NULL) != memory)
            continue;
        const char *eq = strchr(a, '=');
        int len = (int)(eq ? (size_t)(eq - a) : strlen(a));
        int w = n == 0 ? snprintf(out + used, size - used, "%s %s: %.*s", who,
                                  memory ? "that change GPU memory in ways "
                                           "kvplan does not model"
                                         : "kvplan does not read",
                                  len, a)
                       : snprintf(out + used, size - used, ", %.*s", len, a);
        if (w > 0 && (size_t)w < size - used)
            used += (size_t)w;
        if (memory) {
            w = snprintf(out + used, size - used, " (%s)", why);
            if (w > 0 && (size_t)w < size - used)
                used += (size_t)w;
        }
        n++;
    }
    return n;
}

void cli_launch_notes(FILE *out, const cli_args *cli)
{
    char line[1200];
    if (cli_launch_note_text(cli, false, line, sizeof line) > 0)
        fprintf(out, "kvplan: %s\n", line);
    if (cli_launch_note_text(cli, true, line, sizeof line) > 0)
        fprintf(out, "kvplan: %s\n", line);
    const cli_launch *l = &cli->launch;
    if (l->config_note[0] != '\0')
        fprintf(out, "kvplan: %s\n", l->config_note);
    /* the command's environment: what kvplan does not read, said */
    size_t said = 0;
    for (size_t k = 0; k < l->num_env; k++) {
        if (kvplan__env_is_read(l->env_names[k]))
            continue;
        fprintf(out, "%s %s",
                said++ ? "," : "kvplan: variables kvplan does not read:",
                l->env_names[k]);
    }
    if (said > 0)
        fprintf(out, "\n");
}
