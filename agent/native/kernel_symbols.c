/* /proc/kallsyms read once into a sorted table: "ADDRESS TYPE NAME [MODULE]". */
#include "native/kernel_symbols.h"

#include "fg/grow_array.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct entry {
  uint64_t addr;
  uint32_t name;
};

static int by_addr(const void *a, const void *b)
{
  uint64_t x = ((const struct entry *)a)->addr, y = ((const struct entry *)b)->addr;
  return (x > y) - (x < y);
}

/* One line "ADDRESS TYPE NAME[\tMODULE]": 1 with a text symbol's address and
 * name (not NUL-ended: *len), 0 for any other line. */
static int parse_line(const char *p, const char *end, uint64_t *addr, const char **name, size_t *len)
{
  uint64_t a = 0;
  const char *q = p;
  for (; q < end; q++) {
    int d = *q >= '0' && *q <= '9' ? *q - '0' : *q >= 'a' && *q <= 'f' ? *q - 'a' + 10 : -1;
    if (d < 0)
      break;
    a = a << 4 | (uint64_t)d;
  }
  if (q == p || end - q < 4 || q[0] != ' ' || q[2] != ' ' || !q[1] || !strchr("tTwW", q[1]))
    return 0;
  const char *n = q + 3, *e = n;
  while (e < end && *e != '\t' && *e != '\n' && *e != ' ' && *e != '\0')
    e++;
  *addr = a;
  *name = n;
  *len = (size_t)(e - n);
  /* __pfx_NAME: the padding before NAME (kernels built with call-depth
   * tracking), never a pc of its own: half the symbols, left out */
  return *len > 0 && !(*len > 6 && memcmp(n, "__pfx_", 6) == 0);
}

/* The table being read: its entries, unsorted, and their names. */
struct reading {
  struct entry *e;
  size_t n, nlen, zero;
  uint32_t cap, ncap;
};

/* The whole lines of [p, stop) into r; the unfinished last one's start in
 * *rest. 0, or -1 when out of memory. */
static int add_lines(struct fg_kernel_symbols *k, struct reading *r, const char *p, const char *stop, const char **rest)
{
  const char *nl;
  for (; (nl = memchr(p, '\n', (size_t)(stop - p))) != NULL; p = nl + 1) {
    uint64_t addr;
    const char *name;
    size_t len;
    if (!parse_line(p, nl + 1, &addr, &name, &len))
      continue;
    if (fg_grow_array((void **)&r->e, &r->cap, sizeof *r->e, r->n + 1) != 0 ||
        fg_grow_array((void **)&k->names, &r->ncap, 1, r->nlen + len + 1) != 0)
      return -1;
    memcpy(k->names + r->nlen, name, len);
    k->names[r->nlen + len] = '\0';
    r->e[r->n++] = (struct entry){addr, (uint32_t)r->nlen};
    r->nlen += len + 1;
    r->zero += addr == 0;
  }
  *rest = p;
  return 0;
}

/* The sorted table from r (freed), after reading ended with rc. */
static int finish(struct fg_kernel_symbols *k, struct reading *r, int rc)
{
  size_t n = r->n;
  k->hidden = n > 0 && r->zero == n;
  if (rc != 0 || k->hidden || n == 0) {
    free(r->e);
    free(k->names);
    k->names = NULL;
    return rc;
  }
  qsort(r->e, n, sizeof *r->e, by_addr);
  k->addr = malloc(n * sizeof *k->addr);
  k->name = malloc(n * sizeof *k->name);
  if (!k->addr || !k->name) {
    free(r->e);
    fg_ksyms_free(k);
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    k->addr[i] = r->e[i].addr;
    k->name[i] = r->e[i].name;
  }
  k->n = n;
  free(r->e);
  return 0;
}

int fg_ksyms_parse(struct fg_kernel_symbols *k, const char *text, size_t len)
{
  memset(k, 0, sizeof *k);
  struct reading r = {0};
  const char *rest;
  int rc = add_lines(k, &r, text, text + len, &rest);
  return finish(k, &r, rc);
}

int fg_ksyms_load(struct fg_kernel_symbols *k, const char *path)
{
  memset(k, 0, sizeof *k);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  struct reading r = {0};
  size_t have = 0;
  char buf[1 << 16];
  int rc = 0;
  for (;;) {   /* whole lines from big reads: the file is 5 MB of them */
    ssize_t got = read(fd, buf + have, sizeof buf - have);
    if (got < 0) {
      rc = -1;
      break;
    }
    have += (size_t)got;
    const char *p;
    rc = add_lines(k, &r, buf, buf + have, &p);
    if (rc != 0 || got == 0)
      break;
    have = (size_t)(buf + have - p);
    memmove(buf, p, have);
    if (have == sizeof buf)
      have = 0;   /* a line longer than the buffer: dropped */
  }
  close(fd);
  return finish(k, &r, rc);
}

void fg_ksyms_free(struct fg_kernel_symbols *k)
{
  free(k->addr);
  free(k->name);
  free(k->names);
  int hidden = k->hidden;
  memset(k, 0, sizeof *k);
  k->hidden = hidden;
}

void fg_ksyms_name(const struct fg_kernel_symbols *k, uint64_t pc, char *buf, size_t len)
{
  if (k->n == 0 || pc < k->addr[0]) {
    snprintf(buf, len, "[kernel]");
    return;
  }
  size_t lo = 0, hi = k->n;   /* the last symbol at or below pc */
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (k->addr[mid] <= pc)
      lo = mid;
    else
      hi = mid;
  }
  snprintf(buf, len, "%s", k->names + k->name[lo]);
}
