/* Every loaded library's unwind rows, and the handler's step; see
 * unwind_tables.h. */
#include "native/unwind_tables.h"

#include <link.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "native/safe_read.h"

struct build {
  struct fg_unwind_tables *t;
  const struct fg_unwind_set *known;   /* libraries already read */
  struct fg_unwind_library **found;
  uint32_t n, capacity;
  unsigned long long loads;
  int failed;
};

/* The end of a library's path ("[main]" for the program), as kept in name. */
static void name_of(char *name, size_t size, const char *path)
{
  const char *slash = path ? strrchr(path, '/') : NULL;
  snprintf(name, size, "%s", slash ? slash + 1 : path && *path ? path : "[main]");
}

static struct fg_unwind_library *known_at(const struct fg_unwind_set *s, uintptr_t lo, uintptr_t hi,
                                          const uint8_t *hdr, const char *path)
{
  char name[sizeof s->libraries[0]->name];
  name_of(name, sizeof name, path);
  for (uint32_t i = 0; s && i < s->n; i++) {
    struct fg_unwind_library *l = s->libraries[i];
    if (l->lo == lo && l->hi == hi && l->hdr == hdr && strcmp(l->name, name) == 0)
      return l;
  }
  return NULL;
}

static int keep(struct build *b, struct fg_unwind_library *l)
{
  if (b->n == b->capacity) {
    uint32_t cap = b->capacity ? b->capacity * 2 : 32;
    struct fg_unwind_library **more = realloc(b->found, cap * sizeof *more);
    if (!more)
      return -1;
    b->found = more;
    b->capacity = cap;
  }
  b->found[b->n++] = l;
  return 0;
}

static int each_library(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size;
  struct build *b = arg;
  b->loads = info->dlpi_adds;
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  const uint8_t *hdr = NULL;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
      uintptr_t at = info->dlpi_addr + ph->p_vaddr;
      if (at < lo)
        lo = at;
      if (at + ph->p_memsz > hi)
        hi = at + ph->p_memsz;
    } else if (ph->p_type == PT_GNU_EH_FRAME) {
      hdr = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
    }
  }
  if (!hdr || hi <= lo)
    return 0;   /* no code, or no index of its frame information */
  struct fg_unwind_library *l = known_at(b->known, lo, hi, hdr, info->dlpi_name);
  if (!l) {
    if (!(l = calloc(1, sizeof *l))) {
      b->failed = 1;
      return 1;
    }
    l->lo = lo;
    l->hi = hi;
    l->hdr = hdr;
    name_of(l->name, sizeof l->name, info->dlpi_name);
    const uint8_t *seg_lo, *seg_hi;   /* a header of another form, or in no segment: no rows, the walk stops there */
    if (fg_unwind_segment_of(info, hdr, &seg_lo, &seg_hi) == 0)
      fg_unwind_rows_read(&l->rows, hdr, seg_lo, seg_hi, lo);
    fg_unwind_rows_finish(&l->rows);
    b->t->rows += l->rows.n;
    b->t->fdes += l->rows.fdes;
    b->t->skipped += l->rows.skipped;
  }
  if (keep(b, l) != 0) {
    b->failed = 1;
    return 1;
  }
  return 0;
}

static int by_lo(const void *a, const void *b)
{
  const struct fg_unwind_library *x = *(struct fg_unwind_library *const *)a, *y = *(struct fg_unwind_library *const *)b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* A new set of every library loaded now, reusing those in known. */
static int build(struct fg_unwind_tables *t)
{
  struct fg_unwind_set *known = atomic_load(&t->set);
  struct build b = {.t = t, .known = known};
  dl_iterate_phdr(each_library, &b);
  struct fg_unwind_set *s = b.failed ? NULL : calloc(1, sizeof *s);
  if (!s) {
    free(b.found);
    return -1;
  }
  qsort(b.found, b.n, sizeof *b.found, by_lo);
  s->libraries = b.found;
  s->n = b.n;
  s->older = known;
  t->loads = b.loads;
  atomic_store_explicit(&t->set, s, memory_order_release);
  return (int)(b.n - (known ? known->n : 0));
}

int fg_unwind_tables_init(struct fg_unwind_tables *t)
{
  memset(t, 0, sizeof *t);
  atomic_store(&t->wake_fd, -1);
  return build(t) < 0 ? -1 : 0;
}

static int count_loads(struct dl_phdr_info *info, size_t size, void *arg)
{
  (void)size;
  *(unsigned long long *)arg = info->dlpi_adds;
  return 1;
}

int fg_unwind_tables_refresh(struct fg_unwind_tables *t)
{
  unsigned long long loads = t->loads;
  dl_iterate_phdr(count_loads, &loads);
  if (loads == t->loads)
    return 0;
  int added = build(t);
  atomic_store(&t->missed, 0);
  return added > 0 ? added : 0;
}

void fg_unwind_tables_free(struct fg_unwind_tables *t)
{
  struct fg_unwind_set *s = atomic_exchange(&t->set, NULL);
  struct fg_unwind_set *newest = s;
  /* a library is in the newest set and any older ones: free each once, from the newest */
  for (uint32_t i = 0; newest && i < newest->n; i++) {
    fg_unwind_rows_free(&newest->libraries[i]->rows);
    free(newest->libraries[i]);
  }
  for (struct fg_unwind_set *older; s; s = older) {
    older = s->older;
    free(s->libraries);
    free(s);
  }
}

/* The library holding pc in s, or NULL. */
static const struct fg_unwind_library *library_of(const struct fg_unwind_set *s, uintptr_t pc)
{
  uint32_t lo = 0, hi = s->n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    const struct fg_unwind_library *l = s->libraries[mid];
    if (pc < l->lo)
      hi = mid;
    else if (pc >= l->hi)
      lo = mid + 1;
    else
      return l;
  }
  return NULL;
}

/* A walk met a pc in no library: the refresher is woken, once until a
 * refresh finds a library loaded since. */
static void missed(struct fg_unwind_tables *t)
{
  int none = 0;
  if (atomic_load_explicit(&t->missed, memory_order_relaxed) ||
      !atomic_compare_exchange_strong_explicit(&t->missed, &none, 1, memory_order_relaxed, memory_order_relaxed))
    return;
  int fd = atomic_load_explicit(&t->wake_fd, memory_order_relaxed);
  if (fd >= 0) {
    uint64_t one = 1;
    ssize_t rc = write(fd, &one, sizeof one);
    (void)rc;   /* a full counter still wakes it */
  }
}

/* n bytes of a library's code at addr. On the thread itself they are read
 * in place: it runs in that code or returns into it, so it is mapped. A
 * copy is walked later, off the thread, when a JNI library whose class
 * loader was collected may be unloaded: process_vm_readv then fails with
 * EFAULT where a plain read would fault. */
static int read_code(struct fg_bounds b, uintptr_t addr, void *out, size_t n)
{
  if (!b.off_thread) {
    memcpy(out, (const void *)addr, n);
    return 1;
  }
  return fg_safe_read(addr, out, n);
}

/* Whether ret, in code [lo, hi), is just after a call: call rel32 (e8), or
 * an indirect one (ff /2) through a register or memory at a displacement of
 * a register or of rip. Other encodings are not recognised (the walk stops). */
static int follows_call(struct fg_bounds b, uintptr_t ret, uintptr_t lo, uintptr_t hi)
{
  uint8_t c[6];
  if (ret < lo + 6 || ret > hi || !read_code(b, ret - 6, c, sizeof c))
    return 0;
  return c[1] == 0xe8 || (c[4] == 0xff && (c[5] & 0xf8) == 0xd0) || (c[3] == 0xff && (c[4] & 0xf8) == 0x50) ||
         (c[0] == 0xff && ((c[1] & 0xf8) == 0x90 || c[1] == 0x15));
}

/* The interrupted pc is in library l's code, which no row covers there: a
 * function written in assembly, such as libjvm's SpinPause, where HotSpot's
 * GC threads spin. Taken as a leaf that pushed nothing when the word at sp
 * is an address just after a call, in l's code that rows cover; else no
 * step. In l only, read through read_code: a library unloaded since the
 * tables were read, or since a copy was taken, is never read in place. */
static int frameless_leaf(const struct fg_unwind_library *l, struct fg_bounds b, struct fg_regs *r)
{
  uintptr_t ret;
  if (!fg_read_stack(b, r->sp, &ret) || !follows_call(b, ret, l->lo, l->hi) || !fg_unwind_rows_find(&l->rows, ret - 1))
    return 0;   /* follows_call keeps ret - 1 in [lo, hi) */
  *r = (struct fg_regs){ret, r->sp + 8, r->fp};
  return 1;
}

int fg_unwind_step(struct fg_unwind_tables *t, struct fg_bounds b, int first, struct fg_regs *r, uintptr_t *fp_at)
{
  if (fp_at)
    *fp_at = 0;
  const struct fg_unwind_set *s = atomic_load_explicit(&t->set, memory_order_acquire);
  uintptr_t at = first ? r->pc : r->pc - 1;
  const struct fg_unwind_library *l = s ? library_of(s, at) : NULL;
  if (!l)
    missed(t);
  const struct fg_unwind_row *row = l ? fg_unwind_rows_find(&l->rows, at) : NULL;
  if (!row)
    return first && l && frameless_leaf(l, b, r);
  uintptr_t cfa, ret, fp = r->fp;
  if (row->cfa_base == FG_CFA_OUTERMOST) {   /* no caller: a walk ends here whole */
    r->pc = 0;
    return 1;
  }
  if (row->cfa_base == FG_CFA_PLT)
    cfa = r->sp + ((r->pc & 15) >= (uintptr_t)row->cfa_off ? 16 : 8);
  else if (row->cfa_base == FG_CFA_RSP)
    cfa = r->sp + (uintptr_t)(intptr_t)row->cfa_off;
  else if (r->fp)
    cfa = r->fp + (uintptr_t)(intptr_t)row->cfa_off;
  else
    return 0;   /* rbp not known past an earlier frame */
  if (cfa <= r->sp || !fg_read_stack(b, cfa - 8, &ret))
    return 0;
  if (row->fp_off == FG_FP_LOST)
    fp = 0;
  else if (row->fp_off != FG_FP_SAME && cfa + (uintptr_t)(intptr_t)row->fp_off >= r->sp) {
    /* (a slot below sp was popped, rbp restored from it: GCC's rows keep rbp
     * at CFA - 16 at the ret after leave, and a stack copy starts at sp) */
    uintptr_t at = cfa + (uintptr_t)(intptr_t)row->fp_off;
    if (!fg_read_stack(b, at, &fp))
      return 0;
    if (fp_at)
      *fp_at = at;
  }
  *r = (struct fg_regs){ret, cfa, fp};
  return 1;
}

int fg_unwind_signal_frame(struct fg_unwind_tables *t, struct fg_bounds b, struct fg_regs *r, uintptr_t scratch[4])
{
  static const uint8_t sigreturn[] = {0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05};
  const struct fg_unwind_set *s = atomic_load_explicit(&t->set, memory_order_acquire);
  const struct fg_unwind_library *l = s ? library_of(s, r->pc) : NULL;
  uint8_t code[sizeof sigreturn];
  if (!l || r->pc + sizeof sigreturn > l->hi || !read_code(b, r->pc, code, sizeof code) ||
      memcmp(code, sigreturn, sizeof sigreturn) != 0)
    return 0;
  static const int regs[] = {REG_RIP, REG_RSP, REG_RBP, REG_RAX, REG_RBX, REG_RDX, REG_R13};
  uintptr_t v[7] = {0};   /* each read below, or the step fails */
  for (int i = 0; i < 7; i++)
    if (!fg_read_stack(b, r->sp + offsetof(ucontext_t, uc_mcontext.gregs) + 8 * (uintptr_t)regs[i], &v[i]))
      return 0;
  if (v[1] <= r->sp)
    return 0;   /* the kernel puts the context below what it interrupted (no alternate stack here) */
  *r = (struct fg_regs){v[0], v[1], v[2]};
  for (int i = 0; i < 4; i++)
    scratch[i] = v[3 + i];
  return 1;
}
