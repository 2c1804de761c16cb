/* Reads collapsed stacks ("root;caller;leaf count" per line), ours or any
 * other tool's (async-profiler, flamegraph.pl's stackcollapse-*), into a
 * profile. A pure decoder over a byte buffer: fuzzable on its own. */
#ifndef FG_COLLAPSED_READER_H
#define FG_COLLAPSED_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The most samples a profile may hold in all: 2^53, the largest whole number a
 * JSON reader (speedscope, the flame graph's page) holds exactly. */
#define FG_MAX_TOTAL_SAMPLES (UINT64_C(1) << 53)

struct fg_profile;

/* Parses len bytes of text named source (for messages). Adds to p, which
 * must be initialised. Blank lines and lines starting with '#' are skipped.
 * On the first bad line returns -1 and writes "SOURCE:LINE: what is wrong;
 * accepted: ..." into err; the profile then holds the lines before it.
 * Counts that would take p's total past FG_MAX_TOTAL_SAMPLES are refused. */
int fg_parse_collapsed(const char *data, size_t len, const char *source, struct fg_profile *p,
                       char *err, size_t errlen);

/* Reads a whole file (path "-" reads standard input) and parses it: a JFR
 * recording (fg/jfr_reader.h, read as flags say: FG_JFR_LINES, FG_JFR_WALL)
 * when it starts like one, else collapsed stacks, named as they are. An
 * empty file, or one with no stack, is an error too (cli/profile_input.c). */
int fg_read_profile_input(const char *path, unsigned flags, struct fg_profile *p, char *err, size_t errlen);

#endif
