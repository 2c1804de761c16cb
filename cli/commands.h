/* fgprof's subcommands. Each returns the process exit status. */
#ifndef FG_COMMANDS_H
#define FG_COMMANDS_H

int fg_cmd_convert(int argc, char **argv);
int fg_cmd_diff(int argc, char **argv);
int fg_cmd_attach(int argc, char **argv);
int fg_cmd_profile(int argc, char **argv);

#endif
