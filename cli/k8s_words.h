/*
 * k8s_words.h: a container's command as the kubelet and its shell give it
 * to the server (k8s_words.c): $(VAR) expanded from the container's
 * literal variables, a sh -c script's simple commands, the image's
 * entrypoint. For k8s.c.
 */
#ifndef KVPLAN_K8S_WORDS_H
#define KVPLAN_K8S_WORDS_H

#include "flags.h"
#include "k8s.h"

/* The container's literal variables, in their order. */
#define CLI_K8S_MAX_ENV 128
typedef struct cli_k8s_env {
    size_t n;
    const char *name[CLI_K8S_MAX_ENV], *value[CLI_K8S_MAX_ENV];
} cli_k8s_env;

/* The words' text: an arena the launch owns. */
typedef struct cli_k8s_arena {
    char *buf;
    size_t used, size;
} cli_k8s_arena;

/* The value of `name` (`len` bytes): the last definition's; NULL. */
const char *cli_k8s_env_get(const cli_k8s_env *env, const char *name,
                            size_t len);
/* A copy of `s` in the arena; NULL when it is full. */
char *cli_k8s_arena_put(cli_k8s_arena *a, const char *s, size_t len);
/* $(VAR) as the kubelet expands command and args ($$ is $; a variable
 * not defined literally stays, with a note on `l`). */
char *cli_k8s_expand(cli_k8s_arena *a, const char *s, const cli_k8s_env *env,
                     cli_k8s_launch *l);
/* $NAME and ${NAME} of a shell script, for the literal variables. */
char *cli_k8s_expand_shell(cli_k8s_arena *a, const char *s,
                           const cli_k8s_env *env);
/* The script of a sh -c / bash -c command, or NULL. */
const char *cli_k8s_shell_script(int argc, char **argv);
/* The script's first simple command that starts a server, its words in
 * the arena; their count, 0 when none does. */
int cli_k8s_script_launch(cli_k8s_arena *a, const char *script, char **words,
                          int max, cli_k8s_launch *l);
/* The command an image starts where the container gives args only; NULL
 * when not known. */
const char *const *cli_k8s_entrypoint(const char *image);
/* A note on the launch (CLI_K8S_MAX_NOTES at most). */
void cli_k8s_note(cli_k8s_launch *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The command was not read whole: the first reason is kept. */
void cli_k8s_unread(cli_k8s_launch *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Whose rules a server was planned under, for automation (the check's
 * JSON "rules"): the release named ("" where none), the profile followed,
 * and where the release came from: "command" (its version flag), "image"
 * (the engine's image tag), "default" (none, or one kvplan has no
 * profile for). */
typedef struct cli_k8s_rules {
    char release[40];
    const char *profile, *from;
} cli_k8s_rules;

/* The engine's version flag (--sglang-version, --vllm-version,
 * --trtllm-version) set from the release the container's image tag
 * names, unless the command line gives it; the sentence for the report
 * (which rules, and why) in `note`, and the same in `r`. False where the
 * command line chose (no note). */
bool cli_k8s_image_version(const char *image, cli_args *cli, char *note,
                           size_t size, cli_k8s_rules *r);

/* The program and its first words of a launch's command ("trtllm-serve
 * MODEL"), in buf; "its command not read" when none starts a server. */
const char *cli_k8s_program(const cli_k8s_launch *l, char *buf, size_t size);

#endif /* KVPLAN_K8S_WORDS_H */
