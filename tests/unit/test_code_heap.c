/* Compiled methods read from a code heap laid out as HotSpot lays it out
 * (a fake one here, its offsets chosen by the test as gHotSpotVMStructs
 * would give them): the segment map's hops to a block, the nmethod's
 * header, its PcDescs and UNSIGNED5 scopes turned into JVMTI's inline
 * record, a Method*'s jmethodID from its class, and the code map's wants,
 * sweep and frame sizes that drive the reading. */
#include "unit.h"

#include <jni.h>
#include <jvmticmlr.h>
#include <stdlib.h>
#include <string.h>

#include "hotspot/code_heap.h"
#include "hotspot/code_map.h"
#include "hotspot/vm_structs.h"

/* code_heap.c's init reads the VM's tables; there is no VM here. */
uintptr_t fg_vm_static_field(const char *type, const char *field) { (void)type; (void)field; return 0; }
long fg_vm_field_offset(const char *type, const char *field) { (void)type; (void)field; return -1; }
long fg_vm_type_size(const char *type) { (void)type; return -1; }
int fg_vm_int_constant(const char *name, int32_t *value) { (void)name; (void)value; return 0; }

#define SEG_SHIFT 6
#define SEGS 64
#define BLOCK_FIRST 2      /* the nmethod's block: segments 2..21 */
#define BLOCK_SEGS 20
#define CODE_AT 256        /* code [nm + 256, nm + 1024) */
#define CODE_END 1024

struct fake_nm {           /* a JDK 25 nmethod's fields, where this test wants them */
  uint8_t kind;
  int8_t state;
  int32_t compile_id;
  uintptr_t method;
  int32_t code_offset, data_offset;
  uintptr_t immutable;
  int32_t immutable_size, pcs_offset, scopes_offset;
  uintptr_t mutable_data;
  int32_t relocation_size, mutable_size;
  int32_t frame_size;
  uintptr_t name;          /* JDK 17's way to tell an nmethod */
};

struct fake_heap {         /* CodeHeap: _memory and _segmap as VirtualSpace (_low, _high), the shift */
  uintptr_t memory_low, memory_high, segmap_low, segmap_high;
  int32_t log2;
};

struct fake_array {        /* GrowableArray<CodeHeap*> */
  int32_t len, capacity;
  uintptr_t data;
};

static _Alignas(64) uint8_t memory[SEGS << SEG_SHIFT];
static uint8_t segmap[SEGS];
static struct fake_heap heap;
static uintptr_t heap_list[1];
static struct fake_array array;
static uintptr_t heaps_var;
static uint8_t immutable[256];
static uintptr_t mutable_block[4];   /* 8 bytes of relocations, then two Method*s */
static uintptr_t method_a = 0x1000a0, method_b = 0x1000b0;

static struct fake_nm *nm(void)
{
  return (struct fake_nm *)(void *)(memory + (BLOCK_FIRST << SEG_SHIFT) + 16);
}

static size_t put(uint8_t *at, uint32_t v)   /* UNSIGNED5 with JDK 20's base of 1 */
{
  if (v < 192) {
    at[0] = (uint8_t)(v + 1);
    return 1;
  }
  uint32_t b0 = 192 + ((v - 192) & 63);   /* one continuation byte is enough here */
  at[0] = (uint8_t)(b0 + 1);
  at[1] = (uint8_t)(((v - b0) >> 6) + 1);
  return 2;
}

static void set_layout(struct fg_code_heap *h)
{
  memset(h, 0, sizeof *h);
  h->known = 1;
  h->unsigned5_base = 1;
  h->heaps = (uintptr_t)&heaps_var;
  h->array_len = offsetof(struct fake_array, len);
  h->array_data = offsetof(struct fake_array, data);
  h->heap_memory = 0;
  h->heap_segmap = offsetof(struct fake_heap, segmap_low);
  h->heap_log2 = offsetof(struct fake_heap, log2);
  h->vs_low = 0;
  h->vs_high = sizeof(uintptr_t);
  h->block_bytes = 16;
  h->block_used = 8;
  h->blob_kind = offsetof(struct fake_nm, kind);
  h->blob_frame_size = offsetof(struct fake_nm, frame_size);
  h->kind_nmethod = 1;
  h->code_begin = offsetof(struct fake_nm, code_offset);
  h->code_end = offsetof(struct fake_nm, data_offset);
  h->code_is_offset = 1;
  h->nm_method = offsetof(struct fake_nm, method);
  h->nm_compile_id = offsetof(struct fake_nm, compile_id);
  h->nm_state = offsetof(struct fake_nm, state);
  h->pcs_begin = offsetof(struct fake_nm, pcs_offset);
  h->pcs_end = h->scopes_begin = offsetof(struct fake_nm, scopes_offset);
  h->immutable = offsetof(struct fake_nm, immutable);
  h->immutable_size = offsetof(struct fake_nm, immutable_size);
  h->metadata = -1;
  h->mutable_data = offsetof(struct fake_nm, mutable_data);
  h->relocation_size = offsetof(struct fake_nm, relocation_size);
  h->mutable_size = offsetof(struct fake_nm, mutable_size);
  h->header_bytes = sizeof(struct fake_nm);
}

/* Three PcDescs: pc 10 in B inlined into A, pc 20 with no scope, pc 30 in
 * A alone at bci 300 (two bytes). */
static void build(void)
{
  memset(memory, 0, sizeof memory);
  memset(segmap, 0xff, sizeof segmap);   /* free */
  for (int i = 0; i < BLOCK_SEGS; i++)
    segmap[BLOCK_FIRST + i] = (uint8_t)i;   /* hops back to the block's first segment */
  memory[(BLOCK_FIRST << SEG_SHIFT) + 8] = 1;   /* HeapBlock::_used */
  heap = (struct fake_heap){(uintptr_t)memory, (uintptr_t)memory + sizeof memory, (uintptr_t)segmap,
                            (uintptr_t)segmap + sizeof segmap, SEG_SHIFT};
  heap_list[0] = (uintptr_t)&heap;
  array = (struct fake_array){1, 1, (uintptr_t)heap_list};
  heaps_var = (uintptr_t)&array;

  memset(immutable, 0, sizeof immutable);
  int32_t pcs[3][4] = {{10, 0, 0, 0}, {20, 0, 0, 0}, {30, 0, 0, 0}};
  uint8_t *scopes = immutable + sizeof pcs;
  size_t at = 1;   /* offset 0 is serialized_null */
  uint32_t outer = (uint32_t)at;
  at += put(scopes + at, 0);          /* sender: none */
  at += put(scopes + at, 1);          /* metadata index 1: A */
  at += put(scopes + at, 5 + 1);      /* bci 5, written less InvocationEntryBci */
  uint32_t inner = (uint32_t)at;
  at += put(scopes + at, outer);
  at += put(scopes + at, 2);          /* B */
  at += put(scopes + at, 7 + 1);
  uint32_t alone = (uint32_t)at;
  at += put(scopes + at, 0);
  at += put(scopes + at, 1);
  at += put(scopes + at, 300 + 1);
  pcs[0][1] = (int32_t)inner;
  pcs[2][1] = (int32_t)alone;
  memcpy(immutable, pcs, sizeof pcs);

  mutable_block[0] = 0;
  mutable_block[1] = method_a;
  mutable_block[2] = method_b;
  struct fake_nm *n = nm();
  *n = (struct fake_nm){1, 0, 42, method_a, CODE_AT, CODE_END, (uintptr_t)immutable,
                        (int32_t)(sizeof pcs + at), 0, (int32_t)sizeof pcs, (uintptr_t)mutable_block, 8, 24, 6, 0};
}

static uintptr_t code_begin(void)
{
  return (uintptr_t)nm() + CODE_AT;
}

static jmethodID ids(void *ctx, uintptr_t method)
{
  (void)ctx;
  return method == method_a ? (jmethodID)0xa : method == method_b ? (jmethodID)0xb : NULL;
}

static void finds_the_nmethod_holding_a_pc(void **state)
{
  (void)state;
  struct fg_code_heap h;
  set_layout(&h);
  build();
  struct fg_nmethod n;
  assert_int_equal(fg_code_heap_find(&h, code_begin() + 500, &n), 0);   /* hops back over 8 segments */
  assert_int_equal(n.nm, (uintptr_t)nm());
  assert_int_equal(n.code_begin, code_begin());
  assert_int_equal(n.code_end, (uintptr_t)nm() + CODE_END);
  assert_int_equal(n.method, method_a);
  assert_int_equal(n.compile_id, 42);
  assert_int_equal(n.frame_bytes, 48);
  assert_int_equal(fg_code_heap_find(&h, (uintptr_t)nm() + 100, &n), -1);   /* its header, not its code */
  assert_int_equal(fg_code_heap_find(&h, (uintptr_t)memory + 30 * 64, &n), -1);   /* a free segment */
  assert_int_equal(fg_code_heap_find(&h, (uintptr_t)memory - 64, &n), -1);        /* below the heap */
  nm()->kind = 3;   /* an adapter's blob */
  assert_int_equal(fg_code_heap_find(&h, code_begin() + 500, &n), -1);
  nm()->kind = 1;
  nm()->state = -1;   /* not installed yet */
  assert_int_equal(fg_code_heap_find(&h, code_begin() + 500, &n), -1);
  nm()->state = 1;    /* not entrant: its frames still run */
  assert_int_equal(fg_code_heap_find(&h, code_begin() + 500, &n), 0);
  memory[(BLOCK_FIRST << SEG_SHIFT) + 8] = 0;   /* the block freed */
  assert_int_equal(fg_code_heap_find(&h, code_begin() + 500, &n), -1);
  memory[(BLOCK_FIRST << SEG_SHIFT) + 8] = 1;
  h.known = 0;
  assert_int_equal(fg_code_heap_find(&h, code_begin() + 500, &n), -1);
}

/* JDK 17 has no kind: an nmethod is named "nmethod", a native method's
 * wrapper "native nmethod", other blobs otherwise. */
static void jdk17_tells_nmethods_by_name(void **state)
{
  (void)state;
  static const char nmethod[] = "nmethod", native[] = "native nmethod", other[] = "vtable chunks";
  struct fg_code_heap h;
  set_layout(&h);
  build();
  h.blob_kind = -1;
  h.blob_name = offsetof(struct fake_nm, name);
  const char *names[] = {nmethod, native, other, nmethod};
  int found[] = {0, 0, -1, 0};
  for (int i = 0; i < 4; i++) {
    nm()->name = (uintptr_t)names[i];
    struct fg_nmethod n;
    assert_int_equal(fg_code_heap_find(&h, code_begin(), &n), found[i]);
  }
  assert_int_equal(h.name_seen[0], (uintptr_t)nmethod);
  assert_int_equal(h.name_seen[1], (uintptr_t)native);
  /* learnt from the heap's blocks one after another: a free one of 2 segments, then the method */
  memset(h.name_seen, 0, sizeof h.name_seen);
  h.block_length = 0;
  uint64_t free_segments = BLOCK_FIRST, method_segments = BLOCK_SEGS;
  memcpy(memory, &free_segments, sizeof free_segments);
  memcpy(memory + (BLOCK_FIRST << SEG_SHIFT), &method_segments, sizeof method_segments);
  nm()->name = (uintptr_t)native;
  fg_code_heap_learn_names(&h);
  assert_int_equal(h.name_seen[1], (uintptr_t)native);
  assert_int_equal(h.name_seen[0], 0);   /* no other method in this heap */
}

static void same_until_another_method_is_compiled_there(void **state)
{
  (void)state;
  struct fg_code_heap h;
  set_layout(&h);
  build();
  struct fg_nmethod n;
  assert_int_equal(fg_code_heap_find(&h, code_begin(), &n), 0);
  assert_true(fg_code_heap_same(&h, &n));
  nm()->compile_id = 77;
  assert_false(fg_code_heap_same(&h, &n));
}

static void scopes_become_an_inline_record(void **state)
{
  (void)state;
  struct fg_code_heap h;
  set_layout(&h);
  build();
  struct fg_nmethod n;
  int unnamed = -1;
  assert_int_equal(fg_code_heap_find(&h, code_begin(), &n), 0);
  jvmtiCompiledMethodLoadInlineRecord *r = fg_code_heap_inline_record(&h, &n, ids, NULL, &unnamed);
  assert_non_null(r);
  assert_int_equal(unnamed, 0);
  assert_int_equal(r->header.kind, JVMTI_CMLR_INLINE_INFO);
  assert_null(r->header.next);
  assert_int_equal(r->numpcs, 2);   /* pc 20 has no scope */
  assert_ptr_equal(r->pcinfo[0].pc, (void *)(code_begin() + 10));
  assert_int_equal(r->pcinfo[0].numstackframes, 2);
  assert_ptr_equal(r->pcinfo[0].methods[0], (jmethodID)0xb);   /* innermost first */
  assert_int_equal(r->pcinfo[0].bcis[0], 7);
  assert_ptr_equal(r->pcinfo[0].methods[1], (jmethodID)0xa);
  assert_int_equal(r->pcinfo[0].bcis[1], 5);
  assert_ptr_equal(r->pcinfo[1].pc, (void *)(code_begin() + 30));
  assert_int_equal(r->pcinfo[1].numstackframes, 1);
  assert_int_equal(r->pcinfo[1].bcis[0], 300);
  free(r);
}

static jmethodID only_a(void *ctx, uintptr_t method)
{
  (void)ctx;
  return method == method_a ? (jmethodID)0xa : NULL;
}

static jmethodID only_b(void *ctx, uintptr_t method)
{
  (void)ctx;
  return method == method_b ? (jmethodID)0xb : NULL;
}

/* An inlined method without a jmethodID (a method handle's intrinsic) is a
 * NULL frame, as AsyncGetCallTrace gives it; the method itself without one
 * gives no record, nor does a bad index or a method changed since found. */
static void a_method_without_an_id_or_a_bad_index_gives_no_record(void **state)
{
  (void)state;
  struct fg_code_heap h;
  set_layout(&h);
  build();
  struct fg_nmethod n;
  int unnamed = 0;
  assert_int_equal(fg_code_heap_find(&h, code_begin(), &n), 0);
  jvmtiCompiledMethodLoadInlineRecord *r = fg_code_heap_inline_record(&h, &n, only_a, NULL, &unnamed);
  assert_non_null(r);
  assert_int_equal(unnamed, 0);
  assert_null(r->pcinfo[0].methods[0]);
  assert_ptr_equal(r->pcinfo[0].methods[1], (jmethodID)0xa);
  free(r);
  assert_null(fg_code_heap_inline_record(&h, &n, only_b, NULL, &unnamed));
  assert_int_equal(unnamed, 1);
  nm()->mutable_size = 16;   /* one Method* in the metadata: index 2 is past it */
  assert_null(fg_code_heap_inline_record(&h, &n, ids, NULL, &unnamed));
  assert_int_equal(unnamed, 0);
  nm()->mutable_size = 24;
  nm()->compile_id = 43;     /* recompiled since it was found */
  assert_null(fg_code_heap_inline_record(&h, &n, ids, NULL, &unnamed));
  nm()->compile_id = 42;
  nm()->immutable = 8;       /* freed: its data unmapped */
  assert_null(fg_code_heap_inline_record(&h, &n, ids, NULL, &unnamed));
}

static void unsigned5_reads_hotspots_bytes(void **state)
{
  (void)state;
  const uint8_t jdk17[] = {0, 191, 236, 1, 255, 255, 255, 255, 3};
  const uint8_t *p = jdk17, *end = jdk17 + sizeof jdk17;
  assert_int_equal(fg_unsigned5_read(&p, end, 0), 0);
  assert_int_equal(fg_unsigned5_read(&p, end, 0), 191);
  assert_int_equal(fg_unsigned5_read(&p, end, 0), 236 + 64);
  assert_int_equal(fg_unsigned5_read(&p, end, 0), 255 + (255 << 6) + (255 << 12) + (255 << 18) + (3u << 24));
  assert_ptr_equal(p, end);
  assert_int_equal(fg_unsigned5_read(&p, end, 0), -1);   /* nothing left */
  const uint8_t cut[] = {200};
  p = cut;
  assert_int_equal(fg_unsigned5_read(&p, cut + 1, 0), -1);   /* a continuation past the end */
  const uint8_t jdk20[] = {1, 237, 2, 0};
  p = jdk20;
  assert_int_equal(fg_unsigned5_read(&p, jdk20 + 4, 1), 0);
  assert_int_equal(fg_unsigned5_read(&p, jdk20 + 4, 1), 300);
  assert_int_equal(fg_unsigned5_read(&p, jdk20 + 4, 1), -1);   /* zero is no byte of JDK 20's */
}

/* Method -> ConstMethod -> ConstantPool -> InstanceKlass -> its ids by idnum. */
static void a_methods_id_comes_from_its_class(void **state)
{
  (void)state;
  struct fg_code_heap h;
  set_layout(&h);
  h.method_const = 8;
  h.const_constants = 8;
  h.const_idnum = 16;
  h.constants_holder = 24;
  h.holder_ids = 32;
  uintptr_t method[4] = {0}, cm[4] = {0}, cp[4] = {0}, klass[6] = {0}, slot = (uintptr_t)method;
  uintptr_t table[4] = {3, 0, (uintptr_t)&slot, 0};   /* [0]: length; idnum 1's id at [2] */
  method[1] = (uintptr_t)cm;
  cm[1] = (uintptr_t)cp;
  uint16_t idnum = 1;
  memcpy((uint8_t *)cm + 16, &idnum, sizeof idnum);
  cp[3] = (uintptr_t)klass;
  klass[4] = (uintptr_t)table;
  assert_ptr_equal(fg_code_heap_method_id(&h, (uintptr_t)method), (jmethodID)&slot);
  slot = 0x1234;   /* the id names another method now (redefined) */
  assert_null(fg_code_heap_method_id(&h, (uintptr_t)method));
  slot = (uintptr_t)method;
  idnum = 3;       /* past the table */
  memcpy((uint8_t *)cm + 16, &idnum, sizeof idnum);
  assert_null(fg_code_heap_method_id(&h, (uintptr_t)method));
  assert_null(fg_code_heap_method_id(&h, 8));   /* nothing mapped there */
}

#define GRANULE (1u << FG_CODE_GRANULE_SHIFT)

static int swept_gone(void *ctx, const struct fg_code_blob *b)
{
  return b->compile_id != *(const int32_t *)ctx;
}

/* A lookup that finds no live method in the bounds leaves its pc; the
 * sweep empties what its callback says is gone and changes the generation. */
static void misses_are_wanted_and_freed_methods_swept(void **state)
{
  (void)state;
  static uint8_t cache[16 * GRANULE];
  struct fg_code_map m;
  assert_int_equal(fg_code_map_init(&m), 0);
  fg_code_map_set_bounds(&m, (uintptr_t)cache, (uintptr_t)cache + sizeof cache);
  atomic_store(&m.methods.wants, &m.wants);
  struct fg_code_origin origin = {(uintptr_t)cache, 42, 96};
  fg_code_map_add_method(&m, (jmethodID)0x1, cache + GRANULE, 200, NULL, NULL, &origin);
  fg_code_map_add_method(&m, (jmethodID)0x2, cache + 3 * GRANULE, 200, NULL, NULL, NULL);   /* a load event's */
  uintptr_t miss = (uintptr_t)cache + 2 * GRANULE;
  assert_non_null(fg_code_map_find(&m.methods, (uintptr_t)cache + GRANULE + 10));
  /* zero bytes are no entry code: the heap's frame size stands in (a method made not entrant has
   * its entry patched); a load event's entry has none to take */
  assert_int_equal(fg_code_map_lookup(&m.methods, (uintptr_t)cache + GRANULE)->layout.frame_bytes, 96);
  assert_int_equal(fg_code_map_lookup(&m.methods, (uintptr_t)cache + 3 * GRANULE)->layout.frame_bytes, 0);
  assert_null(fg_code_map_lookup(&m.methods, miss));
  for (int i = 0; i < FG_CODE_WANTS; i++)
    assert_int_equal(atomic_load(&m.wants.pc[i]), 0);   /* found, or looked up quietly */
  assert_null(fg_code_map_find(&m.methods, miss));
  assert_int_equal(atomic_load(&m.wants.pc[(miss >> 4) % FG_CODE_WANTS]), miss);
  assert_null(fg_code_map_find(&m.methods, (uintptr_t)cache + sizeof cache + 4 * GRANULE));   /* outside: not code */
  fg_code_map_add_stub(&m, "arraycopy", cache + 5 * GRANULE, 64);
  assert_null(fg_code_map_find(&m.methods, (uintptr_t)cache + 5 * GRANULE + 8));   /* a stub's: no method's */
  int wanted = 0;
  for (int i = 0; i < FG_CODE_WANTS; i++)
    wanted += atomic_load(&m.wants.pc[i]) != 0;
  assert_int_equal(wanted, 1);

  uint32_t next = 0, generation = fg_code_map_generation(&m);
  int32_t now = 42;
  assert_int_equal(fg_code_map_sweep(&m, &next, 16, swept_gone, &now), 0);
  assert_int_equal(fg_code_map_generation(&m), generation);
  now = 43;   /* recompiled there: the entry read from the heap goes, the load event's stays */
  assert_int_equal(fg_code_map_sweep(&m, &next, 16, swept_gone, &now), 1);
  assert_true(fg_code_map_generation(&m) != generation);
  assert_null(atomic_load(&fg_code_map_lookup(&m.methods, (uintptr_t)cache + GRANULE + 10)->method));
  assert_non_null(atomic_load(&fg_code_map_lookup(&m.methods, (uintptr_t)cache + 3 * GRANULE)->method));
  fg_code_map_find(&m.methods, (uintptr_t)cache + GRANULE + 10);   /* a dead entry's pc is wanted again */
  assert_int_equal(atomic_load(&m.wants.pc[(((uintptr_t)cache + GRANULE + 10) >> 4) % FG_CODE_WANTS]),
                   (uintptr_t)cache + GRANULE + 10);
  fg_code_map_free(&m);
}

/* An entry whose nmethod has another compile id now (freed, its place
 * taken before the sweep came) is found as none, wanted, and changes the
 * generation once, so that answers kept about it go. */
static void stale_entries_are_found_as_none(void **state)
{
  (void)state;
  static uint8_t cache[8 * GRANULE];
  static int32_t header[4] = {0, 0, 7, 0};   /* the compile id at offset 8 */
  struct fg_code_map m;
  assert_int_equal(fg_code_map_init(&m), 0);
  fg_code_map_set_bounds(&m, (uintptr_t)cache, (uintptr_t)cache + sizeof cache);
  m.wants.nm_compile_id = 8;
  atomic_store(&m.methods.wants, &m.wants);
  struct fg_code_origin origin = {(uintptr_t)header, 7, 64};
  fg_code_map_add_method(&m, (jmethodID)0x1, cache + GRANULE, 200, NULL, NULL, &origin);
  uintptr_t pc = (uintptr_t)cache + GRANULE + 40;
  assert_non_null(fg_code_map_find(&m.methods, pc));
  uint32_t generation = fg_code_map_generation(&m);
  header[2] = 8;   /* another method compiled there */
  assert_null(fg_code_map_find(&m.methods, pc));
  assert_int_equal(atomic_load(&m.wants.pc[(pc >> 4) % FG_CODE_WANTS]), pc);
  assert_int_equal(fg_code_map_generation(&m), generation + 1);
  assert_null(fg_code_map_find(&m.methods, pc));
  assert_int_equal(fg_code_map_generation(&m), generation + 1);   /* said once */
  assert_non_null(fg_code_map_lookup(&m.methods, pc));              /* the quiet lookup does not check */
  fg_code_map_free(&m);
}

/* An entry whose nmethod's block was freed is found as none though its
 * header still holds its compile id: CodeHeap::deallocate clears only
 * HeapBlock::_used, and an allocation from that free block takes its tail
 * (CodeHeap::search_freelist splits it so), so a new method's code can
 * cover the entry's pcs with the old header left as it was. */
static void freed_blocks_are_found_as_none(void **state)
{
  (void)state;
  static uint8_t cache[8 * GRANULE];
  static int32_t block[8] = {0, 0, 1, 0, 0, 0, 7, 0};   /* _used at 8, the nmethod at 16, its compile id at 24 */
  uintptr_t nm = (uintptr_t)&block[4];
  struct fg_code_map m;
  assert_int_equal(fg_code_map_init(&m), 0);
  fg_code_map_set_bounds(&m, (uintptr_t)cache, (uintptr_t)cache + sizeof cache);
  m.wants.nm_compile_id = 8;
  m.wants.nm_block_used = -8;
  atomic_store(&m.methods.wants, &m.wants);
  struct fg_code_origin origin = {nm, 7, 64};
  fg_code_map_add_method(&m, (jmethodID)0x1, cache + GRANULE, 200, NULL, NULL, &origin);
  uintptr_t pc = (uintptr_t)cache + GRANULE + 40;
  assert_non_null(fg_code_map_find(&m.methods, pc));
  uint32_t generation = fg_code_map_generation(&m);
  block[2] = 0;   /* freed; the compile id stays */
  assert_null(fg_code_map_find(&m.methods, pc));
  assert_int_equal(atomic_load(&m.wants.pc[(pc >> 4) % FG_CODE_WANTS]), pc);
  assert_int_equal(fg_code_map_generation(&m), generation + 1);
  fg_code_map_free(&m);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(finds_the_nmethod_holding_a_pc),
    cmocka_unit_test(jdk17_tells_nmethods_by_name),
    cmocka_unit_test(same_until_another_method_is_compiled_there),
    cmocka_unit_test(scopes_become_an_inline_record),
    cmocka_unit_test(a_method_without_an_id_or_a_bad_index_gives_no_record),
    cmocka_unit_test(unsigned5_reads_hotspots_bytes),
    cmocka_unit_test(a_methods_id_comes_from_its_class),
    cmocka_unit_test(misses_are_wanted_and_freed_methods_swept),
    cmocka_unit_test(stale_entries_are_found_as_none),
    cmocka_unit_test(freed_blocks_are_found_as_none),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
