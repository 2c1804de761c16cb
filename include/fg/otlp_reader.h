/* Reads OpenTelemetry's profiles signal (a ProfilesData message, the
 * v1development profiles.proto, as fgagent's .otlp files hold it) into a
 * profile: each Profile's samples under their stacks (leaf first in the
 * file, root first in the profile) and threads ("thread.id",
 * "thread.name"), each value with its timestamp in the timeline when the
 * sample has one. A Profile's sample type says its event: bytes are
 * allocations, "delay"/"lock" nanoseconds lock waits, anything else CPU
 * (nanoseconds with a period of nanoseconds become samples of it).
 * A pure decoder over a byte buffer: every read bounds-checked, every count
 * taken from what the bytes hold, the frames it builds at most a fixed
 * multiple of the input's size; a corrupt file is one error line. */
#ifndef FG_OTLP_READER_H
#define FG_OTLP_READER_H

#include <stddef.h>
#include <stdint.h>

struct fg_profile;

/* Adds the len bytes of the message named source (for messages) to p, which
 * must be initialised. 0, or -1 with "SOURCE: byte N: what is wrong" in err
 * (what was read before stays in p). A message with no sample is an error. */
int fg_parse_otlp(const uint8_t *data, size_t len, const char *source, struct fg_profile *p, char *err,
                  size_t errlen);

#endif
