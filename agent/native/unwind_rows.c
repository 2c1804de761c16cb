/* DWARF call frame information to unwind rows; see unwind_rows.h. The forms
 * read are those of the DWARF 4 standard's section 6.4 and the LSB's
 * .eh_frame and .eh_frame_hdr, as gcc, clang and the linkers write them for
 * x86-64. */
#include "native/unwind_rows.h"

#include <link.h>
#include <stdlib.h>
#include <string.h>

#define REG_RBP 6
#define REG_RSP 7
#define REG_RA 16
#define STATES 8   /* DW_CFA_remember_state's depth kept */

/* DW_EH_PE_* */
#define PE_OMIT 0xff
#define PE_FORMAT 0x0f
#define PE_APPLY 0x70
#define PE_INDIRECT 0x80
#define PE_PCREL 0x10
#define PE_DATAREL 0x30

struct cursor {
  const uint8_t *p, *end;
  int bad;
};

static uint64_t uleb(struct cursor *c)
{
  uint64_t v = 0;
  for (unsigned shift = 0; c->p < c->end; shift += 7) {
    uint8_t b = *c->p++;
    if (shift < 64)
      v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80))
      return v;
  }
  c->bad = 1;
  return 0;
}

static int64_t sleb(struct cursor *c)
{
  int64_t v = 0;
  unsigned shift = 0;
  while (c->p < c->end) {
    uint8_t b = *c->p++;
    if (shift < 64)
      v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
    shift += 7;
    if (!(b & 0x80)) {
      if (shift < 64 && (b & 0x40))
        v = (int64_t)((uint64_t)v | ~(uint64_t)0 << shift);
      return v;
    }
  }
  c->bad = 1;
  return 0;
}

/* n bytes, little-endian (x86-64's order), unsigned. */
static uint64_t fixed(struct cursor *c, size_t n)
{
  if ((size_t)(c->end - c->p) < n) {
    c->bad = 1;
    c->p = c->end;
    return 0;
  }
  uint64_t v = 0;
  memcpy(&v, c->p, n);
  c->p += n;
  return v;
}

/* n bytes passed over; past the end is bad (never a pointer past it). */
static void skip(struct cursor *c, uint64_t n)
{
  if ((uint64_t)(c->end - c->p) < n) {
    c->bad = 1;
    c->p = c->end;
    return;
  }
  c->p += n;
}

/* a * b, or 0 with *bad set when it does not fit in 64 bits signed */
static int64_t times(int64_t a, int64_t b, int *bad)
{
  int64_t v;
  if (__builtin_mul_overflow(a, b, &v)) {
    *bad = 1;
    return 0;
  }
  return v;
}

/* A factored offset: a ULEB128 times the data alignment; 0 with c bad when out of range. */
static int64_t factored(struct cursor *c, int64_t data_align)
{
  uint64_t u = uleb(c);
  if (u > INT64_MAX) {
    c->bad = 1;
    return 0;
  }
  return times((int64_t)u, data_align, &c->bad);
}

/* A pointer in encoding enc; datarel: what DW_EH_PE_datarel is relative to. */
static uint64_t encoded(struct cursor *c, uint8_t enc, uintptr_t datarel)
{
  uintptr_t at = (uintptr_t)c->p;
  uint64_t v;
  switch (enc & PE_FORMAT) {
  case 0x00: v = fixed(c, 8); break;                            /* absptr */
  case 0x01: v = uleb(c); break;
  case 0x02: v = fixed(c, 2); break;
  case 0x03: v = fixed(c, 4); break;
  case 0x04: v = fixed(c, 8); break;
  case 0x09: v = (uint64_t)sleb(c); break;
  case 0x0a: v = (uint64_t)(int64_t)(int16_t)fixed(c, 2); break;
  case 0x0b: v = (uint64_t)(int64_t)(int32_t)fixed(c, 4); break;
  case 0x0c: v = fixed(c, 8); break;
  default: c->bad = 1; return 0;
  }
  if (enc & PE_INDIRECT) {
    c->bad = 1;   /* not used for code addresses */
    return 0;
  }
  switch (enc & PE_APPLY) {
  case 0x00: return v;
  case PE_PCREL: return v + at;
  case PE_DATAREL: return v + datarel;
  default: c->bad = 1; return 0;
  }
}

struct state {
  uint8_t cfa_base;
  int32_t cfa_off;
  int16_t fp_off;
  uint8_t ra_undefined;   /* the return address is undefined: the outermost frame, whatever the CFA */
};

/* The base a row says for s. */
static uint8_t base_of(const struct state *s)
{
  return s->ra_undefined && s->cfa_base != FG_CFA_NONE ? FG_CFA_OUTERMOST : s->cfa_base;
}

static int same_rule(const struct fg_unwind_row *a, const struct state *s)
{
  return a->cfa_base == base_of(s) && a->cfa_off == s->cfa_off && a->fp_off == s->fp_off;
}

/* The rule s from pc on. */
static int emit(struct fg_unwind_rows *r, uintptr_t pc, const struct state *s)
{
  if (pc < r->base || pc - r->base > UINT32_MAX)
    return 0;   /* outside what a row can say: left out */
  uint32_t loc = (uint32_t)(pc - r->base);
  if (r->n > 0 && r->rows[r->n - 1].loc == loc) {   /* replaces the rule of an empty range */
    r->n--;
  }
  if (r->n > 0 && r->rows[r->n - 1].loc < loc && same_rule(&r->rows[r->n - 1], s))
    return 0;   /* the range before goes on */
  if (r->n == r->capacity) {
    uint32_t cap = r->capacity ? r->capacity * 2 : 1024;
    struct fg_unwind_row *more = realloc(r->rows, (size_t)cap * sizeof *more);
    if (!more)
      return -1;
    r->rows = more;
    r->capacity = cap;
  }
  r->rows[r->n++] = (struct fg_unwind_row){loc, s->cfa_off, s->fp_off, base_of(s), 0};
  return 0;
}

/* A register's saved place as an offset from the CFA, kept for rbp only
 * (the return address's says it is defined). */
static void saved_at(struct state *s, uint64_t reg, int64_t off)
{
  if (reg == REG_RA)
    s->ra_undefined = 0;
  if (reg == REG_RBP)
    s->fp_off = off < 0 && off >= -32768 && off % 8 == 0 ? (int16_t)off : FG_FP_LOST;
}

static void cfa_is(struct state *s, uint64_t reg, int64_t off)
{
  if ((reg != REG_RSP && reg != REG_RBP) || off < INT32_MIN || off > INT32_MAX) {
    s->cfa_base = FG_CFA_NONE;
    return;
  }
  s->cfa_base = reg == REG_RSP ? FG_CFA_RSP : FG_CFA_RBP;
  s->cfa_off = (int32_t)off;
}

/* The expression ld writes for a lazy-binding .plt: CFA = rsp + 8 +
 * ((rip & 15) >= N) << 3 (DW_OP_breg7 8; DW_OP_breg16 0; DW_OP_lit15;
 * DW_OP_and; DW_OP_litN; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus), N
 * 11, or 10 in the .plt of a binary built for IBT. Returns N, or 0 for
 * any other expression. */
static int plt_threshold(const uint8_t *e, uint64_t len, const uint8_t *end)
{
  static const uint8_t plt[] = {0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x00, 0x2a, 0x33, 0x24, 0x22};
  if (len != sizeof plt || (uint64_t)(end - e) < len)
    return 0;
  for (size_t i = 0; i < sizeof plt; i++)
    if (i != 6 && e[i] != plt[i])
      return 0;
  return e[6] == 0x3b ? 11 : e[6] == 0x3a ? 10 : 0;
}

struct program {
  struct state now, initial, saved[STATES];
  int depth;
  uintptr_t pc;
  uint64_t code_align;
  int64_t data_align;
  uint8_t fde_enc;
  uint64_t *work;   /* instructions left to run in this read (NULL: no limit); 0 ends it */
};

/* Runs instructions from c on p, emitting a row at each advance. Returns 0
 * at their end, -1 at one not understood. */
static int run(struct fg_unwind_rows *r, struct program *p, struct cursor *c)
{
  while (c->p < c->end && !c->bad) {
    if (p->work && (*p->work)-- == 0) {
      *p->work = 0;
      return -1;
    }
    uint8_t op = *c->p++;
    uint64_t reg, delta = 0;
    int advance = 0;
    switch (op >> 6) {
    case 1: delta = (op & 0x3f) * p->code_align; advance = 1; break;   /* advance_loc */
    case 2: saved_at(&p->now, op & 0x3f, factored(c, p->data_align)); continue;   /* offset */
    case 3:   /* restore */
      if ((op & 0x3f) == REG_RBP)
        p->now.fp_off = p->initial.fp_off;
      continue;
    }
    if (!advance) {
      switch (op) {
      case 0x00: break;   /* nop */
      case 0x01:   /* set_loc */
        if (emit(r, p->pc, &p->now) != 0)
          return -1;
        p->pc = encoded(c, p->fde_enc, 0);
        break;
      case 0x02: delta = fixed(c, 1) * p->code_align; advance = 1; break;
      case 0x03: delta = fixed(c, 2) * p->code_align; advance = 1; break;
      case 0x04: delta = fixed(c, 4) * p->code_align; advance = 1; break;
      case 0x05: reg = uleb(c); saved_at(&p->now, reg, factored(c, p->data_align)); break;
      case 0x06:   /* restore_extended */
        if (uleb(c) == REG_RBP)
          p->now.fp_off = p->initial.fp_off;
        break;
      case 0x07:   /* undefined */
        reg = uleb(c);
        if (reg == REG_RA)
          p->now.ra_undefined = 1;   /* the outermost frame */
        else if (reg == REG_RBP)
          p->now.fp_off = FG_FP_LOST;
        break;
      case 0x08:   /* same_value */
        if (uleb(c) == REG_RBP)
          p->now.fp_off = FG_FP_SAME;
        break;
      case 0x09:   /* register */
        reg = uleb(c);
        uleb(c);
        if (reg == REG_RBP)
          p->now.fp_off = FG_FP_LOST;
        break;
      case 0x0a:   /* remember_state */
        if (p->depth == STATES)
          return -1;
        p->saved[p->depth++] = p->now;
        break;
      case 0x0b:   /* restore_state */
        if (p->depth == 0)
          return -1;
        p->now = p->saved[--p->depth];
        break;
      case 0x0c: reg = uleb(c); cfa_is(&p->now, reg, (int64_t)uleb(c)); break;   /* def_cfa */
      case 0x0d:   /* def_cfa_register */
        reg = uleb(c);
        if (p->now.cfa_base == FG_CFA_NONE)
          return -1;
        cfa_is(&p->now, reg, p->now.cfa_off);
        break;
      case 0x0e:   /* def_cfa_offset */
        delta = uleb(c);
        if (delta > INT32_MAX)
          p->now.cfa_base = FG_CFA_NONE;
        else
          p->now.cfa_off = (int32_t)delta;
        delta = 0;
        break;
      case 0x0f: {   /* def_cfa_expression: PLT entries, signal trampolines */
        uint64_t len = uleb(c);
        int threshold = plt_threshold(c->p, len, c->end);
        p->now.cfa_base = threshold ? FG_CFA_PLT : FG_CFA_NONE;
        p->now.cfa_off = threshold;
        skip(c, len);
        break;
      }
      case 0x10:   /* expression */
      case 0x16:   /* val_expression */
        reg = uleb(c);
        skip(c, uleb(c));
        if (reg == REG_RBP)
          p->now.fp_off = FG_FP_LOST;
        break;
      case 0x11: reg = uleb(c); saved_at(&p->now, reg, times(sleb(c), p->data_align, &c->bad)); break;   /* offset_extended_sf */
      case 0x12: reg = uleb(c); cfa_is(&p->now, reg, times(sleb(c), p->data_align, &c->bad)); break;      /* def_cfa_sf */
      case 0x13: {   /* def_cfa_offset_sf */
        int64_t off = times(sleb(c), p->data_align, &c->bad);
        if (off < INT32_MIN || off > INT32_MAX)
          p->now.cfa_base = FG_CFA_NONE;
        else
          p->now.cfa_off = (int32_t)off;
        break;
      }
      case 0x14:   /* val_offset */
      case 0x15:   /* val_offset_sf */
        reg = uleb(c);
        if (op == 0x14)
          uleb(c);
        else
          sleb(c);
        if (reg == REG_RBP)
          p->now.fp_off = FG_FP_LOST;
        break;
      case 0x2e: uleb(c); break;   /* GNU_args_size */
      case 0x2f: {   /* GNU_negative_offset_extended */
        reg = uleb(c);
        int64_t off = factored(c, p->data_align);
        saved_at(&p->now, reg, off == INT64_MIN ? 0 : -off);
        break;
      }
      default:
        return -1;
      }
    }
    if (advance) {
      if (emit(r, p->pc, &p->now) != 0)
        return -1;
      p->pc += delta;
    }
  }
  if (c->p > c->end)
    return -1;   /* a block ran past the end */
  return c->bad ? -1 : 0;
}

/* The rows of one function [start, end): its rules, then none from end on
 * (a gap before the next function has no rule). */
static int run_function(struct fg_unwind_rows *r, struct program *p, struct cursor *cie, struct cursor *fde,
                        uintptr_t start, uintptr_t end)
{
  p->now = (struct state){FG_CFA_NONE, 0, FG_FP_SAME, 0};
  p->depth = 0;
  p->pc = start;
  int rc = run(r, p, cie);
  p->initial = p->now;
  if (rc == 0)
    rc = run(r, p, fde);
  struct state none = {FG_CFA_NONE, 0, FG_FP_SAME, 0};
  if (rc != 0)
    p->now = none;   /* from the instruction not understood on */
  if (emit(r, p->pc, &p->now) != 0 || emit(r, end, &none) != 0)
    return -2;
  return rc;
}

int fg_unwind_rows_run(struct fg_unwind_rows *r, const uint8_t *cie_ins, size_t cie_len, const uint8_t *fde_ins,
                       size_t fde_len, uintptr_t start, uintptr_t end, uint64_t code_align, int64_t data_align)
{
  struct program p = {.code_align = code_align, .data_align = data_align, .fde_enc = 0};
  struct cursor cie = {cie_ins, cie_ins + cie_len, 0}, fde = {fde_ins, fde_ins + fde_len, 0};
  return run_function(r, &p, &cie, &fde, start, end) == 0 ? 0 : -1;
}

/* The bytes the call frame information may be read from: [lo, hi), the
 * library's segment that holds its .eh_frame_hdr (and its .eh_frame: every
 * linker puts both there). Nothing outside is read, whatever an offset in
 * the table or an entry says. */
struct span {
  const uint8_t *lo, *hi;
};

/* Whether n bytes at p lie within sp (p may be any address: compared as a number). */
static int inside(const struct span *sp, uintptr_t p, uint64_t n)
{
  return p >= (uintptr_t)sp->lo && p <= (uintptr_t)sp->hi && n <= (uint64_t)((uintptr_t)sp->hi - p);
}

/* An entry at at (a CIE or an FDE): a cursor over its contents after the
 * length word; 0, or -1 at the terminator, a 64-bit entry (not written for
 * code under 4 GB) or one that does not lie within sp. */
static int entry(const struct span *sp, uintptr_t at, struct cursor *c)
{
  if (!inside(sp, at, 4))
    return -1;
  uint32_t len;
  memcpy(&len, (const uint8_t *)at, sizeof len);
  if (len == 0 || len == 0xffffffffu || !inside(sp, at + 4, len))
    return -1;
  *c = (struct cursor){(const uint8_t *)at + 4, (const uint8_t *)at + 4 + len, 0};
  return 0;
}

/* An FDE read up to its instructions: its CIE's settings and initial
 * instructions, its own instructions and the pcs it covers. */
struct fde {
  struct program p;
  struct cursor cie, own;
  uintptr_t start, range;
};

/* The FDE at fde into *f: 0; -1 for a CIE or a form not read. */
static int parse_fde(const struct span *sp, uintptr_t fde, struct fde *f)
{
  struct cursor c;
  if (entry(sp, fde, &c) != 0)
    return -1;
  uintptr_t id_at = (uintptr_t)c.p;
  uint32_t cie_off = (uint32_t)fixed(&c, 4);
  if (c.bad || cie_off == 0 || cie_off > id_at)
    return -1;   /* a CIE, not an FDE; or its CIE's offset points below address 0 */
  /* the CIE */
  struct cursor k;
  if (entry(sp, id_at - cie_off, &k) != 0)
    return -1;
  if (fixed(&k, 4) != 0)
    return -1;
  uint8_t version = (uint8_t)fixed(&k, 1);
  const char *aug = (const char *)k.p;
  size_t aug_len = strnlen(aug, (size_t)(k.end - k.p));
  skip(&k, aug_len + 1);
  if (k.bad || (version != 1 && version != 3 && version != 4) || (aug_len && aug[0] != 'z'))
    return -1;
  if (version == 4)
    skip(&k, 2);   /* address size, segment selector size */
  f->p = (struct program){.code_align = uleb(&k), .data_align = sleb(&k), .fde_enc = 0};
  struct program *p = &f->p;
  if (version == 1)
    fixed(&k, 1);   /* return address register */
  else
    uleb(&k);
  if (aug_len) {
    uint64_t data_len = uleb(&k);
    if (k.bad || data_len > (uint64_t)(k.end - k.p))
      return -1;
    const uint8_t *data_end = k.p + data_len;
    for (size_t i = 1; i < aug_len && k.p < data_end && !k.bad; i++) {
      if (aug[i] == 'R') {
        p->fde_enc = (uint8_t)fixed(&k, 1);
      } else if (aug[i] == 'P') {
        uint8_t enc = (uint8_t)fixed(&k, 1);
        struct cursor skipped = {k.p < data_end ? k.p : data_end, data_end, 0};
        encoded(&skipped, (uint8_t)(enc & ~PE_INDIRECT), 0);
        k.p = skipped.p;
      } else if (aug[i] == 'L') {
        fixed(&k, 1);
      } else if (aug[i] != 'S' && aug[i] != 'B') {
        break;   /* the data's length still says where the instructions begin */
      }
    }
    k.p = data_end;
  }
  if (k.bad)
    return -1;
  /* the FDE's range */
  uintptr_t start = (uintptr_t)encoded(&c, p->fde_enc, 0);
  uintptr_t range = (uintptr_t)encoded(&c, (uint8_t)(p->fde_enc & PE_FORMAT), 0);
  if (aug_len)
    skip(&c, uleb(&c));
  if (c.bad || range == 0)
    return -1;
  f->cie = k;
  f->own = c;
  f->start = start;
  f->range = range;
  return 0;
}

/* The FDE at fde: its CIE read, then both run. 0; -1 when left out (a form
 * not read, or the read's work ran out); -2 when memory ran out. */
static int read_fde(struct fg_unwind_rows *r, const struct span *sp, uintptr_t fde, uint64_t *work)
{
  struct fde f;
  if (parse_fde(sp, fde, &f) != 0)
    return -1;
  f.p.work = work;
  return run_function(r, &f.p, &f.cie, &f.own, f.start, f.start + f.range) == -2 ? -2 : 0;
}

/* The .eh_frame_hdr's table: version 1, eh_frame_ptr, fde_count, then the
 * sorted (initial location, FDE address) pairs, each datarel | sdata4 from
 * hdr. Returns the table and *count (all its pairs within sp), or NULL for
 * another form. */
static const uint8_t *hdr_table(const struct span *sp, const uint8_t *hdr, uint64_t *count)
{
  if (!inside(sp, (uintptr_t)hdr, 4) || hdr[0] != 1 || hdr[3] != 0x3b || hdr[2] == PE_OMIT)
    return NULL;
  struct cursor c = {hdr + 4, hdr + 4, 0};
  c.end += (size_t)((uintptr_t)sp->hi - (uintptr_t)c.p) < 16 ? (size_t)((uintptr_t)sp->hi - (uintptr_t)c.p) : 16;
  encoded(&c, hdr[1], (uintptr_t)hdr);
  *count = encoded(&c, hdr[2], (uintptr_t)hdr);
  if (c.bad || *count > (uint64_t)(sp->hi - c.p) / 8)
    return NULL;
  return c.p;
}

/* Pair i's initial location, or its FDE's address (field 1). */
static uintptr_t table_entry(const uint8_t *hdr, const uint8_t *table, uint64_t i, int field)
{
  int32_t rel;
  memcpy(&rel, table + 8 * i + 4 * (uint64_t)field, sizeof rel);
  return (uintptr_t)hdr + (uintptr_t)(intptr_t)rel;
}

uintptr_t fg_unwind_function_start(const uint8_t *hdr, const uint8_t *lo, const uint8_t *hi, uintptr_t pc)
{
  struct span sp = {lo, hi};
  uint64_t count, first = 0, last;
  const uint8_t *table = hdr_table(&sp, hdr, &count);
  if (!table || count == 0 || table_entry(hdr, table, 0, 0) > pc)
    return 0;
  for (last = count; last - first > 1;) {   /* the last start at or below pc */
    uint64_t mid = first + (last - first) / 2;
    if (table_entry(hdr, table, mid, 0) <= pc)
      first = mid;
    else
      last = mid;
  }
  /* pc may be past that function's end, in code with no FDE (assembly):
   * the FDE itself says where its function starts and ends */
  struct fde f;
  if (parse_fde(&sp, table_entry(hdr, table, first, 1), &f) != 0 || pc - f.start >= f.range)
    return 0;
  return f.start;
}

int fg_unwind_rows_read(struct fg_unwind_rows *r, const uint8_t *hdr, const uint8_t *lo, const uint8_t *hi,
                        uintptr_t base)
{
  if (r->n == 0)
    r->base = base;
  struct span sp = {lo, hi};
  uint64_t count;
  const uint8_t *table = hdr_table(&sp, hdr, &count);
  if (!table)
    return -1;
  /* Instructions run, a CIE's again for each of its FDEs: a few per byte of
   * a linker's output, bounded for any other (each makes a row at most). */
  uint64_t work = 8 * (uint64_t)(hi - lo) + 4096;
  for (uint64_t i = 0; i < count; i++) {
    int rc = work ? read_fde(r, &sp, table_entry(hdr, table, i, 1), &work) : -1;
    if (rc == -2)
      return -1;
    if (rc != 0)
      r->skipped++;
    else
      r->fdes++;
  }
  return 0;
}

int fg_unwind_segment_of(const struct dl_phdr_info *info, const uint8_t *hdr, const uint8_t **lo, const uint8_t **hi)
{
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t at = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && (uintptr_t)hdr >= at && (uintptr_t)hdr - at < ph->p_memsz) {
      *lo = (const uint8_t *)at;
      *hi = (const uint8_t *)(at + ph->p_memsz);
      return 0;
    }
  }
  return -1;
}

static int by_loc(const void *a, const void *b)
{
  const struct fg_unwind_row *x = a, *y = b;
  if (x->loc != y->loc)
    return x->loc < y->loc ? -1 : 1;
  /* at one loc a function's first rule beats the end of the one before */
  return (x->cfa_base != FG_CFA_NONE) - (y->cfa_base != FG_CFA_NONE);
}

int fg_unwind_rows_finish(struct fg_unwind_rows *r)
{
  if (r->n)   /* (no rows: rows is NULL, which qsort takes not even for 0 elements) */
    qsort(r->rows, r->n, sizeof *r->rows, by_loc);
  uint32_t kept = 0;
  for (uint32_t i = 0; i < r->n; i++) {
    if (kept > 0 && r->rows[kept - 1].loc == r->rows[i].loc)
      kept--;   /* the later one (a function's rule over an end) wins */
    r->rows[kept++] = r->rows[i];
  }
  r->n = kept;
  if (kept > 0 && kept < r->capacity) {
    struct fg_unwind_row *fit = realloc(r->rows, (size_t)kept * sizeof *fit);
    if (fit) {
      r->rows = fit;
      r->capacity = kept;
    }
  }
  free(r->page_first);
  r->page_first = NULL;
  r->pages = 0;
  if (kept == 0)
    return 0;
  uint32_t pages = (r->rows[kept - 1].loc >> FG_UNWIND_PAGE_SHIFT) + 1;
  if (pages > 4 * (uint64_t)kept + 1024)
    return 0;   /* rows far apart (a few functions over much code): the index would cost more than the
                   search it saves, and its size would be the range's, not the input's */
  uint32_t *first = malloc(((size_t)pages + 1) * sizeof *first);
  if (!first)
    return -1;
  uint32_t row = 0;   /* the last row at or below the page's start; 0 before the first */
  for (uint32_t p = 0; p < pages; p++) {
    uint32_t start = p << FG_UNWIND_PAGE_SHIFT;
    while (row + 1 < kept && r->rows[row + 1].loc <= start)
      row++;
    first[p] = row;
  }
  first[pages] = kept - 1;
  r->page_first = first;
  r->pages = pages;
  return 0;
}

void fg_unwind_rows_free(struct fg_unwind_rows *r)
{
  free(r->rows);
  free(r->page_first);
  memset(r, 0, sizeof *r);
}

const struct fg_unwind_row *fg_unwind_rows_find(const struct fg_unwind_rows *r, uintptr_t pc)
{
  if (r->n == 0 || pc < r->base || pc - r->base > UINT32_MAX)
    return NULL;
  uint32_t loc = (uint32_t)(pc - r->base);
  if (loc < r->rows[0].loc)
    return NULL;
  uint32_t lo = 0, hi = r->n;   /* the last row at or below loc, in [lo, hi) */
  uint32_t page = loc >> FG_UNWIND_PAGE_SHIFT;
  if (r->page_first && page < r->pages) {
    lo = r->page_first[page];
    hi = r->page_first[page + 1] + 1;
  } else if (r->page_first) {
    lo = r->n - 1;   /* past the last row's page: the last row */
  }
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (r->rows[mid].loc <= loc)
      lo = mid;
    else
      hi = mid;
  }
  const struct fg_unwind_row *row = &r->rows[lo];
  return row->cfa_base == FG_CFA_NONE ? NULL : row;
}
