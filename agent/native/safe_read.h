/* Reads of this process's memory that cannot fault: process_vm_readv
 * fails with EFAULT where a plain load would raise SIGSEGV. For memory
 * another thread may unmap meanwhile (a JNI library unloaded with its
 * class loader, a thread's stack as it ends, a compiled method's C-heap
 * data freed with it). A system call each: not for signal handlers' hot
 * paths. */
#ifndef FG_SAFE_READ_H
#define FG_SAFE_READ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>
#include <unistd.h>

/* 1 when all n bytes at addr were copied to out, else 0. */
static inline int fg_safe_read(uintptr_t addr, void *out, size_t n)
{
  struct iovec local = {out, n}, remote = {(void *)addr, n};
  return n == 0 || process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)n;
}

#endif
