/* Reading walker=copy's sample records; see copy_record.h. */
#include "sampling/copy/copy_record.h"

#include <asm/perf_regs.h>
#include <linux/perf_event.h>
#include <string.h>

uint64_t fg_copy_sample_type(int kernel_callchain)
{
  return PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
         (kernel_callchain ? PERF_SAMPLE_CALLCHAIN : 0);
}

/* the mask's registers in the record's order, lowest bit first */
static const int regs_in_order[] = {PERF_REG_X86_AX, PERF_REG_X86_BX, PERF_REG_X86_DX, PERF_REG_X86_BP,
                                    PERF_REG_X86_SP, PERF_REG_X86_IP, PERF_REG_X86_R13};
#define NREGS (sizeof regs_in_order / sizeof regs_in_order[0])

uint64_t fg_copy_regs_mask(void)
{
  uint64_t m = 0;
  for (size_t i = 0; i < NREGS; i++)
    m |= 1ull << regs_in_order[i];
  return m;
}

struct cursor {
  const uint8_t *at, *end;
};

static int take(struct cursor *c, void *to, size_t n)
{
  if ((size_t)(c->end - c->at) < n)
    return 0;
  memcpy(to, c->at, n);
  c->at += n;
  return 1;
}

int fg_copy_record_read(const uint8_t *rec, size_t size, int kernel_callchain, struct fg_copy_sample *out)
{
  memset(out, 0, sizeof *out);
  struct cursor c = {rec, rec + size};
  struct perf_event_header h;
  uint32_t ids[2], cpu[2];
  if (!take(&c, &h, sizeof h) || h.type != PERF_RECORD_SAMPLE || h.size > size || h.size < sizeof h)
    return -1;
  c.end = rec + h.size;   /* the record's own length, not the room around it */
  if (!take(&c, ids, sizeof ids) || !take(&c, &out->time_ns, 8) || !take(&c, cpu, sizeof cpu))
    return -1;
  out->pid = (int)ids[0];
  out->tid = (int)ids[1];
  out->cpu = cpu[0];
  if (kernel_callchain) {
    uint64_t nr;
    if (!take(&c, &nr, 8) || nr > (uint64_t)(c.end - c.at) / 8)
      return -1;
    out->callchain = nr ? (const uint64_t *)(const void *)c.at : NULL;
    out->callchain_n = (uint32_t)nr;
    c.at += nr * 8;
  }
  uint64_t abi, regs[NREGS];
  if (!take(&c, &abi, 8))
    return -1;
  out->user = abi != PERF_SAMPLE_REGS_ABI_NONE;
  if (out->user && !take(&c, regs, sizeof regs))
    return -1;
  uint64_t copied = 0, dyn = 0;
  if (!take(&c, &copied, 8))
    return -1;
  if (copied) {
    if (copied > (uint64_t)(c.end - c.at))
      return -1;
    out->copy.stack = c.at;
    c.at += copied;
    if (!take(&c, &dyn, 8) || dyn > copied)
      return -1;
  }
  if (!out->user)
    return 0;
  out->copy.rax = regs[0];
  out->copy.rbx = regs[1];
  out->copy.rdx = regs[2];
  out->copy.fp = regs[3];
  out->copy.sp = regs[4];
  out->copy.pc = regs[5];
  out->copy.r13 = regs[6];
  out->copy.copied = dyn;
  out->copy.cut = dyn > 0 && dyn == copied;   /* the whole room taken: the stack may go on */
  if (!dyn)
    out->copy.stack = NULL;
  return 0;
}
