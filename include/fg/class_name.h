/* A Java class's name in the forms fgagent meets: the JVM's signature
 * ("Ljava/lang/String;", "[B", "[[Ljava/lang/Object;"), the name a frame
 * shows ("java/lang/String", "byte[]", "java/lang/Object[][]": a class
 * written as in fgagent's method frames, an array as Java writes it), and
 * JFR's binary name ("java/lang/String", "[B", "[[Ljava/lang/Object;").
 * Pure: the allocation and lock profilers' leaf frames, the .jfr writer that
 * turns them back into classes, and the .jfr reader. */
#ifndef FG_CLASS_NAME_H
#define FG_CLASS_NAME_H

#include <stddef.h>

/* The frame name of a JVM class signature into out; -1 when it is not one
 * or out is too small. */
int fg_class_frame_name(const char *signature, char *out, size_t outlen);
/* JFR's name of a class frame name (fg_class_frame_name's inverse, but for
 * a plain class's 'L' and ';', which JFR leaves out): -1 when out is too small. */
int fg_class_jfr_name(const char *frame, char *out, size_t outlen);

#endif
