/* walker=copy: what a perf_events sample record holds when the counter
 * copies the thread's user registers and the top of its stack into its ring
 * (PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER: the way of
 * `perf record --call-graph dwarf`), and reading one back. The record is
 * laid out in the kernel's order of sample_type's bits: tid, time, cpu,
 * the kernel's callchain (when asked), the registers, the stack. Pure: no
 * system call, tested without a kernel. */
#ifndef FG_COPY_RECORD_H
#define FG_COPY_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "walk/walker.h"

/* sample_type: every record's fields, and the kernel callchain's when kept */
uint64_t fg_copy_sample_type(int kernel_callchain);
/* Where a record's time stamp lies, from its start (after its header and
 * its pid and tid). */
#define FG_COPY_RECORD_TIME_AT 16
/* sample_regs_user: rax, rbx, rdx, rbp, rsp, rip, r13 (the walker's) */
uint64_t fg_copy_regs_mask(void);

/* One sample, pointing into the record it was read from. */
struct fg_copy_sample {
  int pid, tid;
  uint64_t time_ns;              /* the counter's clock (CLOCK_MONOTONIC: use_clockid) */
  uint32_t cpu;
  const uint64_t *callchain;     /* the kernel's, context markers included; NULL when none */
  uint32_t callchain_n;
  int user;                      /* the registers were the user's (abi not none) */
  struct fg_stack_copy copy;     /* registers and stack; copy.cut when the copy is full */
};

/* Reads the sample record rec[0..size) (its perf_event_header first) made
 * with fg_copy_sample_type(kernel_callchain) and fg_copy_regs_mask(). 0; -1
 * when it is shorter than its fields say. */
int fg_copy_record_read(const uint8_t *rec, size_t size, int kernel_callchain, struct fg_copy_sample *out);

#endif
