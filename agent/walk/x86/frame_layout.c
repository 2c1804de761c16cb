/* Compiled methods' frame layouts from their code bytes; see frame_layout.h.
 * The encodings are the ones HotSpot's x86-64 assembler emits (MachPrologNode,
 * C1's build_frame, the inline-cache check of each JDK); anything else before
 * the frame is built makes the layout unknown rather than guessed. */
#include "walk/x86/frame_layout.h"

#include <string.h>

#define MAX_FRAME_BYTES (1u << 20)

static int32_t imm32(const uint8_t *p)
{
  return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
}

/* Bytes of a ModRM operand (ModRM, SIB, displacement) starting at p, or 0. */
static size_t modrm_len(const uint8_t *p, size_t left)
{
  if (left < 1)
    return 0;
  unsigned mod = p[0] >> 6, rm = p[0] & 7;
  size_t n = 1;
  if (mod != 3 && rm == 4) {
    if (left < 2)
      return 0;
    if (mod == 0 && (p[1] & 7) == 5)
      n += 4;   /* SIB with no base: disp32 */
    n++;
  }
  if (mod == 1)
    n += 1;
  else if (mod == 2 || (mod == 0 && rm == 5))
    n += 4;
  return n <= left ? n : 0;
}

/* The prefixes of the instruction at p: up to max66 operand-size prefixes,
 * then a REX prefix (*rex, 0 for none). Returns their length. */
static size_t prefixes(const uint8_t *p, size_t left, size_t max66, uint8_t *rex)
{
  size_t i = 0;
  while (i < left && i < max66 && p[i] == 0x66)
    i++;
  *rex = 0;
  if (i < left && (p[i] & 0xf0) == 0x40)
    *rex = p[i++];
  return i;
}

/* Length of one nop (0x90, or 0f 1f with HotSpot's 0x66 prefixes), or 0. */
static size_t nop_len(const uint8_t *p, size_t left)
{
  size_t m;
  uint8_t rex;
  size_t i = prefixes(p, left, 4, &rex);
  if (i >= left)
    return 0;
  if (p[i] == 0x90 && !rex)
    return i + 1;
  if (p[i] == 0x0f && i + 2 < left && p[i + 1] == 0x1f)
    return (m = modrm_len(p + i + 2, left - i - 2)) ? i + 2 + m : 0;
  return 0;
}

/* Length of an instruction HotSpot puts before a method's frame is built
 * (nops, the inline-cache check, the stack bang), or 0 for anything else. */
static size_t pre_frame_insn(const uint8_t *p, size_t left)
{
  size_t m, nop = nop_len(p, left);
  if (nop)
    return nop;
  uint8_t rex;
  size_t i = prefixes(p, left, 4, &rex);   /* operand-size prefixes: only nops carry them here */
  int prefixed = i > 0 && p[0] == 0x66;
  if (i >= left)
    return 0;
  uint8_t op = p[i];
  if (prefixed)
    return 0;
  if (op == 0x0f && i + 6 <= left && (p[i + 1] == 0x85 || p[i + 1] == 0x84))
    return i + 6;                                              /* jne ic_miss; je over the miss (C1) */
  if ((op == 0xe9 || op == 0xe8) && !rex && i + 5 <= left)
    return i + 5;                                              /* jmp ic_miss (C1); an entry patched
                                                                  with a jmp or (JDK 25) a call */
  if ((op == 0x75 || op == 0x74) && i + 2 <= left)
    return i + 2;                                              /* jne/je short */
  if ((rex & 0x08) && op >= 0xb8 && op <= 0xbf && i + 9 <= left)
    return i + 9;                                              /* movabs r64, imm64 (class base) */
  if (op == 0x8b || op == 0x3b || op == 0x03 || op == 0x33 || op == 0x2b)
    return (m = modrm_len(p + i + 1, left - i - 1)) ? i + 1 + m : 0;   /* mov/cmp/add/xor/sub of the check */
  if (op == 0xc1 && i + 1 < left && (p[i + 1] >> 6) == 3 && i + 3 <= left)
    return i + 3;                                              /* shl/shr r, imm8 (decoding the klass) */
  if (op == 0x89 && !rex && i + 7 <= left && p[i + 1] == 0x84 && p[i + 2] == 0x24 && imm32(p + i + 3) < 0)
    return i + 7;                                              /* stack bang: mov [rsp - n], eax */
  return 0;
}

/* sub rsp, imm8 / imm32 at p: its length and N, or 0. */
static size_t sub_rsp(const uint8_t *p, size_t left, uint32_t *n)
{
  int32_t v;
  size_t len;
  if (left >= 4 && p[0] == 0x48 && p[1] == 0x83 && p[2] == 0xec) {
    v = (int8_t)p[3];
    len = 4;
  } else if (left >= 7 && p[0] == 0x48 && p[1] == 0x81 && p[2] == 0xec) {
    v = imm32(p + 3);
    len = 7;
  } else {
    return 0;
  }
  if (v < 0 || (uint32_t)v > MAX_FRAME_BYTES || v % 8)
    return 0;
  *n = (uint32_t)v;
  return len;
}

/* mov [rsp + n - 8], rbp at p: its length, or 0. */
static size_t store_rbp(const uint8_t *p, size_t left, uint32_t n)
{
  if (n == 8 && left >= 4 && p[0] == 0x48 && p[1] == 0x89 && p[2] == 0x2c && p[3] == 0x24)
    return 4;   /* mov [rsp], rbp: C2's runtime stubs (_new_array_Java ...) */
  if (left >= 5 && p[0] == 0x48 && p[1] == 0x89 && p[2] == 0x6c && p[3] == 0x24 && (int8_t)p[4] == (int32_t)n - 8)
    return 5;
  if (left >= 8 && p[0] == 0x48 && p[1] == 0x89 && p[2] == 0xac && p[3] == 0x24 && imm32(p + 4) == (int32_t)n - 8)
    return 8;
  return 0;
}

int fg_frame_layout_of(const uint8_t *code, size_t len, struct fg_frame_layout *out)
{
  memset(out, 0, sizeof *out);
  size_t pos = 0, step;
  if (len > 0 && code[0] == 0x52) {   /* push rdx: the exception pc, as the return address */
    out->pushes_return = 1;
    pos = 1;
  }
  while (pos < len && (step = pre_frame_insn(code + pos, len - pos)) > 0)
    pos += step;
  if (pos >= len || pos > UINT16_MAX - 16)
    return -1;
  uint32_t n;
  out->build = (uint16_t)pos;
  if (code[pos] == 0x55) {   /* push rbp [; mov rbp, rsp]; sub rsp, N */
    pos++;
    int moved = pos + 3 <= len && code[pos] == 0x48 &&
                ((code[pos + 1] == 0x89 && code[pos + 2] == 0xe5) || (code[pos + 1] == 0x8b && code[pos + 2] == 0xec));
    if (moved)
      pos += 3;
    if (!(step = sub_rsp(code + pos, len - pos, &n))) {
      if (!moved)
        return -1;
      out->pushes_rbp = 1;   /* a frame pointer frame whose size rbp tells */
      out->rbp_based = 1;
      out->sub = out->complete = (uint16_t)pos;
      return 0;
    }
    out->sub = (uint16_t)pos;
    out->complete = (uint16_t)(pos + step);
    out->pushes_rbp = 1;
    out->frame_bytes = n + 16;
    return 0;
  }
  if (!(step = sub_rsp(code + pos, len - pos, &n)) || n < 8)   /* sub rsp, N; mov [rsp + N - 8], rbp */
    return -1;
  size_t stored = store_rbp(code + pos + step, len - pos - step, n);
  if (!stored)
    return -1;
  out->sub = (uint16_t)pos;
  out->complete = (uint16_t)(pos + step + stored);
  out->frame_bytes = n + 8;
  return 0;
}

enum fg_frame_state fg_frame_state_at(const struct fg_frame_layout *l, size_t off)
{
  if (off >= l->complete)
    return FG_FRAME_COMPLETE;
  if (l->pushes_rbp)
    return off <= l->build ? FG_FRAME_NOT_BUILT : FG_FRAME_RBP_PUSHED;
  return off <= l->sub ? FG_FRAME_NOT_BUILT : FG_FRAME_ALLOCATED;
}

/* A plain loop, not memcmp: this runs in the signal handler. */
static int bytes_are(const uint8_t *code, size_t len, size_t at, const uint8_t *want, size_t n)
{
  if (at + n > len)
    return 0;
  for (size_t i = 0; i < n; i++)
    if (code[at + i] != want[i])
      return 0;
  return 1;
}

/* ja to the poll stub, then ret. */
static int ja_then_ret(const uint8_t *code, size_t len, size_t at)
{
  static const uint8_t ja32[] = {0x0f, 0x87};
  if (bytes_are(code, len, at, ja32, 2))
    return at + 6 < len && code[at + 6] == 0xc3;
  return at + 2 < len && code[at] == 0x77 && code[at + 2] == 0xc3;
}

/* mov [r15 + d32], r10 (the poll stub saving the poll's pc), then jmp. */
static int saves_poll_pc_then_jumps(const uint8_t *code, size_t len, size_t at)
{
  static const uint8_t mov[] = {0x4d, 0x89, 0x97};
  return bytes_are(code, len, at, mov, 3) && at + 7 < len && code[at + 7] == 0xe9;
}

int fg_frame_is_popped(const uint8_t *code, size_t len, size_t at)
{
  static const uint8_t cmp_d32[] = {0x49, 0x3b, 0xa7}, cmp_d8[] = {0x49, 0x3b, 0x67};
  static const uint8_t movabs_r10[] = {0x49, 0xba}, lea_r10[] = {0x4c, 0x8d, 0x15};
  if (at >= len)
    return 0;
  if (code[at] == 0xc3)
    return 1;   /* ret */
  if (bytes_are(code, len, at, cmp_d32, 3))
    return ja_then_ret(code, len, at + 7);   /* the return poll */
  if (bytes_are(code, len, at, cmp_d8, 3))
    return ja_then_ret(code, len, at + 4);
  if (ja_then_ret(code, len, at))
    return 1;
  if (bytes_are(code, len, at, movabs_r10, 2))
    return saves_poll_pc_then_jumps(code, len, at + 10);   /* the poll stub */
  if (bytes_are(code, len, at, lea_r10, 3))
    return saves_poll_pc_then_jumps(code, len, at + 7);
  if (saves_poll_pc_then_jumps(code, len, at))
    return 1;
  if (code[at] == 0xe9)   /* the stub's jump, or C1's unwind: pop rbp; jmp */
    return (at >= 7 && saves_poll_pc_then_jumps(code, len, at - 7)) || (at >= 1 && code[at - 1] == 0x5d);
  return 0;
}

/* Length of an instruction that neither moves rsp nor writes it (the
 * checks HotSpot emits: mov, movzx, lea, cmp, test, jumps, nops), or 0 for
 * any other. Jumps count as falling through: the caller reads straight-line
 * code and a jump over a block that moves rsp still fails on that block. */
static size_t keeps_rsp_insn(const uint8_t *p, size_t left)
{
  size_t m;
  uint8_t rex;
  size_t i = prefixes(p, left, 2, &rex);
  if (i >= left)
    return 0;
  uint8_t op = p[i];
  const uint8_t *rm = p + i + 1;
  size_t rest = left - i - 1;
  int reg_is_rsp = rest > 0 && ((rm[0] >> 3) & 7) == 4 && !(rex & 0x04);
  int rm_is_rsp = rest > 0 && (rm[0] >> 6) == 3 && (rm[0] & 7) == 4 && !(rex & 0x01);
  int op16 = i > 0 && p[0] == 0x66;   /* an operand-size prefix makes an imm32 an imm16 */
  switch (op) {
  case 0x90:
    return i + 1;                                             /* nop */
  case 0x8b: case 0x8d:                                       /* mov r, r/m; lea */
    return !reg_is_rsp && (m = modrm_len(rm, rest)) ? i + 1 + m : 0;
  case 0x89: case 0x88:                                       /* mov r/m, r */
  case 0x01: case 0x09: case 0x21: case 0x29: case 0x31:     /* add/or/and/sub/xor r/m, r */
    return !rm_is_rsp && (m = modrm_len(rm, rest)) ? i + 1 + m : 0;
  case 0x03: case 0x0b: case 0x23: case 0x2b: case 0x33:     /* add/or/and/sub/xor r, r/m */
    return !reg_is_rsp && (m = modrm_len(rm, rest)) ? i + 1 + m : 0;
  case 0x3b: case 0x39: case 0x3a: case 0x38: case 0x85: case 0x84:   /* cmp, test */
    return (m = modrm_len(rm, rest)) ? i + 1 + m : 0;
  case 0x80: case 0x83:                                       /* add/or/and/sub/xor/cmp r/m, imm8 */
    return (!rm_is_rsp || ((rm[0] >> 3) & 7) == 7) && (m = modrm_len(rm, rest)) && m < rest ? i + 2 + m : 0;
  case 0x81:                                                  /* the same with imm32 */
    return !op16 && (!rm_is_rsp || ((rm[0] >> 3) & 7) == 7) && (m = modrm_len(rm, rest)) && m + 4 <= rest
               ? i + 5 + m : 0;
  case 0xc7:                                                  /* mov r/m, imm32 */
    return !op16 && !rm_is_rsp && ((rm[0] >> 3) & 7) == 0 && (m = modrm_len(rm, rest)) && m + 4 <= rest
               ? i + 5 + m : 0;
  case 0xf7:                                                  /* test r/m, imm32 (a class's init state) */
    return !op16 && ((rm[0] >> 3) & 7) == 0 && (m = modrm_len(rm, rest)) && m + 4 <= rest ? i + 5 + m : 0;
  case 0xc1:                                                  /* shl/shr/sar r/m, imm8 */
    return !rm_is_rsp && (m = modrm_len(rm, rest)) && m < rest ? i + 2 + m : 0;
  case 0xff:                                                  /* jmp r/m (a tail jump) */
    return ((rm[0] >> 3) & 7) == 4 && (m = modrm_len(rm, rest)) ? i + 1 + m : 0;
  case 0xf6:                                                  /* test r/m8, imm8 */
    return ((rm[0] >> 3) & 7) == 0 && (m = modrm_len(rm, rest)) && m < rest ? i + 2 + m : 0;
  case 0xeb:
    return rest >= 1 ? i + 2 : 0;                             /* jmp rel8 */
  case 0xe9:
    return rest >= 4 ? i + 5 : 0;                             /* jmp rel32 */
  case 0x0f:
    if (rest < 1)
      return 0;
    if (rm[0] >= 0x80 && rm[0] <= 0x8f)
      return rest >= 5 ? i + 6 : 0;                           /* jcc rel32 */
    if (rm[0] == 0x1f)
      return (m = modrm_len(rm + 1, rest - 1)) ? i + 2 + m : 0;   /* multi-byte nop */
    if (rm[0] == 0xb6 || rm[0] == 0xb7) {                     /* movzx */
      int to_rsp = rest > 1 && ((rm[1] >> 3) & 7) == 4 && !(rex & 0x04);
      return !to_rsp && (m = modrm_len(rm + 1, rest - 1)) ? i + 2 + m : 0;
    }
    return 0;
  default:
    if (op >= 0x70 && op <= 0x7f)
      return rest >= 1 ? i + 2 : 0;                           /* jcc rel8 */
    if (op >= 0xb8 && op <= 0xbf && (rex & 0x08))             /* movabs r64, imm64 */
      return (op & 7) == 4 && !(rex & 0x01) ? 0 : (rest >= 8 ? i + 9 : 0);
    return 0;
  }
}

enum fg_code_flow fg_code_flow_after(const uint8_t *code, size_t len, size_t until, intptr_t *target)
{
  size_t pos = 0, step;
  if (len >= 8 && code[0] == 0x0f && code[1] == 0x1f && code[2] == 0x84 && code[3] == 0x00)
    pos = 8;   /* JDK 21+'s post-call nop (nopl with its data in the displacement) */
  while (pos < until && pos < len && pos < 64) {
    const uint8_t *p = code + pos;
    if (nop_len(p, len - pos))
      return FG_FLOW_ENDED;
    if (p[0] == 0xeb && pos + 2 <= len) {
      *target = (intptr_t)pos + 2 + (int8_t)p[1];
      return FG_FLOW_JUMP;
    }
    if (p[0] == 0xe9 && pos + 5 <= len) {
      int32_t rel;
      memcpy(&rel, p + 1, sizeof rel);
      *target = (intptr_t)pos + 5 + rel;
      return FG_FLOW_JUMP;
    }
    if ((step = keeps_rsp_insn(p, len - pos)) == 0)
      return FG_FLOW_ON;   /* not read on: HotSpot's rule stands */
    pos += step;
  }
  return FG_FLOW_ON;
}

int fg_code_keeps_rsp(const uint8_t *code, size_t len, size_t from, size_t at)
{
  size_t pos = from, step;
  while (pos < at && pos < len && (step = keeps_rsp_insn(code + pos, len - pos)) > 0)
    pos += step;
  return pos == at;
}

int fg_stub_enter_at(const uint8_t *code, size_t len)
{
  for (size_t at = 0; at <= 16 && at + 4 <= len; at++)
    if (code[at] == 0x55 && code[at + 1] == 0x48 &&
        ((code[at + 2] == 0x89 && code[at + 3] == 0xe5) || (code[at + 2] == 0x8b && code[at + 3] == 0xec)) &&
        fg_code_keeps_rsp(code, len, 0, at))
      return (int)at;
  return -1;
}

/* push r64 at p (rbx, r12 ...): its length, or 0. */
static size_t push_reg(const uint8_t *p, size_t left)
{
  if (left >= 1 && p[0] >= 0x50 && p[0] <= 0x57)
    return 1;
  if (left >= 2 && p[0] == 0x41 && p[1] >= 0x50 && p[1] <= 0x57)
    return 2;
  return 0;
}

/* mov R, rsp at p (either encoding, R any 64-bit register but rsp): its
 * length and R's number, or 0. */
static size_t copy_rsp(const uint8_t *p, size_t left, unsigned *reg)
{
  if (left < 3 || (p[0] & 0xfa) != 0x48 || (p[2] >> 6) != 3)
    return 0;
  unsigned modrm_reg = ((p[2] >> 3) & 7) | (p[0] & 0x04 ? 8u : 0u);
  unsigned modrm_rm = (p[2] & 7) | (p[0] & 0x01 ? 8u : 0u);
  if (p[1] == 0x8b && modrm_rm == 4)
    *reg = modrm_reg;   /* mov R, rsp */
  else if (p[1] == 0x89 && modrm_reg == 4)
    *reg = modrm_rm;    /* the same, stored the other way round */
  else
    return 0;
  return *reg == 4 ? 0 : 3;
}

/* mov [rsp + d], R (want_load 0) or mov R, [rsp + d] (want_load 1), with a
 * disp8 or disp32: its length and d, or 0. */
static size_t rsp_slot(const uint8_t *p, size_t left, int want_load, unsigned reg, uint32_t *d)
{
  if (left < 5 || (p[0] & 0xfa) != 0x48 || p[1] != (want_load ? 0x8b : 0x89) || (p[2] & 7) != 4 || p[3] != 0x24)
    return 0;
  if ((((p[2] >> 3) & 7) | (p[0] & 0x04 ? 8u : 0u)) != reg)
    return 0;
  if ((p[2] >> 6) == 1) {
    if ((int8_t)p[4] < 0)
      return 0;
    *d = p[4];
    return 5;
  }
  if ((p[2] >> 6) != 2 || left < 8 || imm32(p + 4) < 0)
    return 0;
  *d = (uint32_t)imm32(p + 4);
  return 8;
}

int fg_realigned_frame_of(const uint8_t *code, size_t len, size_t enter, struct fg_realigned_frame *out)
{
  memset(out, 0, sizeof *out);
  size_t pos = enter + 4, step;   /* after push rbp; mov rbp, rsp */
  uint32_t above = 0, n, d, align;
  unsigned reg;
  if (pos > len)
    return -1;
  if ((step = sub_rsp(code + pos, len - pos, &n)) > 0) {
    above += n;
    pos += step;
  }
  while ((step = push_reg(code + pos, len - pos)) > 0) {
    above += 8;
    pos += step;
  }
  if (!(step = copy_rsp(code + pos, len - pos, &reg)))
    return -1;
  pos += step;
  if (!(step = sub_rsp(code + pos, len - pos, &n)))
    return -1;
  pos += step;
  /* and rsp, -A */
  if (pos + 4 > len || code[pos] != 0x48 || code[pos + 1] != 0x83 || code[pos + 2] != 0xe4 || (int8_t)code[pos + 3] >= 0)
    return -1;
  align = (uint32_t)-(int32_t)(int8_t)code[pos + 3];
  pos += 4;
  if (!(step = rsp_slot(code + pos, len - pos, 0, reg, &d)) || d + 8 > n || (align & (align - 1)))
    return -1;
  pos += step;
  size_t from = pos;
  /* the reload: mov rsp, [rsp + d]; the first one ends the range (a later
   * exit path is left out: no guess there) */
  for (; pos + 5 <= len; pos++) {
    uint32_t at;
    if (rsp_slot(code + pos, len - pos, 1, 4, &at) && at == d)
      break;
  }
  uint32_t at;
  size_t reload = pos + 5 <= len ? rsp_slot(code + pos, len - pos, 1, 4, &at) : 0;
  if (!reload || pos + reload > UINT16_MAX || above > UINT16_MAX || d > UINT16_MAX)
    return -1;
  *out = (struct fg_realigned_frame){(uint16_t)from, (uint16_t)pos, (uint16_t)d, (uint16_t)above,
                                     (uint16_t)(pos + reload), 0, 0};
  /* the pops after it: pop r (0x58 + r) or pop r8..r15 (0x41, 0x58 + r), up to pop rbp */
  for (size_t e = pos + reload; out->exit_pops < 8 && e < len;) {
    int wide = code[e] == 0x41 && e + 1 < len;
    uint8_t op = code[e + (size_t)wide];
    if (op < 0x58 || op > 0x5f)
      break;
    out->exit_wide |= (uint8_t)(wide << out->exit_pops);
    out->exit_pops++;
    e += 1 + (size_t)wide;
    if (!wide && op == 0x5d)
      break;   /* pop rbp: the frame pointer again from here */
  }
  return 0;
}

int fg_realigned_pops_done(const struct fg_realigned_frame *f, size_t off)
{
  size_t at = f->exit_from;
  for (int k = 0; k < f->exit_pops; k++) {
    if (off == at)
      return k;
    at += 1 + (size_t)((f->exit_wide >> k) & 1);
  }
  return -1;
}

size_t fg_c2i_tail(const uint8_t *code, size_t len, size_t from)
{
  static const uint8_t pop_then_mov[] = {0x58, 0x4c, 0x8b, 0xec};        /* pop rax; mov r13, rsp */
  static const uint8_t lea_then_pop[] = {0x4c, 0x8d, 0x6c, 0x24, 0x08, 0x58};   /* lea r13, [rsp + 8]; pop rax */
  for (size_t at = from; at < len && at < 4096; at++) {
    if (bytes_are(code, len, at, pop_then_mov, sizeof pop_then_mov))
      return at + sizeof pop_then_mov;
    if (bytes_are(code, len, at, lea_then_pop, sizeof lea_then_pop))
      return at + 5;
  }
  return 0;
}

size_t fg_i2c_end(const uint8_t *code, size_t len)
{
  for (size_t at = 0; at + 3 <= len && at < 256; at++)
    if (code[at] == 0x41 && code[at + 1] == 0xff && code[at + 2] == 0xe3)
      return at + 3;
  return 0;
}
