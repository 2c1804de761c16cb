/* The columns of ftrace's function_graph output, shared by the call graph
 * and its timeline mode. */
#include "fg/utf8.h"
#include "output/ftrace_columns.h"

#include <inttypes.h>
#include <string.h>

#define TASK_WIDTH 14   /* as ftrace's TRACE_GRAPH_PROCINFO_LENGTH */
#define DURATION_DIGITS 8

int fg_ft_put(FILE *out, const char *s)
{
  return fputs(s, out) < 0 ? -1 : 0;
}

/* Indentation grows with the stack's depth: write it in blocks, not a byte at a time. */
int fg_ft_spaces(FILE *out, int n)
{
  static const char blanks[] = "                                                                ";
  while (n > 0) {
    size_t chunk = n > (int)sizeof blanks - 1 ? sizeof blanks - 1 : (size_t)n;
    if (fwrite(blanks, 1, chunk, out) != chunk)
      return -1;
    n -= (int)chunk;
  }
  return 0;
}

/* "name-tid" centred in TASK_WIDTH, then the column separator. */
int fg_ft_task(FILE *out, const struct fg_thread_info *th)
{
  char cut[200], cell[256];   /* a long name is cut on a character boundary */
  snprintf(cell, sizeof cell, "%s-%d", fg_utf8_copy(cut, sizeof cut, th->name), th->tid);
  for (char *c = cell; *c; c++)
    if (*c == '\n' || *c == '\r')
      *c = '_';
  int spaces = TASK_WIDTH - (int)strlen(cell);
  if (spaces < 0)
    spaces = 0;
  if (fg_ft_put(out, " ") || fg_ft_spaces(out, spaces / 2) || fg_ft_put(out, cell) ||
      fg_ft_spaces(out, spaces - spaces / 2) || fg_ft_put(out, " | "))
    return -1;
  return 0;
}

char fg_ft_mark(uint64_t ns)
{
  static const struct { uint64_t over_ns; char mark; } marks[] = {
    {1000000000ull, '$'}, {100000000ull, '@'}, {10000000ull, '*'},
    {1000000ull, '#'}, {100000ull, '!'}, {10000ull, '+'},
  };
  for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
    if (ns > marks[i].over_ns)
      return marks[i].mark;
  return ' ';
}

/* "# 1234.567 us |": at most 7 digits before the unit, as ftrace prints it. */
int fg_ft_duration(FILE *out, uint64_t ns)
{
  char usecs[32], nsecs[8];
  snprintf(usecs, sizeof usecs, "%" PRIu64, ns / 1000);
  int len = (int)strlen(usecs);
  if (fprintf(out, "%c %s", fg_ft_mark(ns), usecs) < 0)
    return -1;
  if (len < 7) {
    snprintf(nsecs, (size_t)(8 - len), "%03" PRIu64, ns % 1000);
    if (fprintf(out, ".%s", nsecs) < 0)
      return -1;
    len += (int)strlen(nsecs) + 1;
  }
  if (fg_ft_put(out, " us ") || fg_ft_spaces(out, DURATION_DIGITS - len) || fg_ft_put(out, "| "))
    return -1;
  return 0;
}

int fg_ft_no_duration(FILE *out)
{
  return fg_ft_spaces(out, 2 + DURATION_DIGITS + 4) || fg_ft_put(out, "| ") ? -1 : 0;
}

int fg_ft_indent(FILE *out, uint32_t depth)
{
  return fg_ft_spaces(out, (int)(depth * INDENT));
}

