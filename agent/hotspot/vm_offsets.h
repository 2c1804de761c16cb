/* Where HotSpot keeps what the VM walker reads, from its exported tables
 * (vm_structs.h), read once at VMInit: the thread's state and frame anchor,
 * the entry frame's call wrapper, a Method's bytecodes, and the function
 * that turns a jmethodID into its Method*. The frame layouts themselves
 * (interpreter slots, the entry frame's wrapper slot) are fixed for x86-64
 * in HotSpot's frame_x86.hpp and are constants in vm_walker.c. */
#ifndef FG_VM_OFFSETS_H
#define FG_VM_OFFSETS_H

#include <jni.h>
#include <stddef.h>
#include <stdint.h>

struct fg_vm_offsets {
  int known;                      /* every field below was found */
  long env_to_state;              /* JavaThread::_thread_state, from the thread's JNIEnv */
  long env_to_anchor;             /* JavaThread::_anchor, from the JNIEnv */
  long anchor_sp, anchor_pc, anchor_fp;   /* JavaFrameAnchor's fields */
  long wrapper_anchor;            /* JavaCallWrapper::_anchor */
  uintptr_t call_stub_return;     /* StubRoutines::_call_stub_return_address */
  int32_t in_java;                /* _thread_in_Java */
  long const_method;              /* Method::_constMethod */
  long code_size;                 /* ConstMethod::_code_size (u2) */
  long const_method_bytes;        /* sizeof(ConstMethod): the bytecodes follow it */
  void *(*resolve)(jmethodID);    /* Method::checked_resolve_jmethod_id, NULL for a dead method */
};

struct fg_symbols;

/* Reads them; env_offset is where a JNIEnv sits in its JavaThread; jvm:
 * symbols to find libjvm's local functions in (the caller's, so that the
 * library's table is read once). Returns 0, or -1 with the first thing the
 * VM does not export named in why. */
int fg_vm_offsets_read(struct fg_vm_offsets *o, long env_offset, struct fg_symbols *jvm, char *why, size_t len);

struct fg_method_map;

/* Adds method id to the map: its Method* (o->resolve) and bytecode range,
 * read from metaspace while its class is alive (a JVMTI callback). The
 * Method* added, or 0. */
uintptr_t fg_vm_add_method(const struct fg_vm_offsets *o, struct fg_method_map *map, jmethodID id);

#endif
