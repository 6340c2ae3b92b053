/*
 * launch.h: a launch command pasted after "--" (launch.c): split as a
 * shell splits it when quoted whole, its program recognised (sglang, vLLM,
 * TensorRT-LLM), its leading VAR=value words read as the environment and
 * its flags in that engine's spelling.
 */
#ifndef KVPLAN_LAUNCH_H
#define KVPLAN_LAUNCH_H

#include "flags.h"

/* Splits `s` as a POSIX shell splits a simple command: blanks, '...',
 * "..." with \" \\ \$ \` escapes, \ outside quotes, \ at a line's end,
 * # comments. Pipes, lists, redirections, substitutions and variables
 * are refused (err names "--"). The words' text goes into `buf` (at least
 * strlen(s) + 1 bytes), their starts into `words`. */
kvplan_status cli_shell_split(const char *s, char *buf, char **words,
                              int max_words, int *nwords, kvplan_error *err);

/* argv with a command quoted whole after "--" split into its words: the
 * new argc, *out_argv (argv itself when nothing was split) and *owned, to
 * free after the command (NULL when nothing was split); -1 with `err`
 * when the string cannot be split. */
int cli_expand_launch(int argc, char **argv, char ***out_argv, char **owned,
                      kvplan_error *err);

/* The program whose flags and config the command line gives: the pasted
 * command's, else the engine's own (kvplan's --config under --engine). */
static inline const char *cli_launch_program(const cli_launch *l)
{
    return l->program                          ? l->program
           : l->engine == KVPLAN_ENGINE_VLLM   ? "vllm serve"
           : l->engine == KVPLAN_ENGINE_TRTLLM ? "trtllm-serve"
                                               : "sglang";
}

/* Reads the program of a pasted command at argv[i]: the environment, the
 * engine (set as --engine unless given, then it must agree) and a
 * positional model. *first_flag is where its flags start. */
kvplan_status cli_launch_start(int argc, char **argv, int i, cli_args *cli,
                               int *first_flag, kvplan_error *err);

/* The index of the word that starts a server (python3 -m
 * sglang.launch_server, sglang serve, vllm serve, python3 -m
 * vllm.entrypoints.openai.api_server, trtllm-serve), or -1: where a
 * container's command, after its wrappers, starts the engine. */
int cli_launch_find(int argc, char *const *argv);

/* One flag of a pasted vLLM or TensorRT-LLM command (argv[*i]), in that
 * engine's spelling: set, refused (another engine's flag), or listed as
 * not read. */
kvplan_status cli_launch_flag(int argc, char **argv, int *i, cli_args *cli,
                              kvplan_error *err);

/* Lists `word` (kept in the launch's own room) as not read. */
void cli_launch_not_read(cli_launch *l, const char *word);

/* `--config FILE` (`v`; NULL: none followed) as vllm serve and sglang
 * read it, `engine` naming the one: a second one (the first `kept`)
 * refused in its own words `twice`; --config=FILE (`eq`), which neither
 * merges, said in the launch's config note. True when the file is to be
 * read; *st the refusal, if any. */
bool cli_launch_config_value(cli_args *cli, const char *engine,
                             const char *twice, const char *v, bool eq,
                             const char *kept, kvplan_status *st,
                             kvplan_error *err);

/* The launch's flags kvplan does not read as one sentence: those that
 * change no GPU memory (`memory` false), or those that do, each with what
 * it changes; the count of flags said (0: nothing written). */
size_t cli_launch_note_text(const cli_args *cli, bool memory, char *out,
                            size_t size);
/* "kvplan: vllm serve flags kvplan does not read: --host, --port" on
 * `out`, when there are any. */
void cli_launch_notes(FILE *out, const cli_args *cli);

#endif /* KVPLAN_LAUNCH_H */
