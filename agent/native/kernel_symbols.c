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
  if (q == p || end - q < 4 || q[0] != ' ' || q[2] != ' ' || !strchr("tTwW", q[1]))
    return 0;
  const char *n = q + 3, *e = n;
  while (e < end && *e != '\t' && *e != '\n' && *e != ' ')
    e++;
  *addr = a;
  *name = n;
  *len = (size_t)(e - n);
  /* __pfx_NAME: the padding before NAME (kernels built with call-depth
   * tracking), never a pc of its own: half the symbols, left out */
  return *len > 0 && !(*len > 6 && memcmp(n, "__pfx_", 6) == 0);
}

int fg_ksyms_load(struct fg_kernel_symbols *k, const char *path)
{
  memset(k, 0, sizeof *k);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  struct entry *e = NULL;
  size_t n = 0, nlen = 0, zero = 0, have = 0;
  uint32_t cap = 0, ncap = 0;
  char buf[1 << 16];
  int rc = 0;
  for (;;) {   /* whole lines from big reads: the file is 5 MB of them */
    ssize_t got = read(fd, buf + have, sizeof buf - have);
    if (got < 0) {
      rc = -1;
      break;
    }
    have += (size_t)got;
    const char *p = buf, *stop = buf + have;
    const char *nl;
    while ((nl = memchr(p, '\n', (size_t)(stop - p))) != NULL) {
      uint64_t addr;
      const char *name;
      size_t len;
      if (parse_line(p, nl + 1, &addr, &name, &len)) {
        if (fg_grow_array((void **)&e, &cap, sizeof *e, n + 1) != 0 ||
            fg_grow_array((void **)&k->names, &ncap, 1, nlen + len + 1) != 0) {
          rc = -1;
          break;
        }
        memcpy(k->names + nlen, name, len);
        k->names[nlen + len] = '\0';
        e[n++] = (struct entry){addr, (uint32_t)nlen};
        nlen += len + 1;
        zero += addr == 0;
      }
      p = nl + 1;
    }
    if (rc != 0 || got == 0)
      break;
    have = (size_t)(stop - p);
    memmove(buf, p, have);
    if (have == sizeof buf)
      have = 0;   /* a line longer than the buffer: dropped */
  }
  close(fd);
  k->hidden = n > 0 && zero == n;
  if (rc != 0 || k->hidden || n == 0) {
    free(e);
    free(k->names);
    k->names = NULL;
    return rc;
  }
  qsort(e, n, sizeof *e, by_addr);
  k->addr = malloc(n * sizeof *k->addr);
  k->name = malloc(n * sizeof *k->name);
  if (!k->addr || !k->name) {
    free(e);
    fg_ksyms_free(k);
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    k->addr[i] = e[i].addr;
    k->name[i] = e[i].name;
  }
  k->n = n;
  free(e);
  return 0;
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
