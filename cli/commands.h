/* fgprof's subcommands. Each returns the process exit status. */
#ifndef FG_COMMANDS_H
#define FG_COMMANDS_H

/* "fgprof[ COMMAND]: WHAT 'VALUE'" and a pointer to --help on stderr; 2. */
int fg_cli_bad(const char *command, const char *what, const char *value);

int fg_cmd_convert(int argc, char **argv);
int fg_cmd_diff(int argc, char **argv);
int fg_cmd_attach(int argc, char **argv);
int fg_cmd_profile(int argc, char **argv);

#endif
