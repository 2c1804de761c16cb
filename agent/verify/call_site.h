/* The oracle of option `verify`: is a sampled Java edge caller -> callee a
 * call the caller's bytecode can make at the sampled bci? Pure functions of
 * the class file's bytes (JVMTI GetBytecodes and GetConstantPool give them),
 * unit-tested without a JVM; agent/verify/edge_verifier.c feeds them. */
#ifndef FG_CALL_SITE_H
#define FG_CALL_SITE_H

#include <stddef.h>
#include <stdint.h>

/* A constant pool in class-file form: offsets of each entry's tag. */
struct fg_cpool {
  const uint8_t *bytes;
  size_t len;
  uint32_t count;       /* constant_pool_count: valid indexes are 1 .. count-1 */
  uint32_t *offset;     /* offset[i]: entry i's tag byte; UINT32_MAX for the unusable slot after a long/double */
};

/* Indexes the pool (count as GetConstantPool gives it). 0, or -1 when the
 * bytes are not a well-formed pool (an unknown tag, an entry past the end).
 * fg_cpool_free releases what it allocated. */
int fg_cpool_parse(struct fg_cpool *cp, const uint8_t *bytes, size_t len, uint32_t count);
void fg_cpool_free(struct fg_cpool *cp);

enum fg_edge_verdict {
  FG_EDGE_CALL,       /* an invoke of a method of the callee's name */
  FG_EDGE_DYNAMIC,    /* invokedynamic, a method handle's invoke, or generated code: any callee */
  FG_EDGE_VM,         /* the VM calls in at this instruction: class init or loading, an implicit exception */
  FG_EDGE_WRONG,      /* no way for this instruction to call the callee */
};

struct fg_call_site {
  uint8_t opcode;               /* the instruction at bci */
  char target[128];             /* the invoke's method name, "" when it is no invoke */
  char target_class[128];       /* its class, internal form ("java/lang/String") */
};

/* Reads the instruction at bci of code and, for an invoke, its target. 0,
 * or -1 when bci is outside the code or the target cannot be read. */
int fg_call_site_at(const uint8_t *code, size_t len, int32_t bci, const struct fg_cpool *cp,
                    struct fg_call_site *site);

/* The verdict for callee (its name and class, internal form) called from
 * the instruction site. */
enum fg_edge_verdict fg_edge_verdict_of(const struct fg_call_site *site, const char *callee,
                                        const char *callee_class);

/* An arraycopy stub (HotSpot's jbyte_disjoint_arraycopy, ...) under a Java
 * frame: 1 when the caller's instruction is an invoke of a copy
 * (System.arraycopy, Arrays.copyOf*), 0 when it is other code the JIT put
 * a copy into (string concatenation, a collection's growth inlined), -1
 * when the stub is no arraycopy stub (not judged). */
int fg_stub_edge_is_copy(const struct fg_call_site *site, const char *stub);

/* Whether a method of that name is a copy: System.arraycopy, Arrays.copyOf*. */
int fg_is_copy(const char *name);

/* The length of the instruction at bci (the switches' padding and wide
 * included); 0 when it is no instruction or runs past len. */
size_t fg_bytecode_length(const uint8_t *code, size_t len, size_t bci);

/* on_invoke for each invokevirtual, invokespecial, invokestatic and
 * invokeinterface of code, in order, until it returns non-zero (returned).
 * 0 at the end; -1 when an instruction cannot be read. */
int fg_call_site_each(const uint8_t *code, size_t len, const struct fg_cpool *cp,
                      int (*on_invoke)(const struct fg_call_site *site, void *ctx), void *ctx);

/* "invokevirtual", "new", ...: the opcode's mnemonic for messages, or "op 0xNN". */
const char *fg_opcode_name(uint8_t opcode, char *buf, size_t len);

#endif
