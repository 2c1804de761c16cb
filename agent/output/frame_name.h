/* The parts of a frame name that outputs with a structured frame (pprof's
 * Function and Line, JFR's Method, Class and Package) need. */
#ifndef FG_FRAME_NAME_H
#define FG_FRAME_NAME_H

#include <stddef.h>
#include <stdint.h>

/* "pkg/C.m:42" -> function "pkg/C.m", line 42; else the whole name, line 0. */
int64_t fg_frame_split_line(const char *name, char *function, size_t len);

/* A Java method's parts, views into the function name given (not NUL-ended). */
struct fg_java_name {
  const char *cls, *method, *package;
  size_t cls_len, method_len, package_len;
};

/* "pkg/sub/C$In.m" -> class "pkg/sub/C$In", method "m", package "pkg/sub"
 * (a hidden class "pkg/C$$Lambda$14/0x..." is in "pkg"). 0, or -1 when the
 * name has no class part (a C symbol, a marker): then method is the whole name. */
int fg_frame_split_java(const char *function, struct fg_java_name *out);

#endif
