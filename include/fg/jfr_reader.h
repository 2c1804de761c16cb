/* Reads a JDK Flight Recorder file (the JDK's own, -XX:StartFlightRecording
 * or jcmd JFR.start, and fgagent's) into a profile: its CPU samples
 * (jdk.ExecutionSample), allocation samples (jdk.ObjectAllocationSample,
 * by weight, the class allocated as the leaf frame) and lock waits
 * (jdk.JavaMonitorEnter and jdk.ThreadPark, by duration, the lock's class as
 * the leaf), and async-profiler's alloc samples (jdk.ObjectAllocationInNewTLAB,
 * OutsideTLAB) and wall-clock samples (profiler.WallClockSample), one source
 * a recording for each (jfr_reader.c's choose_sources; what it left out in
 * stats.event_detail), each under its thread, with its time in the timeline when the
 * profile keeps one. Every chunk of the file is read; types are read from
 * each chunk's metadata, so fields a JDK adds are skipped, not misread.
 * A pure decoder over a byte buffer, bounds-checked at every read: a
 * truncated or corrupt file is one error line naming the byte, never a
 * crash; a file of N bytes takes O(N log N) time and O(N) memory, whatever
 * it holds (what the profile is built of beyond the file's bytes is at most
 * 32 times N plus 64 MB, past which the file is refused). */
#ifndef FG_JFR_READER_H
#define FG_JFR_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fg_profile;

/* Whether data starts like a JFR file ("FLR\0"). */
int fg_is_jfr(const uint8_t *data, size_t len);

/* What fg_parse_jfr is asked for: FG_JFR_LINES, a Java frame named at its
 * line ("pkg/C.m:42") and interned at its bytecode index
 * (fg_profile_intern_at); FG_JFR_WALL, the cpu event read from the
 * recording's wall-clock samples (profiler.WallClockSample) where it holds
 * jdk.ExecutionSamples too (async-profiler's event=cpu,wall=...). A bool
 * true is FG_JFR_LINES. */
#define FG_JFR_LINES 1u
#define FG_JFR_WALL 2u

/* Adds the len bytes of the recording named source (for messages) to p,
 * which must be initialised, read as flags say. 0, or -1 with "SOURCE: what is wrong" in err
 * (what was read before stays in p). A recording with none of the events
 * above is an error too. */
int fg_parse_jfr(const uint8_t *data, size_t len, const char *source, unsigned flags, struct fg_profile *p, char *err,
                 size_t errlen);

#endif
