/* Where an OSR method (HotSpot's on-stack replacement code) is entered,
 * and the bytecode index its frame has there.
 *
 * The interpreter migrates a running loop into its OSR method by popping
 * its own frame and jumping to the method's OSR entry
 * (TemplateTable::branch), which builds the compiled frame, loads the
 * locals from the interpreter's buffer and frees that with a leaf call of
 * SharedRuntime::OSR_migration_end before it jumps into the loop (C1's
 * GraphBuilder::setup_osr_entry_block, C2's Parse::load_interpreter_state).
 * A leaf call has no debug record: HotSpot's rule for a pc between records
 * (the first after it) names whatever the compiler placed after the entry
 * (C1: its slow-path stubs, a record at bci -1 among them; C2: the loop's
 * back branch), and an entry placed last has none after it at all. A
 * sample inside OSR_migration_end (a tail call of free()) thus had a caller
 * frame without its bytecode index, or with another's. The frame is the
 * method alone at nmethod::_entry_bci, the loop header the interpreter
 * left: that is the bci every such pc gets here. */
#ifndef FG_OSR_ENTRY_H
#define FG_OSR_ENTRY_H

#include <stddef.h>
#include <stdint.h>

#include "hotspot/code_map.h"
#include "hotspot/pc_scopes.h"

/* How far past the OSR entry the call is looked for: C1 copies the locals
 * and monitors in between, a few instructions each. */
#define FG_OSR_CALL_WINDOW 1024

/* The offset (from code) of the return address of the first call of target
 * in code[from, from + FG_OSR_CALL_WINDOW) (within len), found by its exact
 * encoding: `call rel32` (e8, C1) whose target is target, or
 * `movabs r10, target; call r10` (49 ba imm64 41 ff d2, C2 and far calls);
 * 0 when there is none. code is at address base in the process. A pure
 * function of the bytes. */
uint32_t fg_osr_call_return(const uint8_t *code, size_t len, uintptr_t base, size_t from, uintptr_t target);

/* Whether pc (an interrupted pc, or the return address of the OSR
 * migration's call) is in m's OSR entry, from the entry up to and with the
 * call's return address: *f is then the method at its entry bci.
 * Async-signal-safe. */
static inline int fg_osr_entering(const struct fg_code_blob *m, jmethodID method, uintptr_t pc,
                                  struct fg_scope_frame *f)
{
  const struct fg_deopt_sites *s = &m->deopt;
  if (!s->osr_return || pc < m->start + s->osr_entry || pc > m->start + s->osr_return)
    return 0;
  *f = (struct fg_scope_frame){method, s->entry_bci};
  return 1;
}

#endif
