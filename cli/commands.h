/* fgprof's subcommands. Each returns the process exit status. */
#ifndef FG_COMMANDS_H
#define FG_COMMANDS_H

/* "fgprof[ COMMAND]: WHAT 'VALUE'" and a pointer to --help on stderr; 2. */
int fg_cli_bad(const char *command, const char *what, const char *value);

/* convert's exit status when IN is bad past what was read: OUT was written
 * from that (a recording of a JVM that crashed is cut short). */
#define FG_EXIT_CUT 4
int fg_cmd_convert(int argc, char **argv);
struct fg_profile;
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
