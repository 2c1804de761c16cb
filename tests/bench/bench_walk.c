/* The handler's per-frame cost, timed on the agent's own walker without a
 * JVM: fg_walk_stack (walker=vm) over a synthetic stack laid out as HotSpot
 * lays out x86-64 frames, then fg_trace_table_put of the frames it found,
 * as the signal handler does them one after the other.
 *
 * The stack: a compiled leaf method (one frame per debug record) interrupted
 * in its body, under PHYSICAL compiled frames that each inlined a callee
 * (two Java frames per record), under the call stub with an empty frame
 * anchor. KIND recursive: every frame is the same method returning to the
 * same pc (as C2 compiles Bench.down); distinct: each frame another method.
 * The code map holds 2000 compiled methods, so that a pc's granule has
 * neighbours; each has a debug record every 16 bytes, as DebugNonSafepoints
 * leaves them.
 *
 * The walker is the agent's at its defaults: depth 8192, the call-site
 * table of earlier walks. Timed hot (the same walk again and again) and cold
 * (8 MB written between walks, as an application's work between two samples
 * evicts the walker's tables and the trace table). Prints one line per figure: "name value unit".
 * Run: bench_walk PHYSICAL [recursive|distinct [WALKS [hot]]] (hot: the hot
 * figures only, for perf) */
#include <jvmti.h>
#include <jvmticmlr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

#include "walk/pc_cache.h"
#include "hotspot/method_map.h"
#include "hotspot/vm_offsets.h"
#include "walk/walk_cache.h"
#include "walk/walker.h"
#include "fg/trace_table.h"

#define CODE_BYTES (2u << 20)
#define METHOD_BYTES 512u
#define FILLERS 2000
#define RECORD_EVERY 16u
#define FRAME_WORDS 6          /* push rbp; sub rsp, 0x20: 0x30 bytes with the return address */
#define IN_JAVA 8
#define EVICT_BYTES (8u << 20)

static uint8_t code[CODE_BYTES];
static uintptr_t *stack;
static char thread[256];       /* a JavaThread: state at 16, anchor at 64 */
static struct fg_code_map map;
static struct fg_method_map methods;
static struct fg_vm_offsets vm;

static uint64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void fatal(const char *what)
{
  fprintf(stderr, "bench_walk: %s\n", what);
  exit(1);
}

/* A compiled method at code[at, at + METHOD_BYTES) with its entry code and
 * a record every RECORD_EVERY bytes past it: frames Java frames each, the
 * method itself outermost, its inlined copy of ids[0] innermost. */
static void add_method(size_t at, jmethodID id, int frames)
{
  static const uint8_t entry[] = {0x55, 0x48, 0x83, 0xec, 0x20};   /* push rbp; sub rsp, 0x20 */
  memcpy(code + at, entry, sizeof entry);
  enum { RECORDS = (METHOD_BYTES - 16) / RECORD_EVERY };
  static PCStackInfo pcs[RECORDS];
  static jmethodID ids[2];
  static jint bcis[2] = {9, 9};
  ids[0] = ids[1] = id;
  for (int i = 0; i < RECORDS; i++)
    pcs[i] = (PCStackInfo){code + at + 16 + (size_t)i * RECORD_EVERY, frames, ids, bcis};
  jvmtiCompiledMethodLoadInlineRecord rec = {
      {JVMTI_CMLR_INLINE_INFO, JVMTI_CMLR_MAJOR_VERSION, JVMTI_CMLR_MINOR_VERSION, NULL}, RECORDS, pcs};
  fg_code_map_add_method(&map, id, code + at, METHOD_BYTES, &rec, NULL, NULL);   /* copies the records */
}

#define LEAF 1000
#define STUB_AT (FILLERS * METHOD_BYTES + METHOD_BYTES)
#define TOP_PC (LEAF * METHOD_BYTES + 16 + 15 * RECORD_EVERY - 3)  /* in the leaf's body */

/* Where caller f (1 ..) of the leaf returns to: a record's pc in its method,
 * the call's return address. */
static size_t call_ret(int f, int distinct)
{
  size_t method = distinct ? (LEAF + 1 + (size_t)f * 7) % FILLERS : LEAF + 1;
  if (method == LEAF)
    method = LEAF + 2;
  return method * METHOD_BYTES + 16 + 10 * RECORD_EVERY;
}

/* The code map and PHYSICAL caller frames on the stack; returns the leaf
 * frame's sp. */
static uintptr_t setup(int physical, int distinct)
{
  memset(code, 0x90, sizeof code);
  fg_code_map_init(&map);
  fg_code_map_add_stub(&map, "Interpreter", code + STUB_AT, 4096);
  fg_code_map_add_stub(&map, "call_stub", code + STUB_AT + 4096, 512);
  fg_code_map_set_bounds(&map, (uintptr_t)code, (uintptr_t)(code + sizeof code));
  for (size_t i = 0; i < FILLERS; i++)
    add_method(i * METHOD_BYTES, (jmethodID)(uintptr_t)(0x10000 + 16 * i), i == LEAF ? 1 : 2);
  fg_method_map_init(&methods);
  vm = (struct fg_vm_offsets){.known = 1, .env_to_state = 16, .env_to_anchor = 64, .anchor_sp = 0,
                              .anchor_pc = 8, .anchor_fp = 16, .wrapper_anchor = 0,
                              .call_stub_return = (uintptr_t)(code + STUB_AT + 4096 + 100), .in_java = IN_JAVA};
  *(int32_t *)(thread + 16) = IN_JAVA;
  size_t words = (size_t)(physical + 2) * FRAME_WORDS + 64;
  stack = calloc(words, sizeof *stack);
  if (!stack)
    fatal("no memory for the stack");
  /* the leaf's frame at word 0, then each caller's; each frame's saved rbp
   * and return address at its top two words */
  for (int f = 0; f <= physical; f++) {
    uintptr_t *top = stack + (size_t)f * FRAME_WORDS;
    top[FRAME_WORDS - 2] = (uintptr_t)(top + FRAME_WORDS + 4);   /* any rbp: compiled frames ignore it */
    top[FRAME_WORDS - 1] = (uintptr_t)(code + call_ret(f + 1, distinct));
  }
  /* the outermost returns into the call stub, whose frame (rbp) holds at
   * -6 words the JavaCallWrapper, its anchor empty */
  uintptr_t *last = stack + (size_t)physical * FRAME_WORDS;
  uintptr_t *stub_fp = last + FRAME_WORDS + 8;
  last[FRAME_WORDS - 1] = vm.call_stub_return;
  last[FRAME_WORDS - 2] = (uintptr_t)stub_fp;
  stub_fp[-6] = (uintptr_t)(stub_fp + 2);   /* the wrapper: sp 0, no Java below */
  return (uintptr_t)stack;
}

static void no_asgct(ASGCT_CallTrace *trace, jint depth, void *ucontext)
{
  (void)depth;
  (void)ucontext;
  trace->num_frames = -1;   /* the walk above never needs it */
}

static volatile uint8_t *evict_area;

static void evict(void)
{
  for (size_t i = 0; i < EVICT_BYTES; i += 64)
    evict_area[i] = (uint8_t)(evict_area[i] + 1);
}

int main(int argc, char **argv)
{
  int physical = argc > 1 ? atoi(argv[1]) : 50;
  const char *kind = argc > 2 ? argv[2] : "recursive";
  int walks = argc > 3 ? atoi(argv[3]) : 20000;
  int distinct = strcmp(kind, "distinct") == 0;
  if (physical < 1 || physical > 5000 || walks < 10 || (!distinct && strcmp(kind, "recursive") != 0))
    fatal("usage: bench_walk PHYSICAL(1..5000) [recursive|distinct [WALKS >= 10 [hot]]]");
  uintptr_t sp = setup(physical, distinct);
  struct fg_pc_cache sites;
  if (fg_pc_cache_init(&sites) != 0)
    fatal("no memory for the call-site table");
  struct fg_walker w = {.asgct = no_asgct, .code = &map, .depth = FG_DEFAULT_DEPTH, .native_depth = 0, .recover = 1,
                        .annotate = 0, .use_vm = 1, .vm = &vm, .methods = &methods, .pcs = &sites};
  int capacity = fg_walk_capacity(&w);
  ASGCT_CallFrame *frames = calloc((size_t)capacity, sizeof *frames);
  uint8_t *types = calloc((size_t)capacity, 1);
  evict_area = malloc(EVICT_BYTES);
  struct fg_trace_table traces;
  if (!frames || !types || !evict_area || fg_trace_table_init(&traces, 1u << 12, 1u << 20, 0) != 0)
    fatal("no memory");
  memset((void *)evict_area, 1, EVICT_BYTES);
  ucontext_t uc;
  memset(&uc, 0, sizeof uc);
  uc.uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)(code + TOP_PC);
  uc.uc_mcontext.gregs[REG_RSP] = (greg_t)sp;
  uc.uc_mcontext.gregs[REG_RBP] = 0x1234;
  uintptr_t lo = sp, hi = sp + ((size_t)(physical + 2) * FRAME_WORDS + 64) * sizeof(uintptr_t);

  struct fg_walk first = fg_walk_stack(&w, 0, UINT64_MAX, thread, &uc, lo, hi, NULL, frames, types);
  int expect = 1 + 2 * physical;
  if (first.n != expect || (first.flags & FG_SAMPLE_FAILED))
    fatal("the synthetic stack did not walk");
  fg_trace_table_put(&traces, frames, types, (uint32_t)first.n, first.flags);

  /* hot, then cold: the walk alone, the table alone, both as the handler does them */
  int hot_only = argc > 4 && strcmp(argv[4], "hot") == 0;
  /* kept: the walk goes on from the last one where they meet (walk_cache.h),
   * here at its first caller: the stack does not change between walks */
  void *kept_mem = calloc(1, fg_walk_cache_bytes(capacity));
  struct fg_walk_cache kept;
  if (!kept_mem)
    fatal("no memory for the kept walk");
  fg_walk_cache_init(&kept, kept_mem, capacity);
  for (int run = 0; run < (hot_only ? 2 : 4); run++) {
    int cold = run >= 2, keep = run % 2;
    uint64_t walk_ns = 0, put_ns = 0;
    for (int i = 0; i < walks; i++) {
      if (cold)
        evict();
      uint64_t t0 = now_ns();
      struct fg_walk r = fg_walk_stack(&w, 0, UINT64_MAX, thread, &uc, lo, hi, keep ? &kept : NULL, frames, types);
      uint64_t t1 = now_ns();
      struct fg_trace_suffix known;
      int spliced = keep && fg_walk_cache_suffix(&kept, &known);
      const struct fg_trace *tr = fg_trace_table_put_known(&traces, frames, types, (uint32_t)r.n, r.flags,
                                                           spliced ? &known : NULL);
      if (keep)
        fg_walk_cache_commit(&kept, tr);
      uint64_t t2 = now_ns();
      if (r.n != expect || !tr)
        fatal("a walk differed from the first");
      walk_ns += t1 - t0;
      put_ns += t2 - t1;
    }
    const char *k = cold ? (keep ? "kept_cold" : "cold") : (keep ? "kept_hot" : "hot");
    printf("frames %d count\n", expect);
    printf("walk_%s_ns %.0f ns\n", k, (double)walk_ns / walks);
    printf("put_%s_ns %.0f ns\n", k, (double)put_ns / walks);
    printf("walk_%s_ns_per_frame %.1f ns\n", k, (double)walk_ns / walks / expect);
    printf("put_%s_ns_per_frame %.1f ns\n", k, (double)put_ns / walks / expect);
  }
  free(kept_mem);
  fg_trace_table_destroy(&traces);
  fg_pc_cache_free(&sites);
  fg_code_map_free(&map);
  fg_method_map_free(&methods);
  return 0;
}
