/* How many events a .jfr written from a profile holds, and how many fgprof
 * convert lets a .jfr have for the input it read: JFR's jdk.ExecutionSample
 * has no weight, so the writer (agent/output/jfr.c) writes a CPU stack's
 * count as that many events, and a count read from a file (a collapsed line
 * 'a;b 9007199254740991') is a claim, not samples taken: written as it
 * says, a 20-byte line would take years and petabytes. The bound keeps the
 * time and memory of the write in proportion to the input's bytes. */
#ifndef FG_JFR_EVENTS_H
#define FG_JFR_EVENTS_H

#include <stdint.h>

struct fg_profile;

#define FG_JFR_EVENTS_FLOOR (1ull << 22)   /* whatever the input: about 60 MB of .jfr */
#define FG_JFR_EVENTS_PER_BYTE 16          /* more: a JDK recording's sample is over 10 bytes of it */

/* The events fg_write_jfr writes for p: a CPU sample's each, one per other
 * event's timeline entry and stack. */
uint64_t fg_jfr_events(const struct fg_profile *p);

/* The most events a .jfr converted from input_bytes of input may hold. */
uint64_t fg_jfr_events_bound(uint64_t input_bytes);

#endif
