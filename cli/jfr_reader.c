/* Reads a JDK Flight Recorder file into a profile; see jfr_reader.h.
 *
 * A file is chunks; a chunk is a 68-byte header (fgagent's writer,
 * agent/output/jfr.c, says what each field is) and events, each its size,
 * its type id and its fields, integers as compressed varints. Type 0 is the
 * metadata event: a string table and an element tree declaring every class
 * with its fields (name, type id, whether the value is a constant-pool key,
 * whether an array). Type 1 is a checkpoint: constant pools, each a type id
 * and entries (a key, then the value). The reader makes two passes over a
 * chunk: the metadata and the pools first (it keeps each pool entry's offset
 * and reads it when an event refers to it), then the events it knows; any
 * other event is skipped by its size.
 *
 * The file is hostile until read. Every record passes one gate (record_at:
 * its header within its size, its size within the chunk) before anything
 * reads it, and each reader stays within its record. A count read from the
 * file is never a loop bound by itself: each turn of a loop takes a byte at
 * least, and a class that takes no bytes (no fields, or fields of such
 * classes only) is skipped whole, never element by element. Pool entries
 * are resolved once a key (symbols, classes, methods, frames, threads), and
 * what the profile is built of beyond the file's own bytes (names made of
 * several entries, stacks copied per thread) is charged to a budget of
 * BUDGET_PER_BYTE times the file's size: past it the file is refused. So a
 * file of N bytes is read in O(N) time and memory, but for the hash maps. */
#include "fg/event_kinds.h"
#include "fg/jfr_reader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "fg/class_name.h"
#include "fg/error_line.h"
#include "fg/grow_array.h"
#include "fg/lock_kinds.h"
#include "fg/profile.h"
#include "fg/u64_map.h"
#include "fg/utf8.h"

#define HEADER_BYTES 68
#define MAX_DEPTH 24            /* nested values and metadata elements */
#define BUDGET_PER_BYTE 32      /* what the profile may be built of, per byte of the file */
#define BUDGET_FLOOR (64u << 20)
#define CLASS_NAME_MAX 600
#define MAX_OVERLOADS 256       /* descriptors of one name kept apart */
#define ACCEPTED "a JFR recording as the JDK (11 and later) or fgagent writes it"      /* a class frame's name, as fg_class_frame_name writes it */

enum prim { P_OBJECT, P_LONG, P_BYTE, P_FLOAT, P_DOUBLE, P_STRING };

struct field {
  const char *name;
  uint64_t type;
  int pool, array;
  int32_t cls;                  /* type's index in the chunk's classes, -1: undeclared (mark_sizes) */
};

#define PLAN_WANTS 12           /* the most wants a read_object plan remembers */

struct jclass {
  uint64_t id;
  const char *name;
  enum prim prim;
  struct field *fields;
  uint32_t nfields, cap;
  uint32_t *live;               /* the fields that take bytes, in order: the only ones read */
  uint32_t nlive;
  int takes_bytes;              /* 0: a value of it is 0 bytes long (no fields, or such fields only) */
  /* read_object's last plan: for the wants named by plan_names (the
   * caller's name pointers, so the same list means the same names), each
   * live field's want index or -1; a class is read with one list nearly
   * always, and then no field name is compared again */
  const char *plan_names[PLAN_WANTS];
  int plan_nw;                  /* 0: no plan */
  int8_t *plan;                 /* nlive entries */
};

struct rd {
  const uint8_t *b;
  size_t pos, end;
  int bad;
  const char *why;              /* what was wrong, when bad */
  size_t bad_at;                /* where */
};

/* What lives for the whole file: the profile, threads across chunks, the budget. */
#define SAFEPOINTS_OPEN 16   /* jdk.SafepointBegin events waiting for their jdk.SafepointEnd */

struct run {
  struct fg_profile *p;
  bool lines;
  uint64_t budget;              /* left of what the profile may be built of */
  uint64_t seed, mult;          /* keys are scrambled with these before hashing */
  struct fg_u64_map threads;    /* hash of (tid, java id, name) -> profile thread */
  struct fg_u64_map overloads;  /* hash of (name, kind, bci) -> descriptors kept apart */
  bool wall;                    /* cpu from the wall-clock samples, not jdk.ExecutionSample (FG_JFR_WALL) */
  bool census;                  /* the first pass: only count each source's events (counted[]) */
  uint64_t counted[16];         /* events of each row of sources[] in the file (S_COUNT of them) */
  uint32_t left_out;            /* rows of sources[] not read: bit i for row i (choose_sources) */
  struct leak_event *leaks;     /* p->stats.nativemem.leak: profiler.Malloc and Free, replayed at the end */
  uint32_t nleaks, leaks_cap;
  struct { uint64_t id; uint32_t mark; } safepoints[SAFEPOINTS_OPEN];   /* begun, end not read yet */
  uint32_t nsafepoints;         /* written so far, the last SAFEPOINTS_OPEN kept */
};

/* A profiler.Malloc (stack: its profile stack) or profiler.Free (stack UINT32_MAX) of a recording
 * read for its leaks: async-profiler writes them from per-thread buffers, in no global order. */
struct leak_event {
  uint64_t time, addr, weight;
  uint32_t stack, seq;
};

/* key -> a cached text (NULL too), for the pools read over and over */
struct memo {
  struct fg_u64_map index;
  const char **text;
  uint32_t n, cap;
};

struct method {
  const char *cls, *name, *descriptor;
};

struct frame_memo {
  uint32_t method;              /* index into methods, UINT32_MAX: none */
  int32_t line, bci;
  uint8_t kind;
  uint32_t id;
};

struct combo_memo {
  uint32_t stack, thread, cls, event;
  uint32_t index;               /* the profile's stack */
};

/* One chunk's metadata and pools, and the caches that turn its keys into the profile's ids. */
struct chunk {
  const uint8_t *b;             /* the chunk */
  size_t size;
  uint64_t start_ns, start_ticks, ticks_per_s;
  struct run *run;
  const char **strings;         /* the metadata's string table */
  uint32_t nstrings;
  char **owned;                 /* every string the chunk's readers made */
  uint32_t nowned, owned_cap;
  struct jclass *cls;
  uint32_t ncls, cls_cap;
  struct fg_u64_map cls_index;  /* id + 1 -> index */
  struct fg_u64_map *pools;     /* a class index's pool: key -> offset index */
  uint64_t *offsets;
  uint32_t noffsets, offsets_cap;
  /* the classes a reader looks entries up in, UINT64_MAX when the metadata has none */
  uint64_t t_string, t_symbol, t_class, t_method, t_stack, t_frame_type, t_thread;
  struct memo strs, symbols, class_names, frame_types;
  struct fg_u64_map method_ids; /* method key -> index into methods */
  struct method *methods;
  uint32_t nmethods, methods_cap;
  struct fg_u64_map frame_ids;  /* hash of a frame_memo's key -> index into frames */
  struct frame_memo *frames;
  uint32_t nframes, frames_cap;
  struct fg_u64_map combo_ids;  /* hash of a combo_memo's key -> index into combos */
  struct combo_memo *combos;
  uint32_t ncombos, combos_cap;
  struct fg_u64_map stack_ids;  /* stack trace key -> index into stacks */
  uint32_t **stacks;            /* name ids, root first; [0] is the count */
  uint32_t nstacks, stacks_cap;
  struct fg_u64_map thread_ids; /* thread key -> profile thread */
  struct fg_u64_map class_ids;  /* class key -> frame name id */
  struct fg_profile *p;
  bool lines;                   /* Java frames named at their lines, interned at their bcis */
};

/* ---- reading ---- */

static void set_bad(struct rd *r, const char *why)
{
  if (!r->bad) {
    r->bad = 1;
    r->why = why;
    r->bad_at = r->pos;
  }
}

static int need(struct rd *r, size_t n)
{
  if (r->bad)
    return 0;
  if (r->pos > r->end || n > r->end - r->pos) {   /* pos > end cannot pass record_at; checked all the same */
    set_bad(r, "a value runs past the end of its event");
    return 0;
  }
  return 1;
}

static uint64_t rd_long(struct rd *r)
{
  uint64_t v = 0;
  for (int i = 0; i < 9; i++) {
    if (!need(r, 1))
      return 0;
    uint8_t c = r->b[r->pos++];
    if (i == 8)
      return v | (uint64_t)c << 56;
    v |= (uint64_t)(c & 0x7f) << (7 * i);
    if (!(c & 0x80))
      return v;
  }
  return v;
}

static uint8_t rd_byte(struct rd *r)
{
  return need(r, 1) ? r->b[r->pos++] : 0;
}

static void rd_skip(struct rd *r, size_t n)
{
  if (need(r, n))
    r->pos += n;
}

/* A count of elements that take a byte each at least: never more than the bytes left. */
static uint64_t rd_count(struct rd *r)
{
  uint64_t n = rd_long(r);
  if (!r->bad && (r->pos > r->end || n > r->end - r->pos)) {
    set_bad(r, "a count of elements larger than the bytes left in its event");
    return 0;
  }
  return n;
}

/* The one sanity gate of a record (an event) at at, before end: its size
 * and type varints, its header no longer than its size, its size within
 * end. 0 with *size, *type and *body (where its fields start), or -1 with
 * *why. Every reader of a record reads [*body, at + *size) and no more. */
static int record_at(const uint8_t *b, size_t at, size_t end, uint64_t *size, uint64_t *type, size_t *body,
                     const char **why)
{
  struct rd r = {.b = b, .pos = at, .end = end};
  *size = rd_long(&r);
  *type = rd_long(&r);
  if (r.bad)
    *why = "its size and type run past the chunk";
  else if (*size > end - at)
    *why = "its size runs past the chunk";
  else if (*size < r.pos - at)
    *why = "its size is smaller than its own size and type";
  else
    *body = r.pos;
  return r.bad || *size > end - at || *size < r.pos - at ? -1 : 0;
}

/* The budget: n more of what the profile is built of. 0, or -1 (and bad) past it. */
static int charge(struct rd *r, struct chunk *c, uint64_t n)
{
  if (n > c->run->budget) {
    c->run->budget = 0;
    set_bad(r, "what its pool entries name over and over would take more than " "32" " times the file's size");
    return -1;
  }
  c->run->budget -= n;
  return 0;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 33);
}

/* A file's key as the maps keep it: scrambled with the run's secret, so
 * that no file can choose keys that pile up in one probe sequence. A
 * bijection; the one key that maps to 0 is never found (as if absent). */
static uint64_t map_key(const struct chunk *c, uint64_t key)
{
  return (key ^ c->run->seed) * c->run->mult;
}

static int map_get(const struct chunk *c, const struct fg_u64_map *m, uint64_t key, uint32_t *value)
{
  return fg_u64_map_get(m, map_key(c, key), value);
}

static int map_put(const struct chunk *c, struct fg_u64_map *m, uint64_t key, uint32_t value)
{
  uint64_t k = map_key(c, key);
  return k ? fg_u64_map_put(m, k, value) : 0;
}

/* A hash of several values, never 0, seeded with the run's secret. */
static uint64_t hash4(const struct chunk *c, uint64_t a, uint64_t b, uint64_t d, uint64_t e)
{
  uint64_t h = mix(mix(mix(mix(c->run->seed, a), b), d), e);
  return h ? h : 1;
}

/* Keeps s (malloc'd) until the chunk ends; s, or NULL when out of memory (then s is freed). */
static char *own(struct chunk *c, char *s)
{
  if (s && fg_grow_array((void **)&c->owned, &c->owned_cap, sizeof *c->owned, (size_t)c->nowned + 1) != 0) {
    free(s);
    return NULL;
  }
  if (s)
    c->owned[c->nowned++] = s;
  return s;
}

static int memo_get(const struct chunk *c, const struct memo *m, uint64_t key, const char **text)
{
  uint32_t i;
  if (!map_get(c, &m->index, key, &i))
    return 0;
  *text = m->text[i];
  return 1;
}

static void memo_put(const struct chunk *c, struct memo *m, uint64_t key, const char *text)
{
  if (fg_grow_array((void **)&m->text, &m->cap, sizeof *m->text, (size_t)m->n + 1) != 0)
    return;   /* not kept: read again when asked again */
  m->text[m->n] = text;
  if (map_put(c, &m->index, key, m->n) == 0)
    m->n++;
}

static void memo_free(struct memo *m)
{
  fg_u64_map_free(&m->index);
  free(m->text);
}

/* Appends code point cp as UTF-8. */
static size_t put_utf8(char *o, uint32_t cp)
{
  if (cp < 0x80) {
    o[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    o[0] = (char)(0xc0 | cp >> 6);
    o[1] = (char)(0x80 | (cp & 0x3f));
    return 2;
  }
  o[0] = (char)(0xe0 | cp >> 12);
  o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
  o[2] = (char)(0x80 | (cp & 0x3f));
  return 3;
}

static const char *string_at(struct chunk *c, uint64_t key, int depth);

/* A string value, NUL-ended and the chunk's (NULL: a null string, not kept,
 * or out of memory, or bad: then r->bad). Encodings: 0 null, 1 empty, 2 a
 * key in the java.lang.String pool, 3 UTF-8, 4 UTF-16 code units as
 * varints, 5 Latin-1. */
static const char *rd_string(struct rd *r, struct chunk *c, int keep, int depth)
{
  uint8_t enc = rd_byte(r);
  if (r->bad || enc == 0)
    return NULL;
  if (enc == 1)
    return keep ? "" : NULL;
  if (enc == 2) {
    uint64_t key = rd_long(r);
    return keep && !r->bad ? string_at(c, key, depth + 1) : NULL;
  }
  if (enc > 5) {
    set_bad(r, "a string of an unknown encoding");
    return NULL;
  }
  uint64_t n = rd_count(r);   /* bytes, or code units of a byte at least */
  if (r->bad)
    return NULL;
  if (enc == 3) {
    char *s = keep ? own(c, malloc(n + 1)) : NULL;
    if (s) {
      memcpy(s, r->b + r->pos, n);
      s[n] = '\0';
    }
    r->pos += n;
    return s;
  }
  char *s = keep ? own(c, malloc(3 * n + 1)) : NULL;
  size_t o = 0;
  for (uint64_t i = 0; i < n && !r->bad; i++) {
    uint32_t unit = enc == 5 ? rd_byte(r) : (uint32_t)(rd_long(r) & 0xffff);
    if (s)
      o += put_utf8(s + o, unit >= 0xd800 && unit < 0xe000 ? 0xfffd : unit);   /* a lone surrogate: U+FFFD */
  }
  if (s)
    s[o] = '\0';
  return s;
}

/* ---- metadata ---- */

static const struct jclass *class_of(struct chunk *c, uint64_t id)
{
  uint32_t i;
  return fg_u64_map_get(&c->cls_index, id + 1, &i) ? &c->cls[i] : NULL;
}

/* A field's class (its type), looked up once when the metadata was read. */
static const struct jclass *field_class(const struct chunk *c, const struct field *f)
{
  return f->cls >= 0 ? &c->cls[f->cls] : NULL;
}

static const char *meta_string(struct rd *r, struct chunk *c)
{
  uint64_t i = rd_long(r);
  if (r->bad)
    return "";
  if (i >= c->nstrings || !c->strings[i]) {
    set_bad(r, "an index past the metadata's string table");
    return "";
  }
  return c->strings[i];
}

/* A decimal id of the metadata ("123"): 0, or -1 when it is not one. */
static int parse_id(const char *s, uint64_t *v)
{
  *v = 0;
  size_t i = 0;
  for (; s[i] >= '0' && s[i] <= '9' && i < 20; i++) {
    uint64_t d = (uint64_t)(s[i] - '0');
    if (*v > (UINT64_MAX - d) / 10)
      return -1;
    *v = *v * 10 + d;
  }
  return i > 0 && s[i] == '\0' ? 0 : -1;
}

static enum prim prim_of(const char *name)
{
  static const struct { const char *name; enum prim prim; } prims[] = {
    {"long", P_LONG}, {"int", P_LONG}, {"short", P_LONG}, {"char", P_LONG}, {"byte", P_BYTE},
    {"boolean", P_BYTE}, {"float", P_FLOAT}, {"double", P_DOUBLE}, {"java.lang.String", P_STRING},
  };
  for (size_t i = 0; i < sizeof prims / sizeof prims[0]; i++)
    if (strcmp(name, prims[i].name) == 0)
      return prims[i].prim;
  return P_OBJECT;
}

/* One element of the tree and its children; a "class" element declares a
 * class, a "field" element under it one of its fields. Each element takes
 * three bytes at least, an attribute two: the loops are bounded by bytes. */
static void meta_element(struct rd *r, struct chunk *c, struct jclass *parent, int depth)
{
  if (depth > MAX_DEPTH) {
    set_bad(r, "metadata elements nested deeper than 24");
    return;
  }
  const char *name = meta_string(r, c);
  uint64_t nattr = rd_count(r);
  const char *cls_name = NULL, *id = NULL, *type = NULL, *pool = NULL, *dim = NULL;
  for (uint64_t i = 0; i < nattr && !r->bad; i++) {
    const char *k = meta_string(r, c), *v = meta_string(r, c);
    if (strcmp(k, "name") == 0)
      cls_name = v;
    else if (strcmp(k, "id") == 0)
      id = v;
    else if (strcmp(k, "class") == 0)
      type = v;
    else if (strcmp(k, "constantPool") == 0)
      pool = v;
    else if (strcmp(k, "dimension") == 0)
      dim = v;
  }
  struct jclass *self = NULL;
  uint64_t num = 0;
  if (!r->bad && strcmp(name, "class") == 0 && cls_name && id) {
    if (parse_id(id, &num) != 0 || num == UINT64_MAX) {
      set_bad(r, "a class id that is not a number");
      return;
    }
    if (fg_grow_array((void **)&c->cls, &c->cls_cap, sizeof *c->cls, (size_t)c->ncls + 1) != 0) {
      set_bad(r, "out of memory");
      return;
    }
    self = &c->cls[c->ncls];
    *self = (struct jclass){.id = num, .name = cls_name, .prim = prim_of(cls_name)};
    if (fg_u64_map_put(&c->cls_index, self->id + 1, c->ncls) != 0)
      set_bad(r, "out of memory");
    c->ncls++;
  } else if (!r->bad && strcmp(name, "field") == 0 && parent && cls_name && type) {
    if (parse_id(type, &num) != 0) {
      set_bad(r, "a field's class id that is not a number");
      return;
    }
    if (fg_grow_array((void **)&parent->fields, &parent->cap, sizeof *parent->fields, (size_t)parent->nfields + 1) != 0) {
      set_bad(r, "out of memory");
      return;
    }
    parent->fields[parent->nfields++] = (struct field){cls_name, num, pool && strcmp(pool, "true") == 0,
                                                       dim && strcmp(dim, "0") != 0, -1};
  }
  uint64_t nchildren = rd_count(r);
  for (uint64_t i = 0; i < nchildren && !r->bad; i++) {
    /* c->cls may move as classes are added: the parent is found again by index */
    uint32_t at = self ? (uint32_t)(self - c->cls) : 0;
    meta_element(r, c, self ? &c->cls[at] : NULL, depth + 1);
    self = self ? &c->cls[at] : NULL;
  }
}

/* The class a plain field (no array, no pool key) holds a value of: its
 * index, or -1 when the field takes bytes whatever its class (an array's
 * count, a key) or names a class the metadata lacks (reading it fails). */
static int64_t plain_class(const struct chunk *c, const struct field *f)
{
  uint32_t t;
  if (f->array || f->pool || !fg_u64_map_get(&c->cls_index, f->type + 1, &t))
    return -1;
  return t;
}

/* Which classes take bytes: a primitive does, a class with a field that
 * does; what is left takes none, cycles too (no value of them can take a
 * byte). Worked from the primitives up over the fields reversed, so linear
 * in the metadata's size; then each class lists its fields that take bytes. */
static int mark_sizes(struct chunk *c)
{
  uint32_t n = c->ncls, nedges = 0, nqueue = 0;
  uint32_t *start = calloc((size_t)n + 2, sizeof *start), *queue = malloc(((size_t)n + 1) * sizeof *queue);
  uint32_t *edges = NULL;
  int rc = -1;
  if (!start || !queue)
    goto out;
  for (uint32_t k = 0; k < n; k++) {
    struct jclass *j = &c->cls[k];
    j->takes_bytes = j->prim != P_OBJECT;
    for (uint32_t i = 0; i < j->nfields; i++) {
      int64_t t = plain_class(c, &j->fields[i]);
      if (t < 0)
        j->takes_bytes = 1;
      else
        start[t + 2]++, nedges++;
    }
  }
  for (uint32_t t = 0; t < n; t++)   /* start[t + 1]: where class t's users begin */
    start[t + 2] += start[t + 1];
  if (!(edges = malloc(((size_t)nedges + 1) * sizeof *edges)))
    goto out;
  for (uint32_t k = 0; k < n; k++)
    for (uint32_t i = 0; i < c->cls[k].nfields; i++) {
      int64_t t = plain_class(c, &c->cls[k].fields[i]);
      if (t >= 0)
        edges[start[t + 1]++] = k;   /* then start[t + 1] is where t's users end, start[t] where they begin */
    }
  for (uint32_t k = 0; k < n; k++)
    if (c->cls[k].takes_bytes)
      queue[nqueue++] = k;
  while (nqueue > 0) {
    uint32_t t = queue[--nqueue];
    for (uint32_t e = start[t]; e < start[t + 1]; e++)
      if (!c->cls[edges[e]].takes_bytes) {
        c->cls[edges[e]].takes_bytes = 1;
        queue[nqueue++] = edges[e];
      }
  }
  for (uint32_t k = 0; k < n; k++) {
    struct jclass *j = &c->cls[k];
    if (!(j->live = malloc(((size_t)j->nfields + 1) * sizeof *j->live)) ||
        !(j->plan = malloc((size_t)j->nfields + 1)))
      goto out;
    for (uint32_t i = 0; i < j->nfields; i++) {
      uint32_t type;
      j->fields[i].cls = fg_u64_map_get(&c->cls_index, j->fields[i].type + 1, &type) ? (int32_t)type : -1;
      int64_t t = plain_class(c, &j->fields[i]);
      if (t < 0 || c->cls[t].takes_bytes)
        j->live[j->nlive++] = i;
    }
  }
  rc = 0;
out:
  free(start);
  free(queue);
  free(edges);
  return rc;
}

static void read_metadata(struct rd *r, struct chunk *c)
{
  rd_long(r);   /* start */
  rd_long(r);   /* duration */
  rd_long(r);   /* metadata id */
  uint64_t n = rd_count(r);   /* each string takes its encoding's byte */
  if (r->bad)
    return;
  c->strings = calloc(n ? n : 1, sizeof *c->strings);
  if (!c->strings) {
    set_bad(r, "out of memory");
    return;
  }
  c->nstrings = (uint32_t)n;
  for (uint64_t i = 0; i < n && !r->bad; i++) {
    c->strings[i] = rd_string(r, c, 1, 0);
    if (!c->strings[i] && !r->bad)
      c->strings[i] = "";
  }
  meta_element(r, c, NULL, 0);
  if (!r->bad && mark_sizes(c) != 0)
    set_bad(r, "out of memory");
}

/* ---- values ---- */

static void skip_value(struct rd *r, struct chunk *c, const struct field *f, int depth);

static void skip_one(struct rd *r, struct chunk *c, const struct field *f, int depth)
{
  if (f->pool) {
    rd_long(r);
    return;
  }
  const struct jclass *k = field_class(c, f);
  if (!k) {
    set_bad(r, "a value of a class the metadata does not declare");
    return;
  }
  if (depth > MAX_DEPTH) {
    set_bad(r, "values nested deeper than 24");
    return;
  }
  switch (k->prim) {
  case P_LONG: rd_long(r); return;
  case P_BYTE: rd_skip(r, 1); return;
  case P_FLOAT: rd_skip(r, 4); return;
  case P_DOUBLE: rd_skip(r, 8); return;
  case P_STRING: rd_string(r, c, 0, depth); return;
  case P_OBJECT:
    for (uint32_t i = 0; i < k->nlive && !r->bad; i++)   /* each takes a byte at least */
      skip_value(r, c, &k->fields[k->live[i]], depth + 1);
    return;
  }
}

/* Whether a value of field f takes no bytes (then n of them take none either). */
static int takes_no_bytes(struct chunk *c, const struct field *f)
{
  const struct jclass *k = f->pool ? NULL : field_class(c, f);
  return k && !k->takes_bytes;
}

static void skip_value(struct rd *r, struct chunk *c, const struct field *f, int depth)
{
  if (!f->array) {
    skip_one(r, c, f, depth);
    return;
  }
  if (takes_no_bytes(c, f)) {   /* n times nothing: read as such, not n times */
    rd_long(r);
    return;
  }
  uint64_t n = rd_count(r);
  for (uint64_t i = 0; i < n && !r->bad; i++)
    skip_one(r, c, f, depth);
}

/* What a reader wants of an object's fields: by name, a number (a pool key
 * too), a string (text), or an array of objects handed element by element to each. */
struct want {
  const char *name;
  int text;
  void (*each)(struct rd *r, struct chunk *c, const struct jclass *elem, void *ctx);
  void *ctx;
  uint64_t num;
  const char *str;              /* the chunk's */
  int has;
};

static struct want *wanted(struct want *w, int n, const char *name)
{
  for (int i = 0; i < n; i++)
    if (strcmp(w[i].name, name) == 0)
      return &w[i];
  return NULL;
}

/* k's plan for the wants w (made when it has none for them): each live
 * field's want, or NULL when too many wants to remember. */
static const int8_t *plan_for(struct chunk *c, const struct jclass *k, const struct want *w, int nw)
{
  struct jclass *m = &c->cls[k - c->cls];   /* k is one of the chunk's classes */
  if (nw > PLAN_WANTS || !m->plan)
    return NULL;
  int same = m->plan_nw == nw;
  for (int i = 0; same && i < nw; i++)
    same = m->plan_names[i] == w[i].name;
  if (same)
    return m->plan;
  for (uint32_t i = 0; i < m->nlive; i++) {
    const struct want *x = wanted((struct want *)w, nw, m->fields[m->live[i]].name);
    m->plan[i] = x ? (int8_t)(x - w) : -1;
  }
  for (int i = 0; i < nw; i++)
    m->plan_names[i] = w[i].name;
  m->plan_nw = nw;
  return m->plan;
}

static int read_entry(struct chunk *c, uint64_t type, uint64_t key, struct want *w, int nw, int depth);

/* Reads an object of class k at r, its wanted fields into w. */
static void read_object(struct rd *r, struct chunk *c, const struct jclass *k, struct want *w, int nw, int depth)
{
  const int8_t *plan = plan_for(c, k, w, nw);
  for (uint32_t i = 0; i < k->nlive && !r->bad; i++) {
    const struct field *f = &k->fields[k->live[i]];
    struct want *x = plan ? (plan[i] >= 0 ? &w[plan[i]] : NULL) : wanted(w, nw, f->name);
    const struct jclass *t = x ? field_class(c, f) : NULL;
    if (x && x->each && f->array && !f->pool && t && t->prim == P_OBJECT) {
      if (!t->takes_bytes) {
        set_bad(r, "an array of a class that takes no bytes where objects are read");
        return;
      }
      uint64_t n = rd_count(r);
      for (uint64_t e = 0; e < n && !r->bad; e++)
        x->each(r, c, t, x->ctx);
      x->has = 1;
    } else if (x && !x->each && !x->text && !f->array && (f->pool || (t && t->prim == P_LONG))) {
      x->num = rd_long(r);
      x->has = 1;
    } else if (x && !x->each && !x->text && !f->array && t && t->prim == P_BYTE) {
      x->num = rd_byte(r);
      x->has = 1;
    } else if (x && x->text && !f->array && !f->pool && t && t->prim == P_STRING) {
      x->str = rd_string(r, c, 1, depth);
      x->has = 1;
    } else if (x && x->text && !f->array && f->pool && t && t->prim == P_OBJECT && t->nlive == 1) {
      /* a pool of one text (the JDK's GCName, GCCause, VMOperationType): that text */
      uint64_t key = rd_long(r);
      const struct field *only = &t->fields[t->live[0]];
      const struct jclass *ot = field_class(c, only);
      struct want one[] = {{.name = only->name, .text = 1}};
      if (!r->bad && ot && ot->prim == P_STRING && !only->pool && !only->array &&
          read_entry(c, f->type, key, one, 1, depth) == 0 && one[0].has) {
        x->str = one[0].str;
        x->has = 1;
      }
    } else {
      skip_value(r, c, f, depth);
    }
  }
}

/* The offset of entry key of the pool of class type (0: none). */
static uint64_t pool_offset(struct chunk *c, uint64_t type, uint64_t key)
{
  uint32_t tindex, i;
  if (!c->pools || !fg_u64_map_get(&c->cls_index, type + 1, &tindex) || !map_get(c, &c->pools[tindex], key, &i))
    return 0;
  return c->offsets[i];
}

/* Reads pool entry key of class type at its offset into w; 0, or -1 when absent or bad. */
static int read_entry(struct chunk *c, uint64_t type, uint64_t key, struct want *w, int nw, int depth)
{
  const struct jclass *k = class_of(c, type);
  uint64_t at = k && depth <= MAX_DEPTH ? pool_offset(c, type, key) : 0;
  if (!at)
    return -1;
  struct rd r = {.b = c->b, .pos = at, .end = c->size};
  read_object(&r, c, k, w, nw, depth + 1);
  return r.bad ? -1 : 0;
}

/* The java.lang.String pool's entry key, read once (a chain of keys to
 * keys ends at MAX_DEPTH; one that comes back to itself is NULL). */
static const char *string_at(struct chunk *c, uint64_t key, int depth)
{
  const char *s = NULL;
  if (memo_get(c, &c->strs, key, &s) || depth > MAX_DEPTH)
    return s;
  uint64_t at = pool_offset(c, c->t_string, key);
  if (!at)
    return NULL;
  memo_put(c, &c->strs, key, NULL);   /* while it is read: a key that leads back to it finds NULL */
  struct rd r = {.b = c->b, .pos = at, .end = c->size};
  s = rd_string(&r, c, 1, depth + 1);
  uint32_t i;
  if (map_get(c, &c->strs.index, key, &i))
    c->strs.text[i] = r.bad ? NULL : s;
  return r.bad ? NULL : s;
}

/* A Symbol's text, or NULL; read once a key. */
static const char *symbol(struct chunk *c, uint64_t key)
{
  const char *s = NULL;
  if (memo_get(c, &c->symbols, key, &s))
    return s;
  struct want w[] = {{.name = "string", .text = 1}};
  s = read_entry(c, c->t_symbol, key, w, 1, 0) == 0 ? w[0].str : NULL;
  memo_put(c, &c->symbols, key, s);
  return s;
}

/* A Class's binary name ("java/lang/String", "[B"), or NULL; read once a key. */
static const char *class_name(struct chunk *c, uint64_t key)
{
  const char *s = NULL;
  if (memo_get(c, &c->class_names, key, &s))
    return s;
  struct want w[] = {{.name = "name"}};
  s = read_entry(c, c->t_class, key, w, 1, 0) == 0 && w[0].has ? symbol(c, w[0].num) : NULL;
  memo_put(c, &c->class_names, key, s);
  return s;
}

/* ---- the checkpoint's pools ---- */

static void read_checkpoint(struct rd *r, struct chunk *c)
{
  rd_long(r);   /* start */
  rd_long(r);   /* duration */
  rd_long(r);   /* delta to the previous checkpoint */
  rd_byte(r);   /* its kind */
  uint64_t npools = rd_count(r);   /* each pool takes two bytes at least */
  for (uint64_t p = 0; p < npools && !r->bad; p++) {
    uint64_t type = rd_long(r), n = rd_count(r);   /* each entry takes its key's byte at least */
    const struct jclass *k = class_of(c, type);
    uint32_t tindex;
    if (r->bad)
      return;
    if (!k || !c->pools || !fg_u64_map_get(&c->cls_index, type + 1, &tindex)) {
      set_bad(r, "a pool of a class the metadata does not declare");
      return;
    }
    struct field value = {"", type, 0, 0, (int32_t)tindex};
    for (uint64_t e = 0; e < n && !r->bad; e++) {
      uint64_t key = rd_long(r);
      if (key != UINT64_MAX) {   /* -1 is a key too (a deoptimization reason's none): never one fgprof looks up */
        if (fg_grow_array((void **)&c->offsets, &c->offsets_cap, sizeof *c->offsets, (size_t)c->noffsets + 1) != 0 ||
            map_put(c, &c->pools[tindex], key, c->noffsets) != 0) {
          set_bad(r, "out of memory");
          return;
        }
        c->offsets[c->noffsets++] = r->pos;   /* read again later as skipped now: within this checkpoint */
      }
      skip_value(r, c, &value, 0);
    }
  }
}

/* ---- from keys to the profile's ids ---- */

static enum fg_frame_kind kind_of(const char *description)
{
  static const struct { const char *text; enum fg_frame_kind kind; } kinds[] = {
    {"Interpreted", FG_KIND_INTERPRETED}, {"JIT compiled", FG_KIND_COMPILED}, {"Inlined", FG_KIND_INLINED},
    {"Native", FG_KIND_NATIVE}, {"C++", FG_KIND_NATIVE}, {"Kernel", FG_KIND_KERNEL}, {"Marker", FG_KIND_MARKER},
    {"Thread", FG_KIND_THREAD},
  };
  for (size_t i = 0; description && i < sizeof kinds / sizeof kinds[0]; i++)
    if (strcmp(description, kinds[i].text) == 0)
      return kinds[i].kind;
  return FG_KIND_JAVA;
}

/* A frame type's kind; read once a key (key 0 is the JDK's Interpreted). */
static enum fg_frame_kind frame_kind(struct chunk *c, uint64_t key)
{
  const char *s = NULL;
  if (!memo_get(c, &c->frame_types, key, &s)) {
    struct want d[] = {{.name = "description", .text = 1}};
    s = read_entry(c, c->t_frame_type, key, d, 1, 0) == 0 ? d[0].str : NULL;
    memo_put(c, &c->frame_types, key, s);
  }
  return kind_of(s);
}

/* The index of method key's names, read once a key; UINT32_MAX when out of memory. */
static uint32_t method_of(struct chunk *c, uint64_t key)
{
  uint32_t at;
  if (map_get(c, &c->method_ids, key, &at))
    return at;
  if (fg_grow_array((void **)&c->methods, &c->methods_cap, sizeof *c->methods, (size_t)c->nmethods + 1) != 0)
    return UINT32_MAX;
  struct method m = {0};
  struct want w[] = {{.name = "type"}, {.name = "name"}, {.name = "descriptor"}};
  if (read_entry(c, c->t_method, key, w, 3, 0) == 0) {
    m.name = w[1].has ? symbol(c, w[1].num) : NULL;
    m.cls = w[0].has && w[0].num ? class_name(c, w[0].num) : NULL;
    m.descriptor = w[2].has ? symbol(c, w[2].num) : NULL;
  }
  c->methods[c->nmethods] = m;
  if (map_put(c, &c->method_ids, key, c->nmethods) != 0)
    return UINT32_MAX;
  return c->nmethods++;
}

/* Whether one more overload of text (kind, bci) may be kept apart by its
 * descriptor: the profile finds a name's overloads on one probe sequence,
 * so a file with thousands of one name's descriptors would make each new
 * one walk all before it. A class has a few overloads of a name; past
 * MAX_OVERLOADS they are one frame. */
static int overload_room(struct chunk *c, const char *text, enum fg_frame_kind kind, int32_t bci)
{
  uint64_t h = hash4(c, kind, (uint32_t)bci, 0, 0);
  for (size_t i = 0; text[i]; i++)
    h = (h ^ (unsigned char)text[i]) * 0x100000001b3ull;
  h = mix(h, c->run->mult) | 1;
  uint32_t n = 0;
  fg_u64_map_get(&c->run->overloads, h, &n);
  if (n >= MAX_OVERLOADS)
    return 0;
  return fg_u64_map_put(&c->run->overloads, h, n + 1) == 0;
}

/* The profile's name of a frame of method m (UINT32_MAX: none) of kind at
 * line and bci (-1: none); made once for each of these. -1 when out of
 * memory or past the budget (then r is bad). */
static int64_t frame_id(struct rd *r, struct chunk *c, uint32_t m, enum fg_frame_kind kind, int32_t line, int32_t bci)
{
  uint64_t h = hash4(c, m, kind, (uint32_t)line, (uint32_t)bci);
  uint32_t at;
  if (fg_u64_map_get(&c->frame_ids, h, &at)) {
    const struct frame_memo *f = &c->frames[at];
    if (f->method == m && f->kind == kind && f->line == line && f->bci == bci)
      return f->id;
  }
  const struct method *me = m == UINT32_MAX ? &(struct method){0} : &c->methods[m];
  const char *cls = me->cls, *name = me->name, *descriptor = me->descriptor;
  size_t len = (cls ? strlen(cls) + 1 : 0) + (name ? strlen(name) : 9) + 13;
  if (charge(r, c, len) != 0)
    return -1;
  char *text = malloc(len);
  int64_t id = -1;
  if (text) {
    int n = snprintf(text, len, "%s%s%s", cls && *cls ? cls : "", cls && *cls ? "." : "", name ? name : "[unknown]");
    if (line >= 0)
      snprintf(text + n, len - (size_t)n, ":%d", line);
    /* a descriptor of the method's own, not a writer's stand-in: overloads apart */
    int own_descriptor = descriptor && descriptor[0] == '(' && strcmp(descriptor, "()L;") != 0;
    if (own_descriptor && !overload_room(c, text, kind, bci))
      own_descriptor = 0;
    id = fg_profile_intern_method(c->p, text, kind, bci, own_descriptor ? descriptor : NULL);
  }
  free(text);
  if (id < 0) {
    set_bad(r, "out of memory");
    return -1;
  }
  if (fg_grow_array((void **)&c->frames, &c->frames_cap, sizeof *c->frames, (size_t)c->nframes + 1) == 0) {
    c->frames[c->nframes] = (struct frame_memo){m, line, bci, (uint8_t)kind, (uint32_t)id};
    if (fg_u64_map_put(&c->frame_ids, h, c->nframes) == 0)
      c->nframes++;
  }
  return id;
}

struct frames {
  uint32_t *ids;   /* leaf first, as JFR lists them */
  uint32_t n, cap;
  int failed;
};

/* One StackFrame of a stack trace's frames: its method's name, its kind. */
static void one_frame(struct rd *r, struct chunk *c, const struct jclass *elem, void *ctx)
{
  struct frames *fr = ctx;
  struct want w[] = {{.name = "method"}, {.name = "type"}, {.name = "lineNumber"}, {.name = "bytecodeIndex"}};
  read_object(r, c, elem, w, 4, 1);
  if (r->bad || fr->failed)
    return;
  uint32_t m = w[0].has ? method_of(c, w[0].num) : UINT32_MAX;
  enum fg_frame_kind kind = frame_kind(c, w[1].has ? w[1].num : 0);
  const struct method *me = m == UINT32_MAX ? NULL : &c->methods[m];
  /* with lines, a Java method's frame at its line and bytecode index (JFR's int fields, as varints) */
  int java = me && me->cls && *me->cls && me->name && kind != FG_KIND_NATIVE && kind != FG_KIND_KERNEL &&
             kind != FG_KIND_MARKER;
  int32_t line = c->lines && java && w[2].has ? (int32_t)w[2].num : -1;
  int32_t bci = c->lines && java && w[3].has ? (int32_t)w[3].num : -1;
  int64_t id = frame_id(r, c, m, kind, line < 0 ? -1 : line, bci < 0 ? -1 : bci);
  if (id < 0 || fg_grow_array((void **)&fr->ids, &fr->cap, sizeof *fr->ids, (size_t)fr->n + 1) != 0) {
    fr->failed = 1;
    return;
  }
  fr->ids[fr->n++] = (uint32_t)id;
}

/* The stack trace key's frames (index into c->stacks), read once; -1 when bad. */
static int64_t stack_of(struct rd *r, struct chunk *c, uint64_t key)
{
  uint32_t at;
  if (map_get(c, &c->stack_ids, key, &at))
    return at;
  struct frames fr = {0};
  struct want w[] = {{.name = "frames", .each = one_frame, .ctx = &fr}, {.name = "truncated"}};
  const struct jclass *k = class_of(c, c->t_stack);
  uint64_t entry = key && k ? pool_offset(c, c->t_stack, key) : 0;
  struct rd e = {.b = c->b, .pos = entry, .end = c->size};
  if (entry)
    read_object(&e, c, k, w, 2, 1);
  uint32_t *ids = e.bad || fr.failed ? NULL : malloc(((size_t)fr.n + 2) * sizeof *ids);
  if (!ids || fg_grow_array((void **)&c->stacks, &c->stacks_cap, sizeof *c->stacks, (size_t)c->nstacks + 1) != 0) {
    set_bad(r, e.bad ? e.why : c->run->budget == 0 ? "what its pool entries name over and over would take more "
                                                      "than 32 times the file's size" : "out of memory");
    if (e.bad)
      r->bad_at = e.bad_at;   /* the entry's byte, where it went wrong */
    free(fr.ids);
    free(ids);
    return -1;
  }
  uint32_t n = 0;
  if (w[1].has && w[1].num) {   /* cut at the root side: marked there, as fgagent marks its own */
    int64_t t = fg_profile_intern(c->p, "[truncated]", FG_KIND_MARKER);
    if (t >= 0)
      ids[1 + n++] = (uint32_t)t;
  }
  for (uint32_t i = fr.n; i-- > 0;)
    ids[1 + n++] = fr.ids[i];
  ids[0] = n;
  free(fr.ids);
  c->stacks[c->nstacks] = ids;
  if (map_put(c, &c->stack_ids, key, c->nstacks) != 0) {
    free(ids);
    set_bad(r, "out of memory");
    return -1;
  }
  return c->nstacks++;
}

/* A thread's identity across chunks as the run's map keeps it (never 0). */
static uint64_t thread_hash(const struct run *run, int tid, int64_t java_id, const char *name)
{
  uint64_t h = mix(mix(run->seed, (uint32_t)tid), (uint64_t)java_id);
  for (size_t i = 0; name[i]; i++)
    h = (h ^ (unsigned char)name[i]) * 0x100000001b3ull;
  return mix(h, run->mult) | 1;
}

/* The profile thread of thread key (0: a thread JFR does not name); one
 * thread of the same OS id, Java id and name in every chunk. */
static int64_t thread_of(struct rd *r, struct chunk *c, uint64_t key)
{
  uint32_t at;
  if (map_get(c, &c->thread_ids, key, &at))
    return at;
  struct want w[] = {{.name = "javaName", .text = 1}, {.name = "osName", .text = 1}, {.name = "osThreadId"},
                     {.name = "javaThreadId"}};
  if (key)
    read_entry(c, c->t_thread, key, w, 4, 0);
  const char *name = w[0].str && *w[0].str ? w[0].str : w[1].str ? w[1].str : "[unknown thread]";
  int tid = (int)w[2].num;
  int64_t java_id = (int64_t)w[3].num;
  size_t len = strlen(name);
  if (charge(r, c, len + 16) != 0)
    return -1;
  struct fg_profile *p = c->p;
  uint64_t h = thread_hash(c->run, tid, java_id, name);
  int64_t t = -1;
  uint32_t seen;
  if (fg_u64_map_get(&c->run->threads, h, &seen) && seen < p->nthreads && p->threads[seen].tid == tid &&
      p->threads[seen].java_id == java_id && strcmp(p->threads[seen].name, name) == 0)
    t = seen;   /* the same thread in an earlier chunk */
  if (t < 0 && (t = fg_profile_add_thread(p, tid, name)) >= 0) {
    p->threads[t].java_id = java_id;
    if (fg_u64_map_put(&c->run->threads, h, (uint32_t)t) != 0)
      t = -1;
  }
  if (t < 0 || map_put(c, &c->thread_ids, key, (uint32_t)t) != 0) {
    set_bad(r, "out of memory");
    return -1;
  }
  return t;
}

/* The class frame of class key: "byte[]", "java/lang/String"; "[no class]" for none. */
static int64_t class_frame(struct rd *r, struct chunk *c, uint64_t key)
{
  uint32_t at;
  if (map_get(c, &c->class_ids, key, &at))
    return at;
  const char *name = key ? class_name(c, key) : NULL;
  char frame[CLASS_NAME_MAX];
  int64_t id;
  if (charge(r, c, (name ? strnlen(name, CLASS_NAME_MAX) : 0) + 16) != 0)
    return -1;
  if (!name) {
    id = fg_profile_intern(c->p, "[no class]", FG_KIND_MARKER);
  } else {   /* a name longer than any class's is cut (precision: never read past it) */
    char shown[CLASS_NAME_MAX], sig[CLASS_NAME_MAX + 8];
    snprintf(shown, sizeof shown, "%.*s", CLASS_NAME_MAX - 1, name);
    snprintf(sig, sizeof sig, shown[0] == '[' ? "%s" : "L%s;", shown);
    id = fg_profile_intern(c->p, fg_class_frame_name(sig, frame, sizeof frame) == 0 ? frame : shown, FG_KIND_CLASS);
  }
  if (id < 0 || map_put(c, &c->class_ids, key, (uint32_t)id) != 0) {
    set_bad(r, "out of memory");
    return -1;
  }
  return id;
}
/* ---- events ---- */

static uint64_t ticks_ns(const struct chunk *c, uint64_t ticks)
{
  if (!c->ticks_per_s)
    return c->start_ns;
  long double d = (long double)(int64_t)(ticks - c->start_ticks) * 1e9L / (long double)c->ticks_per_s;
  if (d >= 9.2e18L || d <= -9.2e18L)   /* a time no clock gives: converting it would be undefined */
    d = d > 0 ? 9.2e18L : -9.2e18L;
  return c->start_ns + (uint64_t)(int64_t)d;
}

/* A Malloc (stack: its profile stack) or Free (UINT32_MAX) kept for the replay, charged to the budget. */
static int leak_event(struct rd *r, struct chunk *c, uint64_t time, uint64_t addr, uint64_t weight, uint32_t stack)
{
  struct run *run = c->run;
  if (charge(r, c, sizeof *run->leaks) != 0)
    return -1;
  if (fg_grow_array((void **)&run->leaks, &run->leaks_cap, sizeof *run->leaks, (size_t)run->nleaks + 1) != 0) {
    set_bad(r, "out of memory");
    return -1;
  }
  run->leaks[run->nleaks] = (struct leak_event){time, addr, weight, stack, run->nleaks};
  run->nleaks++;
  return 0;
}

static int leak_order(const void *a, const void *b)
{
  const struct leak_event *x = a, *y = b;
  if (x->time != y->time)
    return x->time < y->time ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The replay: events in time order, a free forgetting its address's last malloc; the mallocs
 * left are the leaks, counted into their stacks. 0, or -1 when memory ran out. */
static int count_leaks(struct run *run)
{
  if (!run->nleaks)
    return 0;
  qsort(run->leaks, run->nleaks, sizeof *run->leaks, leak_order);
  struct fg_u64_map last;   /* scrambled address -> index of its live malloc + 1, 0: freed */
  fg_u64_map_init(&last);
  int rc = 0;
  for (uint32_t k = 0; k < run->nleaks && rc == 0; k++) {
    const struct leak_event *l = &run->leaks[k];
    uint64_t key = (l->addr ^ run->seed) * run->mult;
    if (!key)
      continue;
    uint32_t at;
    if (l->stack == UINT32_MAX) {
      if (fg_u64_map_get(&last, key, &at) && at)
        rc = fg_u64_map_put(&last, key, 0);
    } else {
      rc = fg_u64_map_put(&last, key, k + 1);
    }
  }
  struct fg_event_stats *st = &run->p->stats.nativemem;
  for (uint32_t k = 0; k < run->nleaks && rc == 0; k++) {
    const struct leak_event *l = &run->leaks[k];
    uint64_t key = (l->addr ^ run->seed) * run->mult;
    uint32_t at;
    if (l->stack == UINT32_MAX)
      continue;
    st->on = 1;
    st->taken++;
    if (key && fg_u64_map_get(&last, key, &at) && at != k + 1) {
      st->freed++;   /* freed later, or its address given again by a later malloc */
      continue;
    }
    fg_profile_count(run->p, l->stack, l->weight, l->time, 0);
    run->p->stacks[l->stack].events++;
    st->stored++;
    st->weight += l->weight;
    st->events++;
  }
  fg_u64_map_free(&last);
  return rc;
}
/* The events read, each type's fields, and where two types record the
 * same thing, which one a recording is read from (choose_sources). weight:
 * the field a count is read from (NULL: one sample; lock: its duration);
 * or_else: where weight is 0 or absent. async-profiler 4.5 writes its alloc
 * samples as jdk.ObjectAllocationInNewTLAB (allocationSize the object's
 * size, tlabSize what the sample stands for: its JfrToFlame weighs each by
 * tlabSize, else allocationSize) or OutsideTLAB, its wall samples as
 * profiler.WallClockSample (samples: how many one event stands for), what
 * alloc,live found alive as profiler.LiveObject. */
enum source { S_EXEC, S_WALL, S_ALLOC_SAMPLE, S_NEW_TLAB, S_OUTSIDE_TLAB, S_MONITOR, S_PARK, S_LIVE, S_MALLOC,
              S_NATIVE_LOCK, S_FREE, S_KERNEL, S_COUNT };
static const struct {
  const char *type;
  enum fg_stack_event e;
  const char *thread, *cls, *weight, *or_else;
} sources[S_COUNT] = {
  [S_EXEC] = {"jdk.ExecutionSample", FG_STACK_CPU, "sampledThread", NULL, NULL, NULL},
  [S_WALL] = {"profiler.WallClockSample", FG_STACK_CPU, "sampledThread", NULL, "samples", NULL},
  [S_ALLOC_SAMPLE] = {"jdk.ObjectAllocationSample", FG_STACK_ALLOC, "eventThread", "objectClass", "weight", NULL},
  [S_NEW_TLAB] = {"jdk.ObjectAllocationInNewTLAB", FG_STACK_ALLOC, "eventThread", "objectClass", "tlabSize",
                  "allocationSize"},
  [S_OUTSIDE_TLAB] = {"jdk.ObjectAllocationOutsideTLAB", FG_STACK_ALLOC, "eventThread", "objectClass",
                      "allocationSize", NULL},
  [S_MONITOR] = {"jdk.JavaMonitorEnter", FG_STACK_LOCK, "eventThread", "monitorClass", NULL, NULL},
  [S_PARK] = {"jdk.ThreadPark", FG_STACK_LOCK, "eventThread", "parkedClass", NULL, NULL},
  [S_LIVE] = {"profiler.LiveObject", FG_STACK_LIVE, "eventThread", "objectClass", "allocationSize", NULL},
  /* fgagent's nativemem and nativelock, and async-profiler's own (its profiler.Free carries no
   * size: a leak report needs the recording's frees, which --leak replays by address) */
  [S_MALLOC] = {"profiler.Malloc", FG_STACK_NATIVEMEM, "eventThread", NULL, "size", NULL},
  [S_NATIVE_LOCK] = {"profiler.NativeLock", FG_STACK_NATIVELOCK, "eventThread", NULL, NULL, NULL},
  [S_FREE] = {"profiler.Free", FG_STACK_NATIVEMEM, "eventThread", NULL, NULL, NULL},
  [S_KERNEL] = {"fgagent.KernelEvent", FG_STACK_KERNEL, "eventThread", NULL, NULL, NULL},   /* count: its weight */
};
_Static_assert(S_COUNT <= 16, "struct run's counted[] and left_out have room for 16 sources");

/* One known event: its stack (with a class leaf for alloc and lock) counted
 * into the profile. A stack is copied once for each thread, event and
 * class it is met with (charged to the budget), then only counted. */
static int add_event(struct rd *r, struct chunk *c, enum fg_stack_event e, const struct want *w)
{
  /* w: startTime, thread, stackTrace, class, weight, duration, or_else, address, count, event */
  if (e == FG_STACK_KERNEL) {   /* which kernel event: by its name, each its own kind */
    int k = fg_stats_kevent_index(&c->p->stats, w[9].str ? w[9].str : "");
    if (k < 0) {
      set_bad(r, "a recording of more than " FG_KERNEL_EVENTS_MAX_TEXT " kernel events (fgagent.KernelEvent's event)");
      return -1;
    }
    e = (enum fg_stack_event)(FG_STACK_KERNEL + k);
  }
  int leaf = fg_event_kind(e)->class_leaf;   /* alloc's, lock's and live's class: the stack's leaf */
  uint64_t weight = 1, events = 1, time = ticks_ns(c, w[0].num);
  if (e == FG_STACK_LOCK || e == FG_STACK_NATIVELOCK) {
    weight = ticks_ns(c, w[0].num + w[5].num) - time;
    time += weight;   /* a wait is kept at its end, as fgagent keeps it */
  } else if (w[4].has || w[6].has) {
    weight = w[4].has && w[4].num ? w[4].num : w[6].num;
  }
  if (weight == 0 && e == FG_STACK_CPU)
    return 0;   /* a wall sample that stands for no samples */
  int64_t s = stack_of(r, c, w[2].num), t = s < 0 ? -1 : thread_of(r, c, w[1].num);
  int64_t cls = t < 0 || !leaf ? -1 : class_frame(r, c, w[3].num);
  if (s < 0 || t < 0 || (leaf && cls < 0))
    return -1;
  const uint32_t *ids = c->stacks[s];
  uint32_t n = ids[0];
  uint64_t h = hash4(c, (uint64_t)s, (uint64_t)t, (uint64_t)cls, e);
  uint32_t at;
  int64_t i = -1;
  if (fg_u64_map_get(&c->combo_ids, h, &at)) {
    const struct combo_memo *m = &c->combos[at];
    if (m->stack == (uint32_t)s && m->thread == (uint32_t)t && m->cls == (uint32_t)cls && m->event == e)
      i = m->index;
  }
  if (i < 0) {
    if (charge(r, c, ((uint64_t)n + 1) * sizeof *ids) != 0)
      return -1;
    uint32_t *frames = malloc(((size_t)n + 1) * sizeof *frames);
    if (!frames) {
      set_bad(r, "out of memory");
      return -1;
    }
    memcpy(frames, ids + 1, n * sizeof *frames);
    if (leaf)
      frames[n] = (uint32_t)cls;
    i = fg_profile_event_stack(c->p, e, (uint32_t)t, frames, n + (uint32_t)leaf);
    free(frames);
    if (i < 0) {
      set_bad(r, "out of memory");
      return -1;
    }
    if (fg_grow_array((void **)&c->combos, &c->combos_cap, sizeof *c->combos, (size_t)c->ncombos + 1) == 0) {
      c->combos[c->ncombos] = (struct combo_memo){(uint32_t)s, (uint32_t)t, (uint32_t)cls, e, (uint32_t)i};
      if (fg_u64_map_put(&c->combo_ids, h, c->ncombos) == 0)
        c->ncombos++;
    }
  }
  struct fg_event_stats *st = fg_stats_event(&c->p->stats, e);
  if (e == FG_STACK_NATIVEMEM && st->leak)   /* counted at the end if no free follows */
    return leak_event(r, c, time, w[7].num, weight, (uint32_t)i);
  if (fg_stack_kernel_index(e) >= 0) {   /* a sample of a kernel event, standing for count events */
    weight = w[8].has ? w[8].num : 1;
    if (weight > st->interval)
      st->interval = weight;   /* the period: what a whole sample stands for */
  }
  fg_profile_count(c->p, (uint32_t)i, weight, time, 0);
  if (e == FG_STACK_CPU) {
    fg_profile_account(c->p, ids + 1, n, weight);   /* reads the root only */
  } else {
    c->p->stacks[i].events += events;
    st->on = 1;
    st->taken++;
    st->stored++;
    st->weight += weight;
    st->events += events;
  }
  return 0;
}

/* Whether an event of source (a row of sources[]) is kept as lock= keeps it: a jdk.ThreadPark only
 * when its parkedClass (class key) is an owned lock's (fg/lock_kinds.h, the
 * agent's rule), a park for an event (a latch, a Condition, an idle pool) or
 * with no blocker never; any other type always. */
static bool owned_or_not_park(struct chunk *c, int source, uint64_t key)
{
  if (source != S_PARK)
    return true;
  return fg_lock_owned_blocker(key ? class_name(c, key) : NULL);
}

/* The JVM's own events the heatmap draws (fg_profile's marks), when the
 * profile keeps room for them: GC pauses, whole collections, safepoints,
 * and fgagent's GC pauses (JVMTI's, in its .jfr).
 *
 * A safepoint is the whole stop, from jdk.SafepointBegin's start to its
 * jdk.SafepointEnd's end (same safepointId). HotSpot's
 * SafepointSynchronize::begin() (runtime/safepoint.cpp) opens its
 * EventSafepointBegin before arming the poll and commits it after the
 * threads stopped and the cleanup tasks ran, before the VM operation;
 * end() spans only the wake-up. So a begin alone is the time to reach the
 * safepoint (and clean up). The JDK's settings (default.jfc, profile.jfc)
 * leave jdk.SafepointEnd off but record jdk.ExecuteVMOperation, which
 * VMThread::evaluate_operation commits inside the safepoint with its
 * safepointId: a begin's mark runs to the end of its operation (named by
 * it) and on to its end when there is one; with neither it keeps its own
 * duration. */
#define MARK_SAFEPOINT_END FG_MARK_KINDS   /* not a mark: it closes one */
#define MARK_VM_OPERATION (FG_MARK_KINDS + 1)   /* not a mark: it widens one */
static const struct { const char *type; int kind; } mark_types[] = {
  {"jdk.GCPhasePause", FG_MARK_GC_PAUSE},
  {"jdk.GarbageCollection", FG_MARK_GC},
  {"jdk.SafepointBegin", FG_MARK_SAFEPOINT},
  {"jdk.SafepointEnd", MARK_SAFEPOINT_END},
  {"jdk.ExecuteVMOperation", MARK_VM_OPERATION},
  {"fgagent.GCPause", FG_MARK_GC_PAUSE},
};
#define MARK_TYPES (sizeof mark_types / sizeof mark_types[0])

/* A jdk.SafepointEnd (close) or a safepoint's jdk.ExecuteVMOperation: its
 * safepoint's mark, if its begin was read, made to end where it does (not
 * sooner), named by the operation when it has no name yet. */
static void widen_safepoint(struct run *run, struct fg_marks *m, uint64_t id, uint64_t end, const char *operation,
                            bool close)
{
  uint32_t n = run->nsafepoints < SAFEPOINTS_OPEN ? run->nsafepoints : SAFEPOINTS_OPEN;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t at = (run->nsafepoints - 1 - i) % SAFEPOINTS_OPEN;   /* the latest first */
    if (run->safepoints[at].id != id || run->safepoints[at].mark >= m->n)
      continue;
    struct fg_mark *k = &m->m[run->safepoints[at].mark];
    if (k->kind == FG_MARK_SAFEPOINT && end > k->time_ns && end - k->time_ns > k->duration_ns)
      k->duration_ns = end - k->time_ns;
    if (k->kind == FG_MARK_SAFEPOINT && operation && !k->label[0])
      fg_utf8_copy(k->label, sizeof k->label, operation);
    if (close)
      run->safepoints[at].mark = UINT32_MAX;
    return;
  }
}

static void read_mark(struct rd *r, struct chunk *c, const struct jclass *cls, int kind)
{
  struct want w[] = {{.name = "startTime"}, {.name = "duration"}, {.name = "name", .text = 1},
                     {.name = "cause", .text = 1}, {.name = "safepointId"}, {.name = "operation", .text = 1},
                     {.name = "safepoint"}};
  read_object(r, c, cls, w, 7, 0);
  if (r->bad || !w[0].has)
    return;
  uint64_t start = ticks_ns(c, w[0].num);
  uint64_t end = w[1].has ? ticks_ns(c, w[0].num + w[1].num) : start;
  struct fg_marks *m = &c->p->marks;
  if (kind == MARK_SAFEPOINT_END || kind == MARK_VM_OPERATION) {
    if (w[4].has && (kind == MARK_SAFEPOINT_END || (w[6].has && w[6].num)))
      widen_safepoint(c->run, m, w[4].num, end, kind == MARK_VM_OPERATION ? w[5].str : NULL,
                      kind == MARK_SAFEPOINT_END);
    return;
  }
  if (charge(r, c, sizeof(struct fg_mark)) != 0)
    return;
  char label[64];
  snprintf(label, sizeof label, "%s%s%s", w[2].str ? w[2].str : "", w[2].str && w[3].str ? ": " : "",
           w[3].str ? w[3].str : "");
  uint32_t before = m->n;
  if (fg_marks_add(m, (enum fg_mark_kind)kind, start, end > start ? end - start : 0, label) != 0)
    set_bad(r, "out of memory");
  else if (kind == FG_MARK_SAFEPOINT && w[4].has && m->n > before) {
    struct run *run = c->run;
    uint32_t at = run->nsafepoints++ % SAFEPOINTS_OPEN;
    run->safepoints[at].id = w[4].num;
    run->safepoints[at].mark = before;
  }
}

/* Each event of a type it reads, in the order of the chunk, each through
 * record_at; in the census pass only counted by source. */
static int read_events(struct rd *r, struct chunk *c, uint64_t *known)
{
  uint64_t ids[S_COUNT];
  for (int k = 0; k < S_COUNT; k++) {
    ids[k] = UINT64_MAX;
    for (uint32_t i = 0; i < c->ncls && !(c->run->left_out & 1u << k); i++)
      if (strcmp(c->cls[i].name, sources[k].type) == 0)
        ids[k] = c->cls[i].id;
  }
  uint64_t mark_ids[MARK_TYPES];
  for (size_t k = 0; k < MARK_TYPES; k++) {
    mark_ids[k] = UINT64_MAX;
    for (uint32_t i = 0; i < c->ncls && c->p->marks.max; i++)
      if (strcmp(c->cls[i].name, mark_types[k].type) == 0)
        mark_ids[k] = c->cls[i].id;
  }
  while (r->pos < r->end && !r->bad) {
    size_t at = r->pos, body;
    uint64_t size, type;
    const char *why;
    if (record_at(r->b, at, r->end, &size, &type, &body, &why) != 0) {
      set_bad(r, why);
      return -1;
    }
    int k = 0;
    while (k < S_COUNT && ids[k] != type)
      k++;
    const struct jclass *cls = k < S_COUNT ? class_of(c, type) : NULL;
    if (cls && c->run->census) {
      c->run->counted[k]++;
    } else if (cls) {
      struct rd ev = {.b = r->b, .pos = body, .end = at + size};
      struct want w[] = {{.name = "startTime"}, {.name = sources[k].thread}, {.name = "stackTrace"},
                         {.name = sources[k].cls ? sources[k].cls : "-"},
                         {.name = sources[k].weight ? sources[k].weight : "-"}, {.name = "duration"},
                         {.name = sources[k].or_else ? sources[k].or_else : "-"}, {.name = "address"},
                         {.name = "count"}, {.name = "event", .text = 1}};
      read_object(&ev, c, cls, w, 10, 0);
      int is_free = k == S_FREE;   /* read for nativemem's leaks only */
      if (ev.bad || (is_free && c->p->stats.nativemem.leak &&
                     leak_event(&ev, c, ticks_ns(c, w[0].num), w[7].num, 0, UINT32_MAX) != 0) ||
          (!is_free && owned_or_not_park(c, k, w[3].num) && add_event(&ev, c, sources[k].e, w) != 0)) {
        r->pos = ev.bad_at;
        set_bad(r, ev.why);
        return -1;
      }
      *known += k != S_FREE;
    } else if (c->p->marks.max && !c->run->census) {   /* the census counts sources only */
      size_t m = 0;
      while (m < MARK_TYPES && mark_ids[m] != type)
        m++;
      const struct jclass *mc = m < MARK_TYPES ? class_of(c, type) : NULL;
      if (mc) {
        struct rd ev = {.b = r->b, .pos = body, .end = at + size};
        read_mark(&ev, c, mc, mark_types[m].kind);
        if (ev.bad) {
          r->pos = ev.bad_at;
          set_bad(r, ev.why);
          return -1;
        }
      }
    }
    r->pos = at + size;
  }
  return r->bad ? -1 : 0;
}

/* Which of two sources of the same events a recording is read from, after
 * the census: never both, which would count the same allocations or the
 * same moments twice. alloc: the TLAB events where there are any (they are
 * off in the JDK's default and profile settings, so there only when asked
 * for: async-profiler's alloc, or a JDK recording set to record every
 * TLAB), else jdk.ObjectAllocationSample. cpu: jdk.ExecutionSample where
 * there are any, else profiler.WallClockSample (async-profiler's wall, or
 * its cpu with wall=, whose wall samples are then left out), unless
 * FG_JFR_WALL asks for the wall samples. What is left out is said in the
 * profile's event_detail. */
static void choose_sources(struct run *run, const char *source)
{
  const uint64_t *n = run->counted;
  run->left_out = 0;
  if (n[S_NEW_TLAB] + n[S_OUTSIDE_TLAB] > 0)
    run->left_out |= 1u << S_ALLOC_SAMPLE;
  if (run->wall)
    run->left_out |= 1u << S_EXEC;
  else if (n[S_EXEC] > 0)
    run->left_out |= 1u << S_WALL;
  char *d = run->p->stats.event_detail;
  size_t len = sizeof run->p->stats.event_detail;
  int o = snprintf(d, len, "read from a JFR recording: %s", source);
  for (int k = 0; k < S_COUNT && o >= 0 && (size_t)o < len; k++)
    if (run->left_out & 1u << k && n[k] > 0)
      o += snprintf(d + o, len - (size_t)o, "; its %llu %s events left out (%s read instead%s)",
                    (unsigned long long)n[k], sources[k].type, k == S_WALL ? "jdk.ExecutionSample"
                    : k == S_EXEC ? "profiler.WallClockSample" : "jdk.ObjectAllocationInNewTLAB/OutsideTLAB",
                    k == S_WALL ? "; --event wall reads them" : k == S_EXEC ? ", as --event wall asks" : "");
  if (n[S_WALL] > 0 && !(run->left_out & 1u << S_WALL) && o >= 0 && (size_t)o < len)
    snprintf(d + o, len - (size_t)o, "; cpu: wall-clock samples (profiler.WallClockSample)");
}

/* ---- chunks ---- */

static uint64_t be(const uint8_t *b, int n)
{
  uint64_t v = 0;
  for (int i = 0; i < n; i++)
    v = v << 8 | b[i];
  return v;
}

static void chunk_free(struct chunk *c)
{
  free(c->strings);
  for (uint32_t i = 0; i < c->nowned; i++)
    free(c->owned[i]);
  free(c->owned);
  for (uint32_t i = 0; i < c->ncls; i++) {
    free(c->cls[i].fields);
    free(c->cls[i].live);
    free(c->cls[i].plan);
  }
  free(c->cls);
  for (uint32_t i = 0; i < c->nstacks; i++)
    free(c->stacks[i]);
  free(c->stacks);
  free(c->offsets);
  for (uint32_t i = 0; c->pools && i < c->ncls; i++)
    fg_u64_map_free(&c->pools[i]);
  free(c->pools);
  memo_free(&c->strs);
  memo_free(&c->symbols);
  memo_free(&c->class_names);
  memo_free(&c->frame_types);
  free(c->methods);
  free(c->frames);
  free(c->combos);
  fg_u64_map_free(&c->method_ids);
  fg_u64_map_free(&c->frame_ids);
  fg_u64_map_free(&c->combo_ids);
  fg_u64_map_free(&c->cls_index);
  fg_u64_map_free(&c->stack_ids);
  fg_u64_map_free(&c->thread_ids);
  fg_u64_map_free(&c->class_ids);
}

int fg_is_jfr(const uint8_t *data, size_t len)
{
  return len >= 4 && memcmp(data, "FLR\0", 4) == 0;
}

/* One chunk at data (len bytes from it to the file's end): its events into
 * run's profile; its size in *size. 0, or -1 with the message in err. */
static int read_chunk(const uint8_t *data, size_t len, size_t base, const char *source, struct run *run,
                      uint64_t *known, uint64_t *size, char *err, size_t errlen)
{
  if (len < HEADER_BYTES || !fg_is_jfr(data, len))
    return fg_error_line(err, errlen, "%s: byte %zu: not a JFR chunk (no \"FLR\" header of 68 bytes); accepted: a JDK Flight "
                "Recorder file", source, base);
  uint64_t major = be(data + 4, 2), chunk = be(data + 8, 8), meta = be(data + 24, 8);
  if (major != 2 && major != 1)
    return fg_error_line(err, errlen, "%s: JFR format %llu.%llu; accepted: 1.x and 2.x (JDK 11 and later)", source,
                (unsigned long long)major, (unsigned long long)be(data + 6, 2));
  if (chunk < HEADER_BYTES || chunk > len || meta < HEADER_BYTES || meta >= chunk)
    return fg_error_line(err, errlen, "%s: byte %zu: the chunk's size or metadata offset points past its end (a recording "
                "cut short, or one still being written?)", source, base);
  if (!(data[67] & 1))
    return fg_error_line(err, errlen, "%s: byte %zu: integers are not compressed; accepted: recordings with compressed "
                "integers, as every JDK writes them", source, base);
  *size = chunk;
  struct fg_profile *p = run->p;
  struct chunk c = {.b = data, .size = chunk, .run = run, .p = p, .lines = run->lines, .start_ns = be(data + 32, 8),
                    .start_ticks = be(data + 48, 8), .ticks_per_s = be(data + 56, 8)};
  if (!p->stats.start_epoch_ns || c.start_ns < p->stats.start_epoch_ns)
    p->stats.start_epoch_ns = p->stats.start_ns = c.start_ns;
  uint64_t end_ns = c.start_ns + be(data + 40, 8);
  if (end_ns > p->stats.start_ns + p->stats.wall_ns)
    p->stats.wall_ns = end_ns - p->stats.start_ns;

  uint64_t msize, mtype;
  size_t body;
  const char *why = NULL;   /* record_at sets it only when it refuses: a record of another type leaves it */
  int rc = 0;
  if (record_at(data, meta, chunk, &msize, &mtype, &body, &why) != 0 || mtype != 0) {
    rc = fg_error_line(err, errlen, "%s: byte %zu: no metadata event where the chunk header says: %s; accepted: " ACCEPTED, source, base + meta,
              mtype != 0 && !why ? "an event of another type" : why ? why : "an event of another type");
  } else {
    struct rd r = {.b = data, .pos = body, .end = meta + msize};
    read_metadata(&r, &c);
    if (r.bad)
      rc = fg_error_line(err, errlen, "%s: byte %zu: the metadata event (at byte %zu) is corrupt: %s; accepted: " ACCEPTED, source, base + r.bad_at,
                base + meta, r.why);
    else if (!(c.pools = calloc(c.ncls ? c.ncls : 1, sizeof *c.pools)))
      rc = fg_error_line(err, errlen, "%s: out of memory", source);
    for (uint32_t i = 0; c.pools && i < c.ncls; i++)
      fg_u64_map_init(&c.pools[i]);
    static const char *const names[] = {"java.lang.String", "jdk.types.Symbol", "java.lang.Class", "jdk.types.Method",
                                        "jdk.types.StackTrace", "jdk.types.FrameType", "java.lang.Thread"};
    uint64_t *ids[] = {&c.t_string, &c.t_symbol, &c.t_class, &c.t_method, &c.t_stack, &c.t_frame_type, &c.t_thread};
    for (int k = 0; k < 7; k++) {
      *ids[k] = UINT64_MAX;
      for (uint32_t i = 0; i < c.ncls; i++)
        if (strcmp(c.cls[i].name, names[k]) == 0)
          *ids[k] = c.cls[i].id;
    }
  }
  /* the pools, wherever their checkpoint events are (the census needs none) */
  for (size_t at = HEADER_BYTES; rc == 0 && !run->census && at < chunk;) {
    uint64_t esize, type;
    if (record_at(data, at, chunk, &esize, &type, &body, &why) != 0) {
      rc = fg_error_line(err, errlen, "%s: byte %zu: the event there is corrupt: %s; accepted: " ACCEPTED, source, base + at, why);
      break;
    }
    if (type == 1) {
      struct rd e = {.b = data, .pos = body, .end = at + esize};
      read_checkpoint(&e, &c);
      if (e.bad)
        rc = fg_error_line(err, errlen, "%s: byte %zu: a constant pool (the checkpoint event at byte %zu) is corrupt: %s; accepted: "
                  ACCEPTED,
                  source, base + e.bad_at, base + at, e.why);
    }
    at += esize;
  }
  if (rc == 0) {
    struct rd ev = {.b = data, .pos = HEADER_BYTES, .end = chunk};
    if (read_events(&ev, &c, known) != 0)
      rc = fg_error_line(err, errlen, "%s: byte %zu: an event cannot be read: %s; accepted: " ACCEPTED, source, base + ev.pos,
                ev.why ? ev.why : "it names a pool entry the recording lacks");
  }
  chunk_free(&c);
  return rc;
}

/* The run's secret for the maps' keys: not known to whoever wrote the file. */
static void run_secret(struct run *run)
{
  uint64_t s[2] = {0, 0};
  if (getrandom(s, sizeof s, GRND_NONBLOCK) != (ssize_t)sizeof s) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    s[0] = mix((uint64_t)ts.tv_nsec, (uint64_t)(uintptr_t)&ts);
    s[1] = mix(s[0], (uint64_t)ts.tv_sec);
  }
  run->seed = s[0];
  run->mult = s[1] | 1;   /* odd: a bijection */
}

int fg_parse_jfr(const uint8_t *data, size_t len, const char *source, unsigned flags, struct fg_profile *p, char *err,
                 size_t errlen)
{
  uint64_t known = 0;
  snprintf(p->stats.event, sizeof p->stats.event, "jfr");
  snprintf(p->stats.event_detail, sizeof p->stats.event_detail, "read from a JFR recording: %s", source);
  struct run run = {.p = p, .lines = (flags & FG_JFR_LINES) != 0, .wall = (flags & FG_JFR_WALL) != 0};
  run.budget = (uint64_t)len * BUDGET_PER_BYTE + BUDGET_FLOOR;
  run_secret(&run);
  int rc = 0;
  for (uint32_t i = 0; i < p->nthreads && rc == 0; i++) {   /* threads of an earlier file are met again */
    uint64_t h = thread_hash(&run, p->threads[i].tid, p->threads[i].java_id, p->threads[i].name);
    if (fg_u64_map_put(&run.threads, h, i) != 0)
      rc = fg_error_line(err, errlen, "%s: out of memory", source);
  }
  /* two passes over the chunks: the census counts each source's events
   * (metadata and record headers only; what it finds wrong the second pass
   * finds and says), then the events of the sources chosen are read */
  for (int pass = 0; pass < 2 && rc == 0; pass++) {
    run.census = pass == 0;
    if (pass == 1) {
      choose_sources(&run, source);
      uint64_t events = 0;   /* the timeline's room for what the census counted, made once */
      for (int k = 0; k < S_COUNT; k++)
        events += run.left_out & 1u << k ? 0 : run.counted[k];
      if (p->timeline.max)
        fg_timeline_reserve(&p->timeline, events);   /* out of memory: it grows as it goes */
    }
    for (size_t at = 0; at < len && rc == 0;) {
      uint64_t size = 0;
      rc = read_chunk(data + at, len - at, at, source, &run, &known, &size, err, errlen);
      at += size;
      if (rc != 0 && run.census)
        rc = 0, at = len;
    }
  }
  if (rc == 0 && p->stats.nativemem.leak && count_leaks(&run) != 0)
    rc = fg_error_line(err, errlen, "%s: out of memory", source);
  free(run.leaks);
  fg_u64_map_free(&run.threads);
  fg_u64_map_free(&run.overloads);
  if (rc == 0 && run.wall && run.counted[S_WALL] == 0)
    return fg_error_line(err, errlen, "%s: --event wall: no profiler.WallClockSample event; accepted: a recording "
                         "with async-profiler's wall-clock samples (its event=wall, or wall=INTERVAL)", source);
  if (rc == 0 && known == 0)
    return fg_error_line(err, errlen, "%s: no jdk.ExecutionSample, jdk.ObjectAllocationSample, jdk.JavaMonitorEnter or "
                "jdk.ThreadPark event, nor async-profiler's allocation (jdk.ObjectAllocationInNewTLAB/OutsideTLAB), "
                "wall-clock (profiler.WallClockSample) or live-object (profiler.LiveObject) events, nor fgagent's "
                "fgagent.KernelEvent; accepted: a recording with execution samples (the JDK's 'profile' or "
                "'default' settings), allocation samples, lock events or kernel events", source);
  return rc;
}
