/* HotSpot's code heaps read in place of CompiledMethodLoad; see code_heap.h. */
#include "hotspot/code_heap.h"

#include <jvmticmlr.h>
#include <stdlib.h>
#include <string.h>

#include "hotspot/vm_structs.h"
#include "native/safe_read.h"

#define MAX_HEAPS 8
#define MAX_REGION (64u << 20)   /* PcDescs, scopes or metadata larger than this are not a method's */
#define MAX_HOPS 100000          /* segment map hops back to a block's start */
#define MAX_DEPTH 1024           /* inlined frames at one pc */
#define MAX_HEADER 1024          /* sizeof(nmethod) we read, on a signal handler's stack too */

/* HotSpot's PcDesc (exported with these four int fields, 16 bytes). */
struct pc_desc {
  int32_t pc_offset, scope_offset, obj_offset, flags;
};

static long field(const char *type, const char *name, const char **missing)
{
  long off = fg_vm_field_offset(type, name);
  if (off < 0 && !*missing)
    *missing = name;
  return off;
}

int fg_code_heap_init(struct fg_code_heap *h, int unsigned5_base)
{
  memset(h, 0, sizeof *h);
  const char *missing = NULL;
  h->unsigned5_base = unsigned5_base;
  h->heaps = fg_vm_static_field("CodeCache", "_heaps");
  if (!h->heaps)
    missing = "CodeCache::_heaps";
  h->array_len = field("GrowableArrayBase", "_len", &missing);
  h->array_data = field("GrowableArray<int>", "_data", &missing);
  h->heap_memory = field("CodeHeap", "_memory", &missing);
  h->heap_segmap = field("CodeHeap", "_segmap", &missing);
  h->heap_log2 = field("CodeHeap", "_log2_segment_size", &missing);
  h->vs_low = field("VirtualSpace", "_low", &missing);
  h->vs_high = field("VirtualSpace", "_high", &missing);
  h->block_bytes = fg_vm_type_size("HeapBlock");
  long header = field("HeapBlock", "_header", &missing), used = field("HeapBlock::Header", "_used", &missing);
  h->block_used = header + used;
  h->block_length = header + field("HeapBlock::Header", "_length", &missing);
  h->blob_name = field("CodeBlob", "_name", &missing);
  h->blob_kind = fg_vm_field_offset("CodeBlob", "_kind");
  h->blob_frame_size = field("CodeBlob", "_frame_size", &missing);
  if (h->blob_kind >= 0 && !fg_vm_int_constant("CodeBlobKind::Nmethod", &h->kind_nmethod) && !missing)
    missing = "CodeBlobKind::Nmethod";
  h->code_begin = fg_vm_field_offset("CodeBlob", "_code_begin");
  h->code_end = fg_vm_field_offset("CodeBlob", "_code_end");
  if (h->code_begin < 0 || h->code_end < 0) {
    h->code_begin = field("CodeBlob", "_code_offset", &missing);
    h->code_end = field("CodeBlob", "_data_offset", &missing);
    h->code_is_offset = 1;
  }
  h->nm_method = fg_vm_field_offset("nmethod", "_method");
  if (h->nm_method < 0)
    h->nm_method = field("CompiledMethod", "_method", &missing);
  h->nm_compile_id = field("nmethod", "_compile_id", &missing);
  h->nm_state = field("nmethod", "_state", &missing);
  h->pcs_begin = field("nmethod", "_scopes_pcs_offset", &missing);
  h->immutable = fg_vm_field_offset("nmethod", "_immutable_data");
  if (h->immutable >= 0) {   /* JDK 23+: [pcs, scopes) in the immutable block */
    h->immutable_size = field("nmethod", "_immutable_data_size", &missing);
    h->scopes_begin = h->pcs_end = field("nmethod", "_scopes_data_offset", &missing);
    h->metadata = -1;
    h->mutable_data = field("CodeBlob", "_mutable_data", &missing);
    h->relocation_size = field("CodeBlob", "_relocation_size", &missing);
    h->mutable_size = field("CodeBlob", "_mutable_data_size", &missing);
  } else {                   /* JDK 17: [metadata, scopes, pcs, dependencies) in the nmethod */
    h->pcs_end = field("nmethod", "_dependencies_offset", &missing);
    h->scopes_begin = field("CompiledMethod", "_scopes_data_begin", &missing);
    h->metadata = field("nmethod", "_metadata_offset", &missing);
  }
  h->header_bytes = fg_vm_type_size("nmethod");
  h->method_const = field("Method", "_constMethod", &missing);
  h->const_constants = field("ConstMethod", "_constants", &missing);
  h->constants_holder = field("ConstantPool", "_pool_holder", &missing);
  h->const_idnum = field("ConstMethod", "_method_idnum", &missing);
  h->holder_ids = field("InstanceKlass", "_methods_jmethod_ids", &missing);
  if (!missing && (h->block_bytes <= 0 || h->header_bytes <= 0 || h->header_bytes > MAX_HEADER))
    missing = "sizeof(HeapBlock) or sizeof(nmethod)";
  if (missing) {
    snprintf(h->why, sizeof h->why, "the JVM exports no %s", missing);
    return -1;
  }
  h->known = 1;
  return 0;
}

/* How a lookup reads: fg_safe_read, or plain loads where only the code
 * heap's own memory (committed for good: CodeHeap::shrink_by is
 * Unimplemented()) and its C-heap bookkeeping (made once) are read. */
typedef int (*reader)(uintptr_t at, void *out, size_t n);

static int plain_read(uintptr_t at, void *out, size_t n)
{
  memcpy(out, (const void *)at, n);
  return 1;
}

static int read_ptr(uintptr_t at, uintptr_t *v)
{
  return fg_safe_read(at, v, sizeof *v);
}

static int32_t i32_at(const uint8_t *header, long off)
{
  int32_t v;
  memcpy(&v, header + off, sizeof v);
  return v;
}

static uintptr_t ptr_at(const uint8_t *header, long off)
{
  uintptr_t v;
  memcpy(&v, header + off, sizeof v);
  return v;
}

/* CodeCache::_heaps into heaps: how many (at most MAX_HEAPS), 0 when unreadable. */
static int32_t read_heaps(const struct fg_code_heap *h, reader rd, uintptr_t heaps[MAX_HEAPS])
{
  uintptr_t array, data;
  int32_t n;
  if (!rd(h->heaps, &array, sizeof array) || !array || !rd(array + (uintptr_t)h->array_len, &n, sizeof n) ||
      n <= 0 || n > MAX_HEAPS || !rd(array + (uintptr_t)h->array_data, &data, sizeof data) ||
      !rd(data, heaps, (size_t)n * sizeof heaps[0]))
    return 0;
  return n;
}

/* A heap's committed memory [*low, *high) and its segments' shift: 1, or 0. */
static int heap_span(const struct fg_code_heap *h, uintptr_t heap, reader rd, uintptr_t *low, uintptr_t *high,
                     int32_t *log2)
{
  return rd(heap + (uintptr_t)(h->heap_memory + h->vs_low), low, sizeof *low) &&
         rd(heap + (uintptr_t)(h->heap_memory + h->vs_high), high, sizeof *high) &&
         rd(heap + (uintptr_t)h->heap_log2, log2, sizeof *log2) && *log2 >= 4 && *log2 <= 16;
}

/* The block holding pc in one heap: its blob's address, or 0. */
static uintptr_t blob_in_heap(const struct fg_code_heap *h, uintptr_t heap, uintptr_t pc, reader rd)
{
  uintptr_t low, high, segmap, segmap_high;
  int32_t log2;
  if (!heap_span(h, heap, rd, &low, &high, &log2) || pc < low || pc >= high ||
      !rd(heap + (uintptr_t)(h->heap_segmap + h->vs_low), &segmap, sizeof segmap) ||
      !rd(heap + (uintptr_t)(h->heap_segmap + h->vs_high), &segmap_high, sizeof segmap_high))
    return 0;
  uintptr_t idx = (pc - low) >> log2;
  if (idx >= segmap_high - segmap)
    return 0;
  /* each segment's byte: 0xff free, else how many segments to go back
   * towards its block's first (0 there) */
  uint8_t hop;
  for (int n = 0;; n++) {
    if (n > MAX_HOPS || !rd(segmap + idx, &hop, 1) || hop == 0xff)
      return 0;
    if (hop == 0)
      break;
    if (hop > idx)
      return 0;
    idx -= hop;
  }
  uintptr_t block = low + (idx << log2);
  uint8_t used;
  if (!rd(block + (uintptr_t)h->block_used, &used, 1) || !used)
    return 0;
  return block + (uintptr_t)h->block_bytes;
}

/* Whether header (read at nm) is an installed nmethod's; learn: JDK 17's
 * names may be read (else only those seen before are taken). */
static int is_nmethod(struct fg_code_heap *h, const uint8_t *header, int learn)
{
  if (h->blob_kind >= 0) {
    if (header[h->blob_kind] != (uint8_t)h->kind_nmethod)
      return 0;
  } else {
    /* JDK 17 names every nmethod "nmethod" and native wrappers "native
     * nmethod" (CompiledMethod's name), each one string in libjvm */
    uintptr_t name = ptr_at(header, h->blob_name);
    if (name != h->name_seen[0] && name != h->name_seen[1]) {
      if (!learn)
        return 0;
      static const char *const names[2] = {"nmethod", "native nmethod"};
      char text[16];
      int which = -1;
      for (int i = 0; i < 2 && which < 0; i++)
        if (name && fg_safe_read(name, text, strlen(names[i]) + 1) && memcmp(text, names[i], strlen(names[i]) + 1) == 0)
          which = i;
      if (which < 0)
        return 0;
      h->name_seen[which] = name;
    }
  }
  return (int8_t)header[h->nm_state] >= 0;   /* not_installed is -1 */
}

static void code_bounds(const struct fg_code_heap *h, uintptr_t nm, const uint8_t *header, uintptr_t *begin,
                        uintptr_t *end)
{
  if (h->code_is_offset) {
    *begin = nm + (uintptr_t)(intptr_t)i32_at(header, h->code_begin);
    *end = nm + (uintptr_t)(intptr_t)i32_at(header, h->code_end);
  } else {
    *begin = ptr_at(header, h->code_begin);
    *end = ptr_at(header, h->code_end);
  }
}

static int find(struct fg_code_heap *h, uintptr_t pc, struct fg_nmethod *out, reader rd, int learn)
{
  uintptr_t heaps[MAX_HEAPS];
  int32_t n = h->known ? read_heaps(h, rd, heaps) : 0;
  uint8_t header[MAX_HEADER];
  for (int32_t i = 0; i < n; i++) {
    uintptr_t nm = blob_in_heap(h, heaps[i], pc, rd);
    if (!nm)
      continue;
    if (!rd(nm, header, (size_t)h->header_bytes) || !is_nmethod(h, header, learn))
      return -1;
    code_bounds(h, nm, header, &out->code_begin, &out->code_end);
    if (pc < out->code_begin || pc >= out->code_end)
      return -1;
    out->nm = nm;
    out->method = ptr_at(header, h->nm_method);
    out->compile_id = i32_at(header, h->nm_compile_id);
    int32_t words = i32_at(header, h->blob_frame_size);
    out->frame_bytes = words > 0 && words < (1 << 20) ? (uint32_t)words * 8 : 0;
    return out->method ? 0 : -1;
  }
  return -1;
}

int fg_code_heap_find(struct fg_code_heap *h, uintptr_t pc, struct fg_nmethod *out)
{
  return find(h, pc, out, fg_safe_read, 1);
}

void fg_code_heap_learn_names(struct fg_code_heap *h)
{
  uintptr_t heaps[MAX_HEAPS];
  int32_t n = h->known && h->blob_kind < 0 ? read_heaps(h, fg_safe_read, heaps) : 0;
  uint8_t header[MAX_HEADER];
  for (int32_t i = 0; i < n && !(h->name_seen[0] && h->name_seen[1]); i++) {
    uintptr_t low, high;
    int32_t log2;
    if (!heap_span(h, heaps[i], fg_safe_read, &low, &high, &log2))
      continue;
    /* block after block: each HeapBlock's length in segments (JDK 17's a size_t) */
    for (uintptr_t block = low; block < high && !(h->name_seen[0] && h->name_seen[1]);) {
      uint64_t segments = 0;
      uint8_t used;
      if (!fg_safe_read(block + (uintptr_t)h->block_length, &segments, h->block_bytes >= 16 ? 8 : 4) || !segments ||
          segments > (high - block) >> log2 || !fg_safe_read(block + (uintptr_t)h->block_used, &used, 1))
        break;
      if (used && fg_safe_read(block + (uintptr_t)h->block_bytes, header, (size_t)h->header_bytes))
        is_nmethod(h, header, 1);
      block += (uintptr_t)segments << log2;
    }
  }
}

int fg_code_heap_find_live(const struct fg_code_heap *h, uintptr_t pc, struct fg_nmethod *out)
{
  /* find learns JDK 17's names only when told to: h is not written */
  return find((struct fg_code_heap *)(uintptr_t)h, pc, out, plain_read, 0);
}

int fg_code_heap_same(const struct fg_code_heap *h, const struct fg_nmethod *n)
{
  uintptr_t method;
  int32_t id;
  return fg_safe_read(n->nm + (uintptr_t)h->nm_method, &method, sizeof method) && method == n->method &&
         fg_safe_read(n->nm + (uintptr_t)h->nm_compile_id, &id, sizeof id) && id == n->compile_id;
}

int64_t fg_unsigned5_read(const uint8_t **p, const uint8_t *end, int base)
{
  /* HotSpot's UNSIGNED5 (compressedStream.hpp, unsigned5.hpp): bytes of
   * 192 and above carry 6 more bits in the next one, at most five bytes */
  const uint8_t *q = *p;
  if (q >= end || *q < base)
    return -1;
  uint32_t c = *q++, sum = c - (uint32_t)base;
  for (int shift = 6; c >= 192 && shift <= 24; shift += 6) {
    if (q >= end || *q < base)
      return -1;
    c = *q++;
    sum += (c - (uint32_t)base) << shift;
  }
  *p = q;
  return sum;
}

/* A copy of [at, at + len), or NULL. */
static uint8_t *copy_region(uintptr_t at, uintptr_t len)
{
  if (!at || len > MAX_REGION)
    return NULL;
  uint8_t *buf = malloc(len ? len : 1);
  if (buf && !fg_safe_read(at, buf, len)) {
    free(buf);
    return NULL;
  }
  return buf;
}

/* Where n's PcDescs, scopes and metadata are (header read at n->nm). */
struct regions {
  uintptr_t pcs, pcs_end, scopes, scopes_end, metadata, metadata_end;
};

static int find_regions(const struct fg_code_heap *h, const struct fg_nmethod *n, const uint8_t *header,
                        struct regions *r)
{
  if (h->immutable >= 0) {
    uintptr_t base = ptr_at(header, h->immutable), mut = ptr_at(header, h->mutable_data);
    int32_t size = i32_at(header, h->immutable_size);
    r->pcs = base + (uintptr_t)(intptr_t)i32_at(header, h->pcs_begin);
    r->pcs_end = r->scopes = base + (uintptr_t)(intptr_t)i32_at(header, h->pcs_end);
    r->scopes_end = base + (uintptr_t)(intptr_t)size;
    r->metadata = mut + (uintptr_t)(intptr_t)i32_at(header, h->relocation_size);
    r->metadata_end = mut + (uintptr_t)(intptr_t)i32_at(header, h->mutable_size);
    if (!base || !mut || size <= 0)
      return -1;
  } else {
    r->pcs = n->nm + (uintptr_t)(intptr_t)i32_at(header, h->pcs_begin);
    r->pcs_end = n->nm + (uintptr_t)(intptr_t)i32_at(header, h->pcs_end);
    r->scopes = ptr_at(header, h->scopes_begin);
    r->scopes_end = r->pcs;
    r->metadata = n->nm + (uintptr_t)(intptr_t)i32_at(header, h->metadata);
    r->metadata_end = r->scopes;
  }
  return r->pcs <= r->pcs_end && r->scopes <= r->scopes_end && r->metadata <= r->metadata_end ? 0 : -1;
}

/* Decoded copies of one nmethod's records. */
struct decoded {
  const struct fg_code_heap *h;
  const uint8_t *scopes;
  size_t scopes_len;
  const uintptr_t *metadata;
  size_t nmetadata;
  fg_method_id_fn id_of;
  void *ctx;
  int unnamed;
};

/* The frames of the scope at offset, innermost first, into methods/bcis
 * (room for MAX_DEPTH); how many, or -1. */
static int decode_scope(struct decoded *d, int64_t offset, jmethodID *methods, jint *bcis)
{
  int depth = 0;
  while (offset > 0) {   /* 0: DebugInformationRecorder::serialized_null, the outermost's sender */
    if ((size_t)offset >= d->scopes_len || depth >= MAX_DEPTH)
      return -1;
    const uint8_t *p = d->scopes + offset, *end = d->scopes + d->scopes_len;
    int64_t sender = fg_unsigned5_read(&p, end, d->h->unsigned5_base);
    int64_t index = fg_unsigned5_read(&p, end, d->h->unsigned5_base);
    int64_t bci = fg_unsigned5_read(&p, end, d->h->unsigned5_base);
    /* a method's metadata index counts from 1 (0 is NULL); the bci is
     * written less InvocationEntryBci (-1) */
    if (sender < 0 || index <= 0 || bci < 0 || (size_t)index > d->nmetadata || sender >= offset)
      return -1;
    jmethodID id = d->id_of(d->ctx, d->metadata[index - 1]);
    if (!id && sender == 0) {   /* the method itself: the entry would name nothing */
      d->unnamed = 1;
      return -1;
    }
    /* an inlined method the JVM made no jmethodID for (a method handle's
     * intrinsic: none until asked): NULL, as AsyncGetCallTrace gives it */
    methods[depth] = id;
    bcis[depth] = (jint)(bci - 1);
    depth++;
    offset = sender;
  }
  return depth;
}

/* The inline record of the pcs in descs, in one block: header, pcinfo,
 * then each pc's methods and bcis. */
static void *build_record(struct decoded *d, const struct pc_desc *descs, size_t ndescs, uintptr_t code_begin,
                          uintptr_t code_len)
{
  jmethodID methods[MAX_DEPTH];
  jint bcis[MAX_DEPTH];
  size_t npcs = 0, nframes = 0;
  for (size_t i = 0; i < ndescs; i++) {   /* first pass: the sizes */
    if (descs[i].scope_offset == 0 || descs[i].pc_offset < 0 || (uintptr_t)descs[i].pc_offset > code_len)
      continue;
    int depth = decode_scope(d, descs[i].scope_offset, methods, bcis);
    if (depth < 0)
      return NULL;
    npcs++;
    nframes += (size_t)depth;
  }
  if (npcs == 0)
    return NULL;
  jvmtiCompiledMethodLoadInlineRecord *r =
      malloc(sizeof *r + npcs * sizeof(PCStackInfo) + nframes * (sizeof(jmethodID) + sizeof(jint)));
  if (!r)
    return NULL;
  r->header = (jvmtiCompiledMethodLoadRecordHeader){JVMTI_CMLR_INLINE_INFO, JVMTI_CMLR_MAJOR_VERSION,
                                                    JVMTI_CMLR_MINOR_VERSION, NULL};
  r->numpcs = (jint)npcs;
  r->pcinfo = (PCStackInfo *)(r + 1);
  jmethodID *m = (jmethodID *)(r->pcinfo + npcs);
  jint *b = (jint *)(m + nframes);
  size_t k = 0;
  for (size_t i = 0; i < ndescs; i++) {
    if (descs[i].scope_offset == 0 || descs[i].pc_offset < 0 || (uintptr_t)descs[i].pc_offset > code_len)
      continue;
    int depth = decode_scope(d, descs[i].scope_offset, m, b);
    r->pcinfo[k++] = (PCStackInfo){.pc = (void *)(code_begin + (uintptr_t)descs[i].pc_offset), .numstackframes = depth, .methods = m, .bcis = b};
    m += depth;
    b += depth;
  }
  return r;
}

void *fg_code_heap_inline_record(const struct fg_code_heap *h, const struct fg_nmethod *n,
                                 fg_method_id_fn id_of, void *ctx, int *unnamed)
{
  uint8_t header[MAX_HEADER];
  struct regions r;
  *unnamed = 0;
  if (!h->known || !fg_safe_read(n->nm, header, (size_t)h->header_bytes) ||
      ptr_at(header, h->nm_method) != n->method || i32_at(header, h->nm_compile_id) != n->compile_id ||
      find_regions(h, n, header, &r) != 0)
    return NULL;
  uint8_t *pcs = copy_region(r.pcs, r.pcs_end - r.pcs);
  uint8_t *scopes = copy_region(r.scopes, r.scopes_end - r.scopes);
  uint8_t *metadata = copy_region(r.metadata, r.metadata_end - r.metadata);
  void *record = NULL;
  if (pcs && scopes && metadata && fg_code_heap_same(h, n)) {   /* read whole, and still this method's */
    struct decoded d = {h, scopes, r.scopes_end - r.scopes, (const uintptr_t *)(void *)metadata,
                        (r.metadata_end - r.metadata) / sizeof(uintptr_t), id_of, ctx, 0};
    record = build_record(&d, (const struct pc_desc *)(void *)pcs, (r.pcs_end - r.pcs) / sizeof(struct pc_desc),
                          n->code_begin, n->code_end - n->code_begin);
    *unnamed = d.unnamed;
  }
  free(pcs);
  free(scopes);
  free(metadata);
  return record;
}

jmethodID fg_code_heap_method_id(const struct fg_code_heap *h, uintptr_t method)
{
  uintptr_t cm, cp, klass, ids, len, id, back;
  uint16_t idnum;
  if (!h->known || !read_ptr(method + (uintptr_t)h->method_const, &cm) || !cm ||
      !read_ptr(cm + (uintptr_t)h->const_constants, &cp) || !cp ||
      !fg_safe_read(cm + (uintptr_t)h->const_idnum, &idnum, sizeof idnum) ||
      !read_ptr(cp + (uintptr_t)h->constants_holder, &klass) || !klass ||
      !read_ptr(klass + (uintptr_t)h->holder_ids, &ids) || !ids)
    return NULL;
  /* [0] holds the array's length, the ids follow by idnum (InstanceKlass::get_jmethod_id) */
  if (!read_ptr(ids, &len) || idnum >= len || !read_ptr(ids + ((uintptr_t)idnum + 1) * sizeof(uintptr_t), &id) ||
      !id || !read_ptr(id, &back) || back != method)
    return NULL;
  return (jmethodID)id;
}
