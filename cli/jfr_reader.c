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
 * other event is skipped by its size. */
#include "fg/jfr_reader.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fg/class_name.h"
#include "fg/grow_array.h"
#include "fg/lock_kinds.h"
#include "fg/profile.h"
#include "fg/u64_map.h"

#define HEADER_BYTES 68
#define MAX_DEPTH 24            /* nested values and metadata elements */

enum prim { P_OBJECT, P_LONG, P_BYTE, P_FLOAT, P_DOUBLE, P_STRING };

struct field {
  const char *name;
  uint64_t type;
  int pool, array;
};

struct jclass {
  uint64_t id;
  const char *name;
  enum prim prim;
  struct field *fields;
  uint32_t nfields, cap;
};

struct rd {
  const uint8_t *b;
  size_t pos, end;
  int bad;
};

/* One chunk's metadata and pools, and the caches that turn its keys into the profile's ids. */
struct chunk {
  const uint8_t *b;             /* the chunk */
  size_t size;
  uint64_t start_ns, start_ticks, ticks_per_s;
  char **strings;               /* the metadata's string table */
  uint32_t nstrings;
  struct jclass *cls;
  uint32_t ncls, cls_cap;
  struct fg_u64_map cls_index;  /* id + 1 -> index */
  struct fg_u64_map *pools;     /* a class index's pool: key + 1 -> offset index */
  uint64_t *offsets;
  uint32_t noffsets, offsets_cap;
  /* the classes a reader looks entries up in, UINT64_MAX when the metadata has none */
  uint64_t t_string, t_symbol, t_class, t_method, t_stack, t_frame_type, t_thread;
  struct fg_u64_map stack_ids;  /* stack trace key + 1 -> index into stacks */
  uint32_t **stacks;            /* name ids, root first; [0] is the count */
  uint32_t nstacks, stacks_cap;
  struct fg_u64_map thread_ids; /* thread key + 1 -> profile thread */
  struct fg_u64_map class_ids;  /* class key + 1 -> frame name id */
  struct fg_profile *p;
  bool lines;                   /* Java frames named at their lines, interned at their bcis */
};

/* ---- reading ---- */

static int need(struct rd *r, size_t n)
{
  if (r->bad || n > r->end - r->pos) {
    r->bad = 1;
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

static char *string_at(struct chunk *c, uint64_t key, int depth);

/* A string value, malloc'd and NUL-ended (NULL: a null string, or out of
 * memory, or bad: then r->bad). Encodings: 0 null, 1 empty, 2 a key in the
 * java.lang.String pool, 3 UTF-8, 4 UTF-16 code units as varints, 5 Latin-1. */
static char *rd_string(struct rd *r, struct chunk *c, int keep, int depth)
{
  uint8_t enc = rd_byte(r);
  if (r->bad || enc == 0)
    return NULL;
  if (enc == 1)
    return keep ? strdup("") : NULL;
  if (enc == 2) {
    uint64_t key = rd_long(r);
    return keep && !r->bad ? string_at(c, key, depth + 1) : NULL;
  }
  uint64_t n = rd_long(r);
  if (enc < 3 || enc > 5 || n > r->end - r->pos) {
    r->bad = 1;
    return NULL;
  }
  if (enc == 3) {
    char *s = keep ? malloc(n + 1) : NULL;
    if (s) {
      memcpy(s, r->b + r->pos, n);
      s[n] = '\0';
    }
    r->pos += n;
    return s;
  }
  char *s = keep ? malloc(3 * n + 1) : NULL;
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

static const char *meta_string(struct rd *r, struct chunk *c)
{
  uint64_t i = rd_long(r);
  if (i >= c->nstrings || !c->strings[i]) {
    r->bad = 1;
    return "";
  }
  return c->strings[i];
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
 * class, a "field" element under it one of its fields. */
static void meta_element(struct rd *r, struct chunk *c, struct jclass *parent, int depth)
{
  if (depth > MAX_DEPTH) {
    r->bad = 1;
    return;
  }
  const char *name = meta_string(r, c);
  uint64_t nattr = rd_long(r);
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
  if (!r->bad && strcmp(name, "class") == 0 && cls_name && id) {
    if (fg_grow_array((void **)&c->cls, &c->cls_cap, sizeof *c->cls, c->ncls + 1) != 0) {
      r->bad = 1;
      return;
    }
    self = &c->cls[c->ncls];
    *self = (struct jclass){.id = strtoull(id, NULL, 10), .name = cls_name, .prim = prim_of(cls_name)};
    if (fg_u64_map_put(&c->cls_index, self->id + 1, c->ncls) != 0)
      r->bad = 1;
    c->ncls++;
  } else if (!r->bad && strcmp(name, "field") == 0 && parent && cls_name && type) {
    if (fg_grow_array((void **)&parent->fields, &parent->cap, sizeof *parent->fields, parent->nfields + 1) != 0) {
      r->bad = 1;
      return;
    }
    parent->fields[parent->nfields++] = (struct field){cls_name, strtoull(type, NULL, 10),
                                                       pool && strcmp(pool, "true") == 0, dim && strcmp(dim, "0") != 0};
  }
  uint64_t nchildren = rd_long(r);
  for (uint64_t i = 0; i < nchildren && !r->bad; i++) {
    /* c->cls may move as classes are added: the parent is found again by index */
    uint32_t at = self ? (uint32_t)(self - c->cls) : 0;
    meta_element(r, c, self ? &c->cls[at] : NULL, depth + 1);
    self = self ? &c->cls[at] : NULL;
  }
}

static void read_metadata(struct rd *r, struct chunk *c)
{
  rd_long(r);   /* start */
  rd_long(r);   /* duration */
  rd_long(r);   /* metadata id */
  uint64_t n = rd_long(r);
  if (n > r->end - r->pos) {
    r->bad = 1;
    return;
  }
  c->strings = calloc(n ? n : 1, sizeof *c->strings);
  if (!c->strings) {
    r->bad = 1;
    return;
  }
  c->nstrings = (uint32_t)n;
  for (uint64_t i = 0; i < n && !r->bad; i++) {
    c->strings[i] = rd_string(r, c, 1, 0);
    if (!c->strings[i] && !r->bad)
      c->strings[i] = strdup("");
  }
  meta_element(r, c, NULL, 0);
}

/* ---- values ---- */

static void skip_value(struct rd *r, struct chunk *c, const struct field *f, int depth);

static void skip_one(struct rd *r, struct chunk *c, uint64_t type, int pool, int depth)
{
  if (pool) {
    rd_long(r);
    return;
  }
  const struct jclass *k = class_of(c, type);
  if (!k || depth > MAX_DEPTH) {
    r->bad = 1;
    return;
  }
  switch (k->prim) {
  case P_LONG: rd_long(r); return;
  case P_BYTE: rd_skip(r, 1); return;
  case P_FLOAT: rd_skip(r, 4); return;
  case P_DOUBLE: rd_skip(r, 8); return;
  case P_STRING: rd_string(r, c, 0, depth); return;
  case P_OBJECT:
    for (uint32_t i = 0; i < k->nfields && !r->bad; i++)
      skip_value(r, c, &k->fields[i], depth + 1);
    return;
  }
}

static void skip_value(struct rd *r, struct chunk *c, const struct field *f, int depth)
{
  if (!f->array) {
    skip_one(r, c, f->type, f->pool, depth);
    return;
  }
  uint64_t n = rd_long(r);
  if (n > r->end - r->pos) {   /* every element takes at least a byte */
    r->bad = 1;
    return;
  }
  for (uint64_t i = 0; i < n && !r->bad; i++)
    skip_one(r, c, f->type, f->pool, depth);
}

/* What a reader wants of an object's fields: by name, a number (a pool key
 * too) or a string; an array of objects is handed element by element to each. */
struct want {
  const char *name;
  uint64_t num;
  char *str;
  int has;
  void (*each)(struct rd *r, struct chunk *c, const struct jclass *elem, void *ctx);
  void *ctx;
};

static struct want *wanted(struct want *w, int n, const char *name)
{
  for (int i = 0; i < n; i++)
    if (strcmp(w[i].name, name) == 0)
      return &w[i];
  return NULL;
}

/* Reads an object of class k at r, its wanted fields into w. */
static void read_object(struct rd *r, struct chunk *c, const struct jclass *k, struct want *w, int nw, int depth)
{
  for (uint32_t i = 0; i < k->nfields && !r->bad; i++) {
    const struct field *f = &k->fields[i];
    struct want *x = wanted(w, nw, f->name);
    const struct jclass *t = x ? class_of(c, f->type) : NULL;
    if (x && f->array && x->each && !f->pool && t && t->prim == P_OBJECT) {
      uint64_t n = rd_long(r);
      if (n > r->end - r->pos)
        r->bad = 1;
      for (uint64_t e = 0; e < n && !r->bad; e++)
        x->each(r, c, t, x->ctx);
      x->has = 1;
    } else if (x && !f->array && (f->pool || (t && t->prim == P_LONG))) {
      x->num = rd_long(r);
      x->has = 1;
    } else if (x && !f->array && t && t->prim == P_BYTE) {
      x->num = rd_byte(r);
      x->has = 1;
    } else if (x && !f->array && t && t->prim == P_STRING) {
      free(x->str);
      x->str = rd_string(r, c, 1, depth);
      x->has = 1;
    } else {
      skip_value(r, c, f, depth);
    }
  }
}

static void free_wants(struct want *w, int n)
{
  for (int i = 0; i < n; i++)
    free(w[i].str);
}

/* The offset of entry key of the pool of class type (0: none). */
static uint64_t pool_offset(struct chunk *c, uint64_t type, uint64_t key)
{
  uint32_t tindex, i;
  if (!c->pools || key == UINT64_MAX || !fg_u64_map_get(&c->cls_index, type + 1, &tindex) ||
      !fg_u64_map_get(&c->pools[tindex], key + 1, &i))
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
  struct rd r = {c->b, at, c->size, 0};
  read_object(&r, c, k, w, nw, depth + 1);
  return r.bad ? -1 : 0;
}

static char *string_at(struct chunk *c, uint64_t key, int depth)
{
  uint64_t at = depth <= MAX_DEPTH ? pool_offset(c, c->t_string, key) : 0;
  if (!at)
    return NULL;
  struct rd r = {c->b, at, c->size, 0};
  return rd_string(&r, c, 1, depth + 1);
}

/* A Symbol's text (malloc'd), or NULL. */
static char *symbol(struct chunk *c, uint64_t key)
{
  struct want w[] = {{.name = "string"}};
  if (read_entry(c, c->t_symbol, key, w, 1, 0) != 0) {
    free_wants(w, 1);
    return NULL;
  }
  return w[0].str;
}

/* A Class's binary name ("java/lang/String", "[B"), malloc'd, or NULL. */
static char *class_name(struct chunk *c, uint64_t key)
{
  struct want w[] = {{.name = "name"}};
  if (read_entry(c, c->t_class, key, w, 1, 0) != 0 || !w[0].has)
    return NULL;
  return symbol(c, w[0].num);
}

/* ---- the checkpoint's pools ---- */

static void read_checkpoint(struct rd *r, struct chunk *c)
{
  rd_long(r);   /* start */
  rd_long(r);   /* duration */
  rd_long(r);   /* delta to the previous checkpoint */
  rd_byte(r);   /* its kind */
  uint64_t npools = rd_long(r);
  for (uint64_t p = 0; p < npools && !r->bad; p++) {
    uint64_t type = rd_long(r), n = rd_long(r);
    const struct jclass *k = class_of(c, type);
    uint32_t tindex;
    if (!k || !c->pools || !fg_u64_map_get(&c->cls_index, type + 1, &tindex) || n > r->end - r->pos) {
      r->bad = 1;
      return;
    }
    struct field value = {"", type, 0, 0};
    for (uint64_t e = 0; e < n && !r->bad; e++) {
      uint64_t key = rd_long(r);
      if (key != UINT64_MAX) {   /* -1 is a key too (a deoptimization reason's none): never one fgprof looks up */
        if (fg_grow_array((void **)&c->offsets, &c->offsets_cap, sizeof *c->offsets, c->noffsets + 1) != 0 ||
            fg_u64_map_put(&c->pools[tindex], key + 1, c->noffsets) != 0) {
          r->bad = 1;
          return;
        }
        c->offsets[c->noffsets++] = r->pos;
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
  char *name = NULL, *cls = NULL, *description = NULL, *descriptor = NULL;
  struct want m[] = {{.name = "type"}, {.name = "name"}, {.name = "descriptor"}};
  if (w[0].has && read_entry(c, c->t_method, w[0].num, m, 3, 0) == 0) {
    name = m[1].has ? symbol(c, m[1].num) : NULL;
    cls = m[0].has && m[0].num ? class_name(c, m[0].num) : NULL;
    descriptor = m[2].has ? symbol(c, m[2].num) : NULL;
  }
  struct want d[] = {{.name = "description"}};
  if (w[1].has && read_entry(c, c->t_frame_type, w[1].num, d, 1, 0) == 0)   /* key 0 is the JDK's Interpreted */
    description = d[0].str, d[0].str = NULL;
  free_wants(d, 1);
  enum fg_frame_kind kind = kind_of(description);
  /* with lines, a Java method's frame at its line and bytecode index (JFR's int fields, as varints) */
  int java = cls && *cls && name && kind != FG_KIND_NATIVE && kind != FG_KIND_KERNEL && kind != FG_KIND_MARKER;
  int32_t line = c->lines && java && w[2].has ? (int32_t)w[2].num : -1;
  int32_t bci = c->lines && java && w[3].has ? (int32_t)w[3].num : -1;
  size_t len = (cls ? strlen(cls) + 1 : 0) + (name ? strlen(name) : 9) + 13;
  char *text = malloc(len);
  int64_t id = -1;
  if (text) {
    int n = snprintf(text, len, "%s%s%s", cls && *cls ? cls : "", cls && *cls ? "." : "", name ? name : "[unknown]");
    if (line >= 0)
      snprintf(text + n, len - (size_t)n, ":%d", line);
    /* a descriptor of the method's own, not a writer's stand-in: overloads apart */
    int own = descriptor && descriptor[0] == '(' && strcmp(descriptor, "()L;") != 0;
    id = fg_profile_intern_method(c->p, text, kind, bci, own ? descriptor : NULL);
  }
  free(text);
  free(name);
  free(cls);
  free(description);
  free(descriptor);
  if (id < 0 || fg_grow_array((void **)&fr->ids, &fr->cap, sizeof *fr->ids, fr->n + 1) != 0) {
    fr->failed = 1;
    return;
  }
  fr->ids[fr->n++] = (uint32_t)id;
}

/* The stack trace key's frames (index into c->stacks), read once; -1 when bad. */
static int64_t stack_of(struct chunk *c, uint64_t key)
{
  uint32_t at;
  if (fg_u64_map_get(&c->stack_ids, key + 1, &at))
    return at;
  struct frames fr = {0};
  struct want w[] = {{.name = "frames", .each = one_frame, .ctx = &fr}, {.name = "truncated"}};
  int rc = key ? read_entry(c, c->t_stack, key, w, 2, 0) : 0;
  uint32_t *ids = malloc(((size_t)fr.n + 2) * sizeof *ids);
  if (rc != 0 || fr.failed || !ids ||
      fg_grow_array((void **)&c->stacks, &c->stacks_cap, sizeof *c->stacks, c->nstacks + 1) != 0) {
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
  if (fg_u64_map_put(&c->stack_ids, key + 1, c->nstacks) != 0)
    return -1;
  return c->nstacks++;
}

/* The profile thread of thread key (0: a thread JFR does not name). */
static int64_t thread_of(struct chunk *c, uint64_t key)
{
  uint32_t at;
  if (fg_u64_map_get(&c->thread_ids, key + 1, &at))
    return at;
  struct want w[] = {{.name = "javaName"}, {.name = "osName"}, {.name = "osThreadId"}, {.name = "javaThreadId"}};
  if (key)
    read_entry(c, c->t_thread, key, w, 4, 0);
  const char *name = w[0].str && *w[0].str ? w[0].str : w[1].str ? w[1].str : "[unknown thread]";
  int64_t t = -1;
  for (uint32_t i = 0; i < c->p->nthreads && t < 0; i++)   /* the same thread in an earlier chunk */
    if (c->p->threads[i].tid == (int)w[2].num && c->p->threads[i].java_id == (int64_t)w[3].num &&
        strcmp(c->p->threads[i].name, name) == 0)
      t = i;
  if (t < 0 && (t = fg_profile_add_thread(c->p, (int)w[2].num, name)) >= 0)
    c->p->threads[t].java_id = (int64_t)w[3].num;
  free_wants(w, 4);
  if (t < 0 || fg_u64_map_put(&c->thread_ids, key + 1, (uint32_t)t) != 0)
    return -1;
  return t;
}

/* The class frame of class key: "byte[]", "java/lang/String"; "[no class]" for none. */
static int64_t class_frame(struct chunk *c, uint64_t key)
{
  uint32_t at;
  if (fg_u64_map_get(&c->class_ids, key + 1, &at))
    return at;
  char *name = key ? class_name(c, key) : NULL, frame[600];
  int64_t id;
  if (!name) {
    id = fg_profile_intern(c->p, "[no class]", FG_KIND_MARKER);
  } else {
    char sig[700];
    snprintf(sig, sizeof sig, name[0] == '[' ? "%s" : "L%s;", name);
    id = fg_profile_intern(c->p, fg_class_frame_name(sig, frame, sizeof frame) == 0 ? frame : name, FG_KIND_CLASS);
  }
  free(name);
  if (id < 0 || fg_u64_map_put(&c->class_ids, key + 1, (uint32_t)id) != 0)
    return -1;
  return id;
}

/* ---- events ---- */

static uint64_t ticks_ns(const struct chunk *c, uint64_t ticks)
{
  if (!c->ticks_per_s)
    return c->start_ns;
  long double d = (long double)(int64_t)(ticks - c->start_ticks) * 1e9L / (long double)c->ticks_per_s;
  return c->start_ns + (uint64_t)(int64_t)d;
}

/* One known event: its stack (with a class leaf for alloc and lock) counted into the profile. */
static int add_event(struct chunk *c, enum fg_stack_event e, const struct want *w)
{
  /* w: startTime, thread, stackTrace, class, weight, duration */
  int64_t s = stack_of(c, w[2].num), t = thread_of(c, w[1].num);
  if (s < 0 || t < 0)
    return -1;
  const uint32_t *ids = c->stacks[s];
  uint32_t n = ids[0];
  uint32_t *frames = malloc(((size_t)n + 1) * sizeof *frames);
  if (!frames)
    return -1;
  memcpy(frames, ids + 1, n * sizeof *frames);
  uint64_t weight = 1, events = 1, time = ticks_ns(c, w[0].num);
  struct fg_event_stats *st = e == FG_STACK_ALLOC ? &c->p->stats.alloc : &c->p->stats.lock;
  if (e != FG_STACK_CPU) {
    int64_t cls = class_frame(c, w[3].num);
    if (cls < 0) {
      free(frames);
      return -1;
    }
    frames[n++] = (uint32_t)cls;
    weight = e == FG_STACK_ALLOC ? w[4].num : ticks_ns(c, w[0].num + w[5].num) - time;
    time = e == FG_STACK_ALLOC ? time : time + weight;   /* a wait is kept at its end, as fgagent keeps it */
  }
  int64_t i = fg_profile_event_stack(c->p, e, (uint32_t)t, frames, n);
  if (i >= 0) {
    fg_profile_count(c->p, (uint32_t)i, weight, time, 0);
    if (e == FG_STACK_CPU) {
      fg_profile_account(c->p, frames, n, 1);
    } else {
      c->p->stacks[i].events += events;
      st->on = 1;
      st->taken++;
      st->stored++;
      st->weight += weight;
      st->events += events;
    }
  }
  free(frames);
  return i < 0 ? -1 : 0;
}

/* Whether an event of type is kept as lock= keeps it: a jdk.ThreadPark only
 * when its parkedClass (class key) is an owned lock's (fg/lock_kinds.h, the
 * agent's rule), a park for an event (a latch, a Condition, an idle pool) or
 * with no blocker never; any other type always. */
static bool owned_or_not_park(struct chunk *c, const char *type, uint64_t key)
{
  if (strcmp(type, "jdk.ThreadPark") != 0)
    return true;
  char *name = key ? class_name(c, key) : NULL;
  bool owned = fg_lock_owned_blocker(name);
  free(name);
  return owned;
}

/* Each event of a type it knows, in the order of the chunk. */
static int read_events(struct rd *r, struct chunk *c, uint64_t *known)
{
  static const struct { const char *type; enum fg_stack_event e; const char *thread, *cls; } kinds[] = {
    {"jdk.ExecutionSample", FG_STACK_CPU, "sampledThread", NULL},
    {"jdk.ObjectAllocationSample", FG_STACK_ALLOC, "eventThread", "objectClass"},
    {"jdk.JavaMonitorEnter", FG_STACK_LOCK, "eventThread", "monitorClass"},
    {"jdk.ThreadPark", FG_STACK_LOCK, "eventThread", "parkedClass"},
  };
  uint64_t ids[4] = {UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX};
  for (uint32_t i = 0; i < c->ncls; i++)
    for (int k = 0; k < 4; k++)
      if (strcmp(c->cls[i].name, kinds[k].type) == 0)
        ids[k] = c->cls[i].id;
  while (r->pos < r->end && !r->bad) {
    size_t at = r->pos;
    uint64_t size = rd_long(r), type = rd_long(r);
    if (r->bad || size < 2 || size > r->end - at) {
      r->bad = 1;
      return -1;
    }
    int k = 0;
    while (k < 4 && ids[k] != type)
      k++;
    if (k < 4) {
      struct rd body = {r->b, r->pos, at + size, 0};
      struct want w[] = {{.name = "startTime"}, {.name = kinds[k].thread}, {.name = "stackTrace"},
                         {.name = kinds[k].cls ? kinds[k].cls : "-"}, {.name = "weight"}, {.name = "duration"}};
      read_object(&body, c, class_of(c, type), w, 6, 0);
      int failed = body.bad || (owned_or_not_park(c, kinds[k].type, w[3].num) && add_event(c, kinds[k].e, w) != 0);
      free_wants(w, 6);
      if (failed) {
        r->pos = at;
        r->bad = 1;
        return -1;
      }
      ++*known;
    }
    r->pos = at + size;
  }
  return r->bad ? -1 : 0;
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
  for (uint32_t i = 0; i < c->nstrings; i++)
    free(c->strings[i]);
  free(c->strings);
  for (uint32_t i = 0; i < c->ncls; i++)
    free(c->cls[i].fields);
  free(c->cls);
  for (uint32_t i = 0; i < c->nstacks; i++)
    free(c->stacks[i]);
  free(c->stacks);
  free(c->offsets);
  for (uint32_t i = 0; c->pools && i < c->ncls; i++)
    fg_u64_map_free(&c->pools[i]);
  free(c->pools);
  fg_u64_map_free(&c->cls_index);
  fg_u64_map_free(&c->stack_ids);
  fg_u64_map_free(&c->thread_ids);
  fg_u64_map_free(&c->class_ids);
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
  return -1;
}

int fg_is_jfr(const uint8_t *data, size_t len)
{
  return len >= 4 && memcmp(data, "FLR\0", 4) == 0;
}

/* One chunk at data (len bytes from it to the file's end): its events into
 * p; its size in *size. 0, or -1 with the message in err. */
static int read_chunk(const uint8_t *data, size_t len, size_t base, const char *source, bool lines,
                      struct fg_profile *p, uint64_t *known, uint64_t *size, char *err, size_t errlen)
{
  if (len < HEADER_BYTES || !fg_is_jfr(data, len))
    return fail(err, errlen, "%s: byte %zu: not a JFR chunk (no \"FLR\" header of 68 bytes); accepted: a JDK Flight "
                "Recorder file", source, base);
  uint64_t major = be(data + 4, 2), chunk = be(data + 8, 8), meta = be(data + 24, 8);
  if (major != 2 && major != 1)
    return fail(err, errlen, "%s: JFR format %llu.%llu; accepted: 1.x and 2.x (JDK 11 and later)", source,
                (unsigned long long)major, (unsigned long long)be(data + 6, 2));
  if (chunk < HEADER_BYTES || chunk > len || meta < HEADER_BYTES || meta >= chunk)
    return fail(err, errlen, "%s: byte %zu: the chunk's size or metadata offset points past its end (a recording "
                "cut short, or one still being written?)", source, base);
  if (!(data[67] & 1))
    return fail(err, errlen, "%s: byte %zu: integers are not compressed; accepted: recordings with compressed "
                "integers, as every JDK writes them", source, base);
  *size = chunk;
  struct chunk c = {.b = data, .size = chunk, .p = p, .lines = lines, .start_ns = be(data + 32, 8),
                    .start_ticks = be(data + 48, 8), .ticks_per_s = be(data + 56, 8)};
  fg_u64_map_init(&c.cls_index);
  fg_u64_map_init(&c.stack_ids);
  fg_u64_map_init(&c.thread_ids);
  fg_u64_map_init(&c.class_ids);
  if (!p->stats.start_epoch_ns || c.start_ns < p->stats.start_epoch_ns)
    p->stats.start_epoch_ns = p->stats.start_ns = c.start_ns;
  uint64_t end_ns = c.start_ns + be(data + 40, 8);
  if (end_ns > p->stats.start_ns + p->stats.wall_ns)
    p->stats.wall_ns = end_ns - p->stats.start_ns;

  struct rd r = {data, (size_t)meta, chunk, 0};
  uint64_t msize = rd_long(&r), mtype = rd_long(&r);
  int rc = 0;
  if (r.bad || mtype != 0 || msize > chunk - meta) {
    rc = fail(err, errlen, "%s: byte %zu: no metadata event where the chunk header says", source, base + meta);
  } else {
    r.end = meta + msize;
    read_metadata(&r, &c);
    if (r.bad)
      rc = fail(err, errlen, "%s: byte %zu: the metadata event is corrupt", source, base + r.pos);
    else if (!(c.pools = calloc(c.ncls ? c.ncls : 1, sizeof *c.pools)))
      rc = fail(err, errlen, "%s: out of memory", source);
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
  /* the pools, wherever their checkpoint events are */
  for (size_t at = HEADER_BYTES; rc == 0 && at < chunk;) {
    struct rd e = {data, at, chunk, 0};
    uint64_t esize = rd_long(&e), type = rd_long(&e);
    if (e.bad || esize < 2 || esize > chunk - at) {
      rc = fail(err, errlen, "%s: byte %zu: an event's size runs past its chunk", source, base + at);
      break;
    }
    if (type == 1) {
      e.end = at + esize;
      read_checkpoint(&e, &c);
      if (e.bad)
        rc = fail(err, errlen, "%s: byte %zu: a constant pool is corrupt", source, base + e.pos);
    }
    at += esize;
  }
  if (rc == 0) {
    struct rd ev = {data, HEADER_BYTES, chunk, 0};
    if (read_events(&ev, &c, known) != 0)
      rc = fail(err, errlen, "%s: byte %zu: an event is corrupt (or names a pool entry the recording lacks)", source,
                base + ev.pos);
  }
  chunk_free(&c);
  return rc;
}

int fg_parse_jfr(const uint8_t *data, size_t len, const char *source, bool lines, struct fg_profile *p, char *err,
                 size_t errlen)
{
  uint64_t known = 0;
  snprintf(p->stats.event, sizeof p->stats.event, "jfr");
  snprintf(p->stats.event_detail, sizeof p->stats.event_detail, "read from a JFR recording: %s", source);
  for (size_t at = 0; at < len;) {
    uint64_t size = 0;
    if (read_chunk(data + at, len - at, at, source, lines, p, &known, &size, err, errlen) != 0)
      return -1;
    at += size;
  }
  if (known == 0)
    return fail(err, errlen, "%s: no jdk.ExecutionSample, jdk.ObjectAllocationSample, jdk.JavaMonitorEnter or "
                "jdk.ThreadPark event; accepted: a recording with execution samples (the JDK's 'profile' or "
                "'default' settings), allocation samples or lock events", source);
  return 0;
}
