/* Compiled methods read from HotSpot's code heaps, in place of the JVM's
 * CompiledMethodLoad events.
 *
 * Every CompiledMethodLoad makes HotSpot decode all of the method's debug
 * scopes into JVMTI's inline records and post them from its Service thread
 * (JvmtiExport::post_compiled_method_load, create_inline_record), whether
 * the profile ever samples the method or not: on a JIT-heavy start (javac)
 * that thread's CPU is most of what the profiler costs beyond
 * DebugNonSafepoints. async-profiler reads the code cache instead
 * (JDK-8173361). So does this: a pc a walker finds in no entry of the code
 * map is looked up here, off the signal handler (code_discovery.h), and
 * only methods that samples land in are decoded.
 *
 * The layout comes from gHotSpotVMStructs: CodeCache::_heaps, each
 * CodeHeap's segment map (the hops back to a block's first segment) and
 * the HeapBlock before each blob; the nmethod's Method*, compile id, code
 * bounds, PcDescs and scopes stream. JDK 17 keeps the PcDescs, scopes and
 * metadata inside the nmethod (CompiledMethod::_scopes_data_begin,
 * nmethod::_metadata_offset); JDK 23 and later keep PcDescs and scopes in
 * a separate C-heap block (nmethod::_immutable_data) and the metadata in
 * another after the relocations (CodeBlob::_mutable_data). The scopes
 * stream is UNSIGNED5 (CompressedReadStream); JDK 20 (JDK-8292758) shifted
 * every byte up by one so that no byte is zero.
 *
 * Outside signal handlers every read goes through fg_safe_read: a method
 * found may be freed while it is read (its C-heap blocks unmapped), and
 * what is read is checked against the nmethod's header read again after.
 * fg_code_heap_find_live alone runs in a handler, and reads only the code
 * heap and its bookkeeping. */
#ifndef FG_CODE_HEAP_H
#define FG_CODE_HEAP_H

#include <jni.h>
#include <stddef.h>
#include <stdint.h>

struct fg_code_heap {
  int known;                    /* every field below was found */
  char why[120];                /* when not known: what the VM does not export */
  int unsigned5_base;           /* 0 before JDK 20, 1 since */
  uintptr_t heaps;              /* &CodeCache::_heaps (GrowableArray<CodeHeap*>*) */
  long array_len, array_data;   /* GrowableArrayBase::_len, GrowableArray<int>::_data */
  long heap_memory, heap_segmap, heap_log2;   /* CodeHeap::_memory, _segmap, _log2_segment_size */
  long vs_low, vs_high;         /* VirtualSpace::_low, _high: the committed part */
  long block_bytes, block_used; /* sizeof(HeapBlock), HeapBlock::Header::_used */
  long block_length;            /* HeapBlock::Header::_length: segments (a size_t on JDK 17, u4 on 25) */
  long blob_name, blob_kind;    /* CodeBlob::_name; _kind (JDK 23+), or -1 */
  long blob_frame_size;         /* CodeBlob::_frame_size (int, words) */
  int32_t kind_nmethod;         /* CodeBlobKind::Nmethod */
  long code_begin, code_end;    /* CodeBlob::_code_begin/_code_end (addresses, JDK 17) ... */
  int code_is_offset;           /* ... or _code_offset/_data_offset (ints from the blob) */
  long nm_method, nm_compile_id, nm_state;
  long pcs_begin, pcs_end;      /* ints: the PcDescs' bounds, from immutable or the nmethod */
  long immutable, immutable_size;   /* nmethod::_immutable_data, _immutable_data_size; -1: JDK 17 */
  long scopes_begin;            /* CompiledMethod::_scopes_data_begin (address), or nmethod::
                                   _scopes_data_offset (int from immutable) when immutable >= 0 */
  long metadata;                /* nmethod::_metadata_offset (int from the nmethod, JDK 17), or -1 */
  long mutable_data, relocation_size, mutable_size;   /* CodeBlob's, JDK 25: the metadata's bounds */
  long header_bytes;            /* sizeof(nmethod) */
  long method_const, const_constants, constants_holder, const_idnum, holder_ids;
                                /* Method::_constMethod, ConstMethod::_constants, ConstantPool::
                                   _pool_holder, ConstMethod::_method_idnum (u2), InstanceKlass::
                                   _methods_jmethod_ids: a Method*'s jmethodID where the map has none */
  uintptr_t name_seen[2];       /* the name strings of the nmethods found, JDK 17's "nmethod" and
                                   "native nmethod" (it has no kind) */
};

/* A compiled method as found. */
struct fg_nmethod {
  uintptr_t nm;                 /* its header */
  uintptr_t code_begin, code_end;
  uintptr_t method;             /* its Method* */
  int32_t compile_id;
  uint32_t frame_bytes;         /* its frame with the return address (CodeBlob::_frame_size) */
};

/* Reads the layout; unsigned5_base: 1 on JDK 20 and later. 0, or -1 with
 * what the VM lacks in h->why. */
int fg_code_heap_init(struct fg_code_heap *h, int unsigned5_base);

/* The nmethod whose code holds pc (installed, not a stub): 0, else -1. */
int fg_code_heap_find(struct fg_code_heap *h, uintptr_t pc, struct fg_nmethod *out);

/* The same in a signal handler, for a pc of a frame on the thread's own
 * stack (its nmethod cannot be freed under it): plain loads of the code
 * heap's memory, which stays committed, and of its bookkeeping, made once;
 * no system call. JDK 17's nmethods are told by names fg_code_heap_find
 * has met before. */
int fg_code_heap_find_live(const struct fg_code_heap *h, uintptr_t pc, struct fg_nmethod *out);

/* JDK 17 (no blob kind): learns the names of nmethods and native wrappers
 * from the blocks of the code heaps, one after another, until both are
 * known, so that fg_code_heap_find_live tells them before the first method
 * is read. A read each block: once a session, on the drainer. */
void fg_code_heap_learn_names(struct fg_code_heap *h);

/* Whether n's header still says what it said when found (its Method* and
 * compile id): 1, or 0 once the method was freed and its place reused. */
int fg_code_heap_same(const struct fg_code_heap *h, const struct fg_nmethod *n);

/* A jmethodID for Method* method, or NULL. */
typedef jmethodID (*fg_method_id_fn)(void *ctx, uintptr_t method);

/* n's debug scopes as JVMTI's inline record (jvmticmlr.h), the
 * compile_info fg_pc_scopes_build reads: every PcDesc with a scope, its
 * frames innermost first, named by id_of (an inlined method with no
 * jmethodID: NULL, as AsyncGetCallTrace gives it). NULL when the nmethod
 * changed while read, its records are malformed, or a scope's own method
 * has no jmethodID; *unnamed is set in that last case. Freed with free(). */
void *fg_code_heap_inline_record(const struct fg_code_heap *h, const struct fg_nmethod *n,
                                 fg_method_id_fn id_of, void *ctx, int *unnamed);

/* A jmethodID for method read from its class (InstanceKlass::
 * _methods_jmethod_ids at its idnum), checked to lead back to it; NULL when
 * it has none or cannot be read. */
jmethodID fg_code_heap_method_id(const struct fg_code_heap *h, uintptr_t method);

/* Decodes one UNSIGNED5 int at *p (below end); -1 past end. Exposed for
 * the unit tests. */
int64_t fg_unsigned5_read(const uint8_t **p, const uint8_t *end, int base);

#endif
