/* The rules of option `verify`; see call_site.h. The class-file layout is
 * JVMS chapter 4.4 (constant pool) and 6.5 (the invoke instructions). */
#include "verify/call_site.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  CP_UTF8 = 1, CP_INTEGER = 3, CP_FLOAT = 4, CP_LONG = 5, CP_DOUBLE = 6, CP_CLASS = 7,
  CP_STRING = 8, CP_FIELDREF = 9, CP_METHODREF = 10, CP_INTERFACE_METHODREF = 11,
  CP_NAME_AND_TYPE = 12, CP_METHOD_HANDLE = 15, CP_METHOD_TYPE = 16, CP_DYNAMIC = 17,
  CP_INVOKE_DYNAMIC = 18, CP_MODULE = 19, CP_PACKAGE = 20,
};

enum {
  OP_INVOKEVIRTUAL = 0xb6, OP_INVOKESPECIAL = 0xb7, OP_INVOKESTATIC = 0xb8,
  OP_INVOKEINTERFACE = 0xb9, OP_INVOKEDYNAMIC = 0xba,
};

#define NO_ENTRY UINT32_MAX

static uint32_t u2(const uint8_t *p)
{
  return (uint32_t)p[0] << 8 | p[1];
}

/* Bytes after the tag, or 0 for an unknown tag. */
static size_t entry_size(const uint8_t *p, size_t left)
{
  switch (p[0]) {
  case CP_UTF8: return left >= 3 ? 2 + u2(p + 1) : 0;
  case CP_INTEGER: case CP_FLOAT: case CP_FIELDREF: case CP_METHODREF: case CP_INTERFACE_METHODREF:
  case CP_NAME_AND_TYPE: case CP_DYNAMIC: case CP_INVOKE_DYNAMIC: return 4;
  case CP_LONG: case CP_DOUBLE: return 8;
  case CP_CLASS: case CP_STRING: case CP_METHOD_TYPE: case CP_MODULE: case CP_PACKAGE: return 2;
  case CP_METHOD_HANDLE: return 3;
  default: return 0;
  }
}

int fg_cpool_parse(struct fg_cpool *cp, const uint8_t *bytes, size_t len, uint32_t count)
{
  memset(cp, 0, sizeof *cp);
  if (count == 0)
    return -1;
  cp->offset = malloc(count * sizeof *cp->offset);
  if (!cp->offset)
    return -1;
  cp->bytes = bytes;
  cp->len = len;
  cp->count = count;
  cp->offset[0] = NO_ENTRY;
  size_t pos = 0;
  for (uint32_t i = 1; i < count; i++) {
    size_t size = pos < len ? entry_size(bytes + pos, len - pos) : 0;
    if (size == 0 || pos + 1 + size > len) {
      fg_cpool_free(cp);
      return -1;
    }
    cp->offset[i] = (uint32_t)pos;
    if (bytes[pos] == CP_LONG || bytes[pos] == CP_DOUBLE) {   /* takes two slots */
      if (++i < count)
        cp->offset[i] = NO_ENTRY;
    }
    pos += 1 + size;
  }
  return 0;
}

void fg_cpool_free(struct fg_cpool *cp)
{
  free(cp->offset);
  memset(cp, 0, sizeof *cp);
}

/* Entry i if it has the tag, else NULL. */
static const uint8_t *entry(const struct fg_cpool *cp, uint32_t i, int tag)
{
  if (i == 0 || i >= cp->count || cp->offset[i] == NO_ENTRY || cp->bytes[cp->offset[i]] != tag)
    return NULL;
  return cp->bytes + cp->offset[i];
}

static int utf8_at(const struct fg_cpool *cp, uint32_t i, char *out, size_t outlen)
{
  const uint8_t *e = entry(cp, i, CP_UTF8);
  if (!e)
    return -1;
  size_t n = u2(e + 1);
  snprintf(out, outlen, "%.*s", (int)n, (const char *)e + 3);
  return 0;
}

/* Name (and class, for a method ref) of the method a Methodref,
 * InterfaceMethodref or InvokeDynamic entry names. */
static int method_of(const struct fg_cpool *cp, uint32_t i, struct fg_call_site *site)
{
  const uint8_t *e = entry(cp, i, CP_METHODREF);
  if (!e)
    e = entry(cp, i, CP_INTERFACE_METHODREF);
  const uint8_t *nat;
  if (e) {
    const uint8_t *cls = entry(cp, u2(e + 1), CP_CLASS);
    if (!cls || utf8_at(cp, u2(cls + 1), site->target_class, sizeof site->target_class) != 0)
      return -1;
    nat = entry(cp, u2(e + 3), CP_NAME_AND_TYPE);
  } else if ((e = entry(cp, i, CP_INVOKE_DYNAMIC)) != NULL) {
    nat = entry(cp, u2(e + 3), CP_NAME_AND_TYPE);
  } else {
    return -1;
  }
  return nat ? utf8_at(cp, u2(nat + 1), site->target, sizeof site->target) : -1;
}

int fg_call_site_at(const uint8_t *code, size_t len, int32_t bci, const struct fg_cpool *cp,
                    struct fg_call_site *site)
{
  memset(site, 0, sizeof *site);
  if (bci < 0 || (size_t)bci >= len)
    return -1;
  site->opcode = code[bci];
  if (site->opcode < OP_INVOKEVIRTUAL || site->opcode > OP_INVOKEDYNAMIC)
    return 0;   /* no invoke: only the VM can call from here */
  if ((size_t)bci + 2 >= len)
    return -1;
  return method_of(cp, u2(code + bci + 1), site);
}

/* Bytes of each instruction by opcode (JVM specification, chapter 6); 0:
 * variable (the switches, wide) or not an opcode. */
static const uint8_t LENGTH[256] = {
  [0x00 ... 0x0f] = 1, [0x10] = 2, [0x11] = 3, [0x12] = 2, [0x13 ... 0x14] = 3, [0x15 ... 0x19] = 2,
  [0x1a ... 0x35] = 1, [0x36 ... 0x3a] = 2, [0x3b ... 0x83] = 1, [0x84] = 3, [0x85 ... 0x98] = 1,
  [0x99 ... 0xa8] = 3, [0xa9] = 2, [0xac ... 0xb1] = 1, [0xb2 ... 0xb8] = 3, [0xb9 ... 0xba] = 5,
  [0xbb] = 3, [0xbc] = 2, [0xbd] = 3, [0xbe ... 0xbf] = 1, [0xc0 ... 0xc1] = 3, [0xc2 ... 0xc3] = 1,
  [0xc5] = 4, [0xc6 ... 0xc7] = 3, [0xc8 ... 0xc9] = 5,
};

static uint32_t u4(const uint8_t *p)
{
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

size_t fg_bytecode_length(const uint8_t *code, size_t len, size_t bci)
{
  if (bci >= len)
    return 0;
  uint8_t op = code[bci];
  size_t n = LENGTH[op];
  if (op == 0xc4)   /* wide: iinc's two operands, else one, each two bytes */
    n = bci + 1 < len && code[bci + 1] == 0x84 ? 6 : 4;
  if (op == 0xaa || op == 0xab) {   /* tableswitch, lookupswitch: padded to 4 from the code's start */
    size_t at = (bci + 4) & ~(size_t)3;   /* the default offset */
    if (at + 12 > len)
      return 0;
    int64_t low = (int32_t)u4(code + at + 4), high = (int32_t)u4(code + at + 8);
    uint64_t entries = op == 0xaa ? (uint64_t)(high - low + 1) : (uint64_t)u4(code + at + 4) * 2;
    if ((op == 0xaa && high < low) || entries > len)
      return 0;
    n = at - bci + (op == 0xaa ? 12 : 8) + (size_t)entries * 4;
  }
  return n && bci + n <= len ? n : 0;
}

int fg_call_site_each(const uint8_t *code, size_t len, const struct fg_cpool *cp,
                      int (*on_invoke)(const struct fg_call_site *site, void *ctx), void *ctx)
{
  for (size_t bci = 0, n; bci < len; bci += n) {
    if (!(n = fg_bytecode_length(code, len, bci)))
      return -1;
    struct fg_call_site site;
    if (code[bci] >= OP_INVOKEVIRTUAL && code[bci] <= OP_INVOKEINTERFACE &&
        fg_call_site_at(code, len, (int32_t)bci, cp, &site) == 0) {
      int rc = on_invoke(&site, ctx);
      if (rc)
        return rc;
    }
  }
  return 0;
}

int fg_is_copy(const char *name)
{
  return strcmp(name, "arraycopy") == 0 || strncmp(name, "copyOf", 6) == 0;
}

static int starts(const char *s, const char *prefix)
{
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int ends(const char *s, const char *suffix)
{
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Code the JVM generates between a call and its target: lambda forms, method
 * handle adapters, lambda proxies. */
static int generated(const char *cls)
{
  return starts(cls, "java/lang/invoke/") || strstr(cls, "$$Lambda") || strstr(cls, "LambdaForm$");
}

/* Methods the VM itself calls at an instruction that is no call of them:
 * class initialisation (new, getstatic, putstatic, invokestatic), class
 * loading when an entry is resolved, call-site linkage, JFR's upcalls, the
 * construction of an implicit exception (null check, division, array index,
 * cast, stack overflow). Exceptions are told by their class name. */
static int vm_called(const char *callee, const char *cls)
{
  static const char *const loading[] = {"loadClass", "loadClassInternal", "checkPackageAccess"};
  if (strcmp(callee, "<clinit>") == 0)
    return 1;
  for (size_t i = 0; i < sizeof loading / sizeof loading[0]; i++)
    if (strcmp(callee, loading[i]) == 0)
      return 1;
  /* the VM's upcalls: call-site linkage, and JFR's class instrumentation as
   * a class is loaded (JVMUpcalls, "called by the JVM" each) */
  if (strcmp(cls, "java/lang/invoke/MethodHandleNatives") == 0 || strcmp(cls, "jdk/jfr/internal/JVMUpcalls") == 0)
    return 1;
  if ((strcmp(callee, "<init>") == 0 || strcmp(callee, "fillInStackTrace") == 0) &&
      (ends(cls, "Exception") || ends(cls, "Error") || strcmp(cls, "java/lang/Throwable") == 0))
    return 1;
  return 0;
}

enum fg_edge_verdict fg_edge_verdict_of(const struct fg_call_site *site, const char *callee,
                                        const char *callee_class)
{
  if (site->opcode == OP_INVOKEDYNAMIC)
    return FG_EDGE_DYNAMIC;
  if (site->target[0]) {
    if (strcmp(site->target, callee) == 0)
      return FG_EDGE_CALL;
    if (strcmp(site->target_class, "java/lang/invoke/MethodHandle") == 0 ||
        strcmp(site->target_class, "java/lang/invoke/VarHandle") == 0 || generated(callee_class))
      return FG_EDGE_DYNAMIC;
  }
  return vm_called(callee, callee_class) ? FG_EDGE_VM : FG_EDGE_WRONG;
}

int fg_stub_edge_is_copy(const struct fg_call_site *site, const char *stub)
{
  if (!strstr(stub, "arraycopy"))
    return -1;
  return fg_is_copy(site->target);
}

const char *fg_opcode_name(uint8_t opcode, char *buf, size_t len)
{
  static const struct { uint8_t op; const char *name; } names[] = {
    {0xb2, "getstatic"}, {0xb3, "putstatic"}, {0xb4, "getfield"}, {0xb5, "putfield"},
    {0xb6, "invokevirtual"}, {0xb7, "invokespecial"}, {0xb8, "invokestatic"},
    {0xb9, "invokeinterface"}, {0xba, "invokedynamic"}, {0xbb, "new"}, {0xbc, "newarray"},
    {0xbd, "anewarray"}, {0xbf, "athrow"}, {0xc0, "checkcast"}, {0xc1, "instanceof"},
    {0xc2, "monitorenter"}, {0xc3, "monitorexit"}, {0x12, "ldc"}, {0x13, "ldc_w"},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (names[i].op == opcode)
      return names[i].name;
  snprintf(buf, len, "op 0x%02x", opcode);
  return buf;
}
