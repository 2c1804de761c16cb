/* fgprof's help: one text a command, printed by `fgprof COMMAND --help` and,
 * all of them, by `fgprof --help`. Every option a command's parser accepts has
 * a line of its own here starting "  --NAME", and an entry in that command's
 * section of docs/fgprof.1: scripts/check-man-page.sh holds the three to one
 * another. */
#include <stdio.h>
#include <string.h>

#include "commands.h"

static const char convert_help[] =
  "fgprof convert [OPTIONS] IN OUT\n"
  "\n"
  "Reads IN ('-' for standard input): collapsed stacks, one 'frame;frame;... count'\n"
  "line per stack, root first, as fgagent, async-profiler and flamegraph.pl's\n"
  "stackcollapse scripts write them; or a JDK Flight Recorder recording (the JDK's\n"
  "own, -XX:StartFlightRecording or jcmd JFR.start, async-profiler's or fgagent's):\n"
  "its CPU samples (jdk.ExecutionSample), allocation samples\n"
  "(jdk.ObjectAllocationSample, in bytes), lock waits (jdk.JavaMonitorEnter,\n"
  "jdk.ThreadPark, in nanoseconds), async-profiler's alloc, wall, live and\n"
  "nativemem events and fgagent's kernel events, --event choosing which; or\n"
  "OpenTelemetry profiles (a file named .otlp).\n"
  "Writes OUT in the format its extension names:\n"
  "  .html              interactive flame graph, one self-contained file\n"
  "  .collapsed .folded collapsed stacks\n"
  "  .txt               call graph in the style of ftrace's function_graph tracer\n"
  "  .pb.gz .pprof      pprof profile.proto, gzip'd (go tool pprof)\n"
  "  .speedscope.json   speedscope's file format\n"
  "  .jfr               JDK Flight Recorder (jfr print, JMC): collapsed stacks carry no\n"
  "                     times, so every sample is an event at IN's modification time\n"
  "  .otlp              OpenTelemetry profiles: a Profile for each event IN holds\n"
  "                     (or --event's), threads and times per sample\n"
  "  .heatmap.html      the heatmap of every timed sample of IN (fgprof heatmap)\n"
  "OUT is written to a temporary file and renamed into place: a failed run leaves\n"
  "no half-written OUT. A %e in OUT writes a file for each event IN holds (or\n"
  "--event's), %e its name: fgprof convert rec.jfr rec-%e.html\n"
  "A root frame '[name tid=N]' (fgagent's threads option, async-profiler's -t)\n"
  "splits the profile per thread. Frame suffixes _[j] _[1] (compiled), _[i]\n"
  "(inlined), _[0] (interpreted) and _[k] (kernel) set the frame kind the flame\n"
  "graph colours by, and are removed from the name.\n"
  "Options:\n"
  "  --title TEXT       title of the flame graph or speedscope profile\n"
  "  --include REGEX    keep only stacks with a frame matching REGEX (POSIX extended)\n"
  "  --exclude REGEX    then drop stacks with a frame matching REGEX\n"
  "  --reverse          reverse every stack: leaf first, callers above it\n"
  "  --minwidth PCT     flame graph: leave out frames under PCT percent of all samples\n"
  "  --interval TIME    the sampling interval behind IN (10ms, 250us), so the call\n"
  "                     graph, pprof and speedscope show time, not only samples\n"
  "  --event E          a recording's cpu, alloc, lock, live, nativemem, nativelock\n"
  "                     or kernel events (default: the first it has); wall:\n"
  "                     async-profiler's wall-clock samples as cpu, where it has both\n"
  "  --leak             a recording's nativemem allocations not freed by its end\n"
  "                     (async-profiler's profiler.Free events matched by address)\n"
  "  --threads          a recording's stacks split per thread, '[name tid=N]' roots\n"
  "  --lines            a recording's Java frames at their source lines (pkg/C.m:42);\n"
  "                     a .jfr OUT keeps their bytecode indexes too\n"
  "  --from T           a recording's samples from T (.jfr, .otlp): a time after its\n"
  "                     start (2.5s, 1m30s), before its end (-10s), a local time of\n"
  "                     day (14:03:10) or a date and time (2026-12-06T14:03:10Z)\n"
  "  --to T             ... up to T; either alone runs to the start or the end\n"
  "Exit status: 0 done, 2 an error (nothing written), 4 a recording (.jfr, .otlp)\n"
  "cut short or corrupt (a JVM that crashed): OUT holds what was read before the\n"
  "bad byte, which one line on standard error names.\n"
  "Examples:\n"
  "  fgprof convert app.collapsed app.html\n"
  "  fgprof convert --include 'com/acme/' --title checkout app.collapsed checkout.html\n"
  "  fgprof convert --interval 10ms async-profiler.txt profile.pb.gz\n"
  "  fgprof convert --event alloc recording.jfr allocations.html\n";

static const char diff_help[] =
  "fgprof diff [OPTIONS] BASE NEW\n"
  "fgprof diff [OPTIONS] --base FILE... --new FILE...\n"
  "\n"
  "Compares two sets of runs (collapsed stacks or recordings, one file a run)\n"
  "frame by frame: each frame's self share (samples with it on top / all\n"
  "samples). With two or more runs a side, Welch's t-test over the runs' shares,\n"
  "so run-to-run noise is measured; with one run a side, a two-proportion z-test\n"
  "over the sample counts. A frame counts as slower (a regression) or faster when\n"
  "its share changed by at least --threshold percent and --min-change points, with\n"
  "p below --alpha; a frame found only in NEW counts as slower, one found only in\n"
  "BASE as faster, unless a new and a gone frame of the same method or class look\n"
  "like a rename.\n"
  "Options:\n"
  "  --base FILE...     the runs before the change (the files up to --new)\n"
  "  --new FILE...      the runs after the change\n"
  "  --threshold PCT    least relative change of a self share that counts (10)\n"
  "  --min-change PTS   least absolute change, in percentage points (0.5)\n"
  "  --alpha A          significance level (0.01)\n"
  "  --json             the verdict as JSON on standard output, for machines\n"
  "  --html OUT         a differential flame graph: NEW's shape, red where a frame\n"
  "                     grew, blue where it shrank; hovering shows both shares\n"
  "  --title TEXT       the differential flame graph's title\n"
  "  --event E          a recording's events to compare, as for convert (cpu, alloc,\n"
  "                     lock, live, ...; default: the first each has)\n"
  "  --from T           NEW's samples from T (a recording's; T as for convert)\n"
  "  --to T             NEW's samples up to T\n"
  "  --base-from T      BASE's samples from T: two ranges of one recording compared\n"
  "  --base-to T        BASE's samples up to T\n"
  "Exit status: 0 no regression, 1 a regression, 2 an error.\n"
  "Examples:\n"
  "  fgprof diff --base main-*.collapsed --new branch-*.collapsed --html diff.html\n"
  "  fgprof diff --base-to 60s --from 14:03 --to 14:04 rec.jfr rec.jfr\n";

static const char heatmap_help[] =
  "fgprof heatmap [OPTIONS] IN OUT.html\n"
  "\n"
  "Writes one self-contained page of every sample of a recording over time (a .jfr\n"
  "of fgagent, the JDK or async-profiler, or an .otlp file): squares of time\n"
  "coloured by their samples at three scales, an event switch, a thread filter and\n"
  "a search; a click or a drag draws a range's flame graph, Shift+drag a baseline\n"
  "range for the differential view.\n"
  "Options:\n"
  "  --from T           only the samples from T (T as for convert: 2.5s, -10s,\n"
  "                     14:03:10, 2026-12-06T14:03:10)\n"
  "  --to T             only the samples up to T\n"
  "  --title TEXT       the page's title\n"
  "Exit status: 0 done, 2 an error, 4 a recording cut short (the page holds what\n"
  "was read before the bad byte).\n"
  "Example:\n"
  "  fgprof heatmap rec.jfr rec.heatmap.html\n";

static const char profile_help[] =
  "fgprof profile [OPTIONS] --file OUT PID\n"
  "\n"
  "Loads fgagent into the running HotSpot JVM PID (no restart, no Java needed\n"
  "here), profiles it for --duration (or until Ctrl-C), writes OUT in the format\n"
  "its extension names, and leaves the JVM running with the agent idle.\n"
  "Options:\n"
  "  --file OUT         the profile to write (.html, .jfr, .collapsed, ... as convert)\n"
  "  --duration TIME    how long to profile (30s; 500ms, 2m, 1h)\n"
  "  --interval TIME    the sampling interval (1ms here; the agent's own default is\n"
  "                     10ms)\n"
  "  --event LIST       cpu, wall or itimer, and alloc[=SIZE], live,\n"
  "                     lock[=DURATION], nativemem[=SIZE], leak,\n"
  "                     nativelock[=DURATION] and up to 4 kernel events\n"
  "                     (page-faults, sched:sched_switch, ...), separated by\n"
  "                     commas (cpu)\n"
  "  --threads          the profile split per thread\n"
  "  --agent LIB        the libfgagent.so to load (default: beside fgprof, in\n"
  "                     ../lib, or $FGAGENT_LIB)\n"
  "  --timeout TIME     how long to wait for the JVM to answer (10s; a stop the\n"
  "                     agent is writing is waited for up to 10 min more)\n"
  "Exit status: 0 done, 1 the agent refused the command, 2 the JVM cannot be\n"
  "reached (no such process, another user's, not a HotSpot JVM,\n"
  "-XX:+DisableAttachMechanism, no answer), 3 the JVM is exiting or exited.\n"
  "Example:\n"
  "  fgprof profile --duration 30s --file checkout.html $(pgrep -f checkout.jar)\n";

static const char attach_help[] =
  "fgprof attach [OPTIONS] PID COMMAND[,OPTIONS]\n"
  "\n"
  "Sends one command to the agent in the JVM PID, loading it if need be:\n"
  "  start[,OPTIONS]    start profiling; OPTIONS as after -agentpath:libfgagent.so=\n"
  "  stop               write the outputs and the summary, go idle\n"
  "  dump               write the outputs now and go on profiling\n"
  "  status             one line: profiling or idle, event, interval, samples\n"
  "The same commands work through the JDK's own tool:\n"
  "  jcmd PID JVMTI.agent_load /path/libfgagent.so '\"start,file=/tmp/p.html\"'\n"
  "Options:\n"
  "  --agent LIB        the libfgagent.so to load (default: beside fgprof, in\n"
  "                     ../lib, or $FGAGENT_LIB)\n"
  "  --timeout TIME     how long to wait for the JVM to answer (10s; a stop or dump\n"
  "                     the agent is writing is waited for up to 10 min more)\n"
  "Exit status: 0 done, 1 the agent refused the command, 2 the JVM cannot be\n"
  "reached (as for profile), 3 the JVM is exiting or exited.\n"
  "Examples:\n"
  "  fgprof attach 4242 start,interval=1ms,file=/tmp/p.collapsed\n"
  "  fgprof attach 4242 stop\n";

static const struct {
  const char *name, *text;
} commands[] = {
  {"convert", convert_help}, {"diff", diff_help}, {"heatmap", heatmap_help},
  {"profile", profile_help}, {"attach", attach_help},
};

int fg_cli_help(const char *command, FILE *out)
{
  size_t n = sizeof commands / sizeof commands[0];
  if (!command) {
    for (size_t i = 0; i < n; i++)
      for (const char *line = commands[i].text; *line != '\n'; line = strchr(line, '\n') + 1)
        fprintf(out, "%s%.*s", i || line != commands[i].text ? "       " : "Usage: ",
                (int)(strchr(line, '\n') - line + 1), line);
    fputs("       fgprof COMMAND --help   (one command's help)\n", out);
    for (size_t i = 0; i < n; i++)
      fprintf(out, "\n%s", commands[i].text);
    return 0;
  }
  for (size_t i = 0; i < n; i++)
    if (strcmp(commands[i].name, command) == 0) {
      fputs(commands[i].text, out);
      return 0;
    }
  return -1;
}

/* Whether command's option flag takes a value: its help line reads
 * "  --flag VALUE" (a word in capitals after it). */
static int takes_value(const char *command, const char *flag)
{
  const char *text = NULL;
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(commands[i].name, command) == 0)
      text = commands[i].text;
  size_t len = strlen(flag);
  for (const char *at = text; at && (at = strstr(at, "\n  --")) != NULL; at++)
    if (strncmp(at + 3, flag, len) == 0 && at[3 + len] == ' ' && at[4 + len] >= 'A' && at[4 + len] <= 'Z')
      return 1;
  return 0;
}

int fg_cli_wants_help(int argc, char **argv)
{
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
      return 1;
    if (strncmp(argv[i], "--", 2) == 0 && takes_value(argv[1], argv[i]))
      i++;   /* its value, whatever it reads: --title -h is a title */
  }
  return 0;
}
