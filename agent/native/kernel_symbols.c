/* /proc/kallsyms read once into a sorted table: "ADDRESS TYPE NAME [MODULE]". */
#include "kernel_symbols.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
  uint64_t addr;
  uint32_t name;
};

static int by_addr(const void *a, const void *b)
{
  uint64_t x = ((const struct entry *)a)->addr, y = ((const struct entry *)b)->addr;
  return (x > y) - (x < y);
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
  if (need <= *cap)
    return 0;
  size_t c = *cap ? *cap * 2 : 4096;
  while (c < need)
    c *= 2;
  void *q = realloc(*p, c * size);
  if (!q)
    return -1;
  *p = q;
  *cap = c;
  return 0;
}

int fg_ksyms_load(struct fg_kernel_symbols *k, const char *path)
{
  memset(k, 0, sizeof *k);
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  struct entry *e = NULL;
  size_t n = 0, cap = 0, nlen = 0, ncap = 0, zero = 0;
  char line[512];
  int rc = 0;
  while (rc == 0 && fgets(line, sizeof line, f)) {
    unsigned long long addr;
    char type, name[256];
    if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || !strchr("tTwW", type))
      continue;
    size_t len = strlen(name) + 1;
    if (grow((void **)&e, &cap, n + 1, sizeof *e) != 0 || grow((void **)&k->names, &ncap, nlen + len, 1) != 0) {
      rc = -1;
      break;
    }
    memcpy(k->names + nlen, name, len);
    e[n++] = (struct entry){addr, (uint32_t)nlen};
    nlen += len;
    zero += addr == 0;
  }
  fclose(f);
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
