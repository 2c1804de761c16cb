/* fgprof's subcommands. Each returns the process exit status. */
#ifndef FG_COMMANDS_H
#define FG_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The help of command (NULL: every command's, after their usage lines) on
 * out: 0, or -1 for a command there is none of (help.c). */
int fg_cli_help(const char *command, FILE *out);
/* Whether a command's arguments (argv[2] on) hold --help or -h. */
int fg_cli_wants_help(int argc, char **argv);

/* "fgprof[ COMMAND]: WHAT 'VALUE'" and a pointer to --help on stderr; 2. */
int fg_cli_bad(const char *command, const char *what, const char *value);

/* OUT with each %e replaced by event (the one letter fgprof expands: a file
 * name's other % are its own) into path. -1 when it does not fit. */
int fg_cli_event_path(const char *out, const char *event, char *path, size_t len);

/* convert's exit status when IN is bad past what was read: OUT was written
 * from that (a recording of a JVM that crashed is cut short). */
#define FG_EXIT_CUT 4
int fg_cmd_convert(int argc, char **argv);
struct fg_profile;
/* Whether name is a stack kind's (fg_stack_event_name: "cpu", "alloc", "live", ...). */
bool fg_event_name_known(const char *name);
/* Every kind's name, ", " between them, into out. */
void fg_event_names_list(char *out, size_t len);
/* Keeps one event of p (asked: "cpu", "alloc", "lock"; NULL: the first p
 * has), read from source: 0, or -1 when p has none of it (said on stderr). */
int fg_pick_event(struct fg_profile *p, const char *asked, const char *source);
int fg_cmd_diff(int argc, char **argv);
int fg_cmd_heatmap(int argc, char **argv);
/* The heatmap page of recording in written to out (any name), samples from
 * from to to (NULL: start, end), for fgprof command: 0, or 2 with the reason said. */
int fg_profile_input_heatmap(const char *in, const char *out, const char *from, const char *to, const char *title,
                             const char *command);
int fg_cmd_attach(int argc, char **argv);
int fg_cmd_profile(int argc, char **argv);

#endif
