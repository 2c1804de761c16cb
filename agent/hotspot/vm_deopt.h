/* Where HotSpot leaves a compiled frame it deoptimizes while the frame is
 * not on top: the return address into it (in its callee's frame, or the
 * runtime stub's that called the VM) is patched to one of the method's two
 * deoptimization handlers, and the pc it replaced is saved in a slot of
 * the frame itself, at the method's own offset from its sp
 * (nmethod::orig_pc_addr). The walker reads that slot to name the frame as
 * HotSpot does (frame::frame's deopt state); without it every walk through
 * such a frame fails and AsyncGetCallTrace, inside the deoptimization
 * itself, gives up (ticks_deopt).
 *
 * Read from gHotSpotVMStructs once, and for each method as the code map
 * adds it (outside signal handlers): from the nmethod the code heap's
 * reader found, or, for a CompiledMethodLoad, the nmethod the VM's own
 * CodeCache lookup finds. With them, an OSR method's entry and its entry
 * bci (osr_entry.h), from the same header. JDK 17 exports the
 * handlers and the code's start as addresses (CompiledMethod::
 * _deopt_handler_begin, CodeBlob::_code_begin), JDK 25 as int offsets from
 * the nmethod (nmethod::_deopt_handler_offset, CodeBlob::_code_offset);
 * whichever form the JVM exports is read. */
#ifndef FG_VM_DEOPT_H
#define FG_VM_DEOPT_H

#include <stddef.h>
#include <stdint.h>

#include "hotspot/code_map.h"

struct fg_vm_deopt {
  int known;                            /* everything below was found */
  int offsets_known;                    /* the fields were, if not find_blob */
  void *(*find_blob)(void *pc);         /* CodeCache::find_blob_unsafe, or find_blob */
  long handler, mh_handler;             /* the handlers' fields in the nmethod */
  int handler_is_offset;                /* int offsets from the nmethod (JDK 25), else addresses */
  long orig_pc_offset;                  /* nmethod::_orig_pc_offset (int) */
  long entry_bci, osr_entry;            /* nmethod::_entry_bci (int), _osr_entry_point (address); -1: not
                                           exported, OSR entries are not told (osr_entry.h) */
  uintptr_t migration_end;              /* SharedRuntime::OSR_migration_end, or 0 */
  long code_begin;                      /* CodeBlob::_code_begin (address), or, with code_offset ... */
  int code_is_offset;                   /* ... CodeBlob::_code_offset (int from the blob, JDK 25) */
  char why[100];                        /* when not known: what the VM lacks */
};

struct fg_symbols;

/* Reads the fields and finds the CodeCache lookup in jvm (the caller's
 * symbols, as fg_vm_offsets_read's); 0, or -1 with what the VM lacks in
 * d->why. */
int fg_vm_deopt_read(struct fg_vm_deopt *d, struct fg_symbols *jvm);

/* The deoptimization sites of the method whose code (as CompiledMethodLoad
 * gives it) is [code, code + len): 0, or -1 when d is not known or the
 * nmethod found does not hold that code (then sites says none). */
int fg_vm_deopt_sites(const struct fg_vm_deopt *d, const void *code, size_t len, struct fg_deopt_sites *sites);

/* The same for the nmethod at nm (found in the code heap, code_heap.h,
 * whose memory stays mapped: CodeHeap::shrink_by is Unimplemented()). */
int fg_vm_deopt_sites_of(const struct fg_vm_deopt *d, uintptr_t nm, const void *code, size_t len,
                         struct fg_deopt_sites *sites);

#endif
