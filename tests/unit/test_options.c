/* Option parsing: defaults, every key, and one clear line for every bad value. */
#include "unit.h"

#include <stdio.h>
#include <string.h>

#include "fg/options.h"

static struct fg_options o;
static char err[512];

static void assert_rejected(const char *text, const char *must_mention, const char *accepted)
{
  assert_int_equal(fg_options_parse(text, &o, err, sizeof err), -1);
  if (!strstr(err, must_mention) || !strstr(err, accepted) || strchr(err, '\n'))
    fail_msg("for '%s' got: %s", text, err);
}

static void empty_string_gives_documented_defaults(void **state)
{
  (void)state;
  assert_int_equal(fg_options_parse("", &o, err, sizeof err), 0);
  assert_int_equal(o.interval_ns, 10000000);
  assert_int_equal(o.event, FG_EVENT_CPU);
  assert_int_equal(o.depth, 8192);
  assert_false(o.threads);
  assert_false(o.lines);
  assert_int_equal(o.nfiles, 1);
  assert_string_equal(o.files[0], "fgagent-%p.txt");
  assert_string_equal(o.log, "");
  assert_int_equal(o.walker, FG_WALKER_VM);     /* walker=copy only when asked: see docs/walker.md */
  assert_int_equal(o.clock, FG_CLOCK_AUTO);     /* a POSIX timer a thread, a counter when it runs long */
  assert_int_equal(fg_options_parse("clock=perf", &o, err, sizeof err), 0);
  assert_int_equal(o.clock, FG_CLOCK_PERF);
  assert_int_equal(fg_options_parse("clock=posix,walker=asgct", &o, err, sizeof err), 0);
  assert_int_equal(o.clock, FG_CLOCK_POSIX);
  assert_int_equal(fg_options_parse("clock=perf,walker=copy", &o, err, sizeof err), 0);
  assert_int_equal(fg_options_parse("event=wall", &o, err, sizeof err), 0);
  assert_int_equal(o.walker, FG_WALKER_VM);      /* a signal from the wall sampler */
  assert_int_equal(fg_options_parse("event=itimer", &o, err, sizeof err), 0);
  assert_int_equal(o.walker, FG_WALKER_VM);
  assert_int_equal(fg_options_parse("walker=vm", &o, err, sizeof err), 0);
  assert_int_equal(o.walker, FG_WALKER_VM);
  assert_int_equal(fg_options_parse("walker=asgct", &o, err, sizeof err), 0);
  assert_int_equal(o.walker, FG_WALKER_ASGCT);
  assert_false(fg_options_vm_walker(&o));
  assert_int_equal(fg_options_parse("walker=copy", &o, err, sizeof err), 0);
  assert_int_equal(o.walker, FG_WALKER_COPY);
  assert_true(fg_options_vm_walker(&o));   /* the copy's walk is fgagent's own walker */
  assert_int_equal(fg_options_parse(NULL, &o, err, sizeof err), 0);
}

static void intervals_take_every_unit(void **state)
{
  (void)state;
  static const struct { const char *text; uint64_t ns; } cases[] = {
    {"interval=1ms", 1000000}, {"interval=200us", 200000}, {"interval=250000ns", 250000},
    {"interval=2s", 2000000000}, {"interval=200000ns", 200000},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    assert_int_equal(fg_options_parse(cases[i].text, &o, err, sizeof err), 0);
    assert_int_equal(o.interval_ns, cases[i].ns);
  }
}

static void full_option_string(void **state)
{
  (void)state;
  assert_int_equal(fg_options_parse("interval=1ms,event=itimer,depth=64,threads,lines=no,"
                                    "file=a-%p.collapsed,file=b.txt,log=/tmp/s.log,ringsize=128k",
                                    &o, err, sizeof err), 0);
  assert_int_equal(o.event, FG_EVENT_ITIMER);
  assert_int_equal(o.depth, 64);
  assert_true(o.threads);
  assert_false(o.lines);
  assert_int_equal(o.nfiles, 2);
  assert_string_equal(o.files[0], "a-%p.collapsed");
  assert_string_equal(o.files[1], "b.txt");
  assert_string_equal(o.log, "/tmp/s.log");
  assert_int_equal(o.ring_bytes, 128 * 1024);
}

static void bad_values_name_option_value_and_accepted(void **state)
{
  (void)state;
  assert_rejected("interval=1", "interval='1'", "ns, us, ms or s");
  assert_rejected("interval=fast", "interval='fast'", "ns, us, ms or s");
  assert_rejected("interval=5us", "interval='5us'", "from 200us to 60s");
  assert_rejected("interval=199us", "interval='199us'", "below 200us the per-thread timer");
  assert_rejected("interval=100us", "interval='100us'", "over 25% of each thread's CPU");
  assert_rejected("interval=-1ms", "interval='-1ms'", "ns, us, ms or s");
  assert_rejected("interval=99999999999999999999s", "interval=", "ns, us, ms or s");
  assert_rejected("event=perf", "event='perf'", "cpu, itimer, wall");
  assert_rejected("cstack=dwarf", "cstack='dwarf'", "native, no");
  assert_rejected("walker=jfr", "walker='jfr'", "vm (fgagent's own walker");
  assert_rejected("walker", "walker has no value", "walker=VALUE");
  assert_rejected("walker=jfr", "walker='jfr'", "copy (fgagent's walker on a copy of the stack");
  assert_rejected("walker=copy,event=itimer", "walker=copy needs event=cpu", "walker=copy with event=cpu");
  assert_rejected("clock=hpet", "clock='hpet'", "auto (a POSIX CPU timer a thread");
  assert_rejected("clock", "clock has no value", "clock=VALUE");
  assert_rejected("clock=perf,event=wall", "clock= chooses event=cpu's clock", "no clock= with event=wall");
  assert_rejected("walker=copy,clock=posix", "walker=copy takes its samples from perf_events counters",
                  "clock=posix with walker=vm");
  assert_rejected("event=wall,walker=copy", "walker=copy needs event=cpu", "or walker=vm");
  assert_rejected("wallthreads=0", "wallthreads='0'", "from 1 to 100000");
  assert_rejected("ann=sometimes", "ann='sometimes'", "true/false");
  assert_rejected("depth=0", "depth='0'", "from 1 to");
  assert_rejected("depth=12x", "depth='12x'", "from 1 to");
  assert_rejected("threads=maybe", "threads='maybe'", "true/false");
  assert_rejected("file=out.svg", "file='out.svg'", ".collapsed");
  assert_rejected("file=out-%q.txt", "file='out-%q.txt'", "p (pid), t (time)");
  assert_rejected("ringsize=3000", "ringsize='3000'", "power of two");
  assert_rejected("memlimit=lots", "memlimit='lots'", "at least 256k bytes");
  assert_rejected("memlimit=200k", "memlimit='200k'", "at least 256k bytes");
  assert_rejected("memlimit=100k", "memlimit='100k'", "0 (none)");
  assert_rejected("memlimit=5t", "memlimit='5t'", "k, m or g suffix");
  assert_rejected("loop=500ms", "loop='500ms'", "from 1s to 24h");
  assert_rejected("loop=0s", "loop='0s'", "unit s, m or h");
  assert_rejected("loop=25h", "loop='25h'", "from 1s to 24h");
  assert_rejected("loop=60s,sched", "loop and sched cannot be combined", "one of them");
  assert_rejected("colour=red", "unknown option 'colour'", "interval, event, clock, alloc, lock, depth");
  assert_rejected("interval", "option interval has no value", "interval=VALUE");
  assert_rejected("interval=1ms,,depth=3", "empty option", "separated by single commas");
  assert_rejected("interval=1ms,", "empty option", "separated by single commas");
}

/* alloc and lock: alone they replace the sampled event; with event= (or
 * each other) every file but a .jfr must say which event it holds with %e. */
static void alloc_and_lock_take_sizes_durations_and_events(void **state)
{
  (void)state;
  assert_int_equal(fg_options_parse("", &o, err, sizeof err), 0);
  assert_true(o.cpu);
  assert_false(o.alloc);
  assert_false(o.lock);
  assert_int_equal(fg_options_nevents(&o), 1);
  assert_int_equal(fg_options_parse("alloc", &o, err, sizeof err), 0);
  assert_true(o.alloc);
  assert_false(o.cpu);   /* alloc alone: no CPU samples */
  assert_int_equal(o.alloc_bytes, 512 * 1024);
  assert_int_equal(fg_options_parse("alloc=2m", &o, err, sizeof err), 0);
  assert_int_equal(o.alloc_bytes, 2 * 1024 * 1024);
  assert_int_equal(fg_options_parse("alloc=0", &o, err, sizeof err), 0);   /* every allocation */
  assert_true(o.alloc);
  assert_int_equal(o.alloc_bytes, 0);
  assert_int_equal(fg_options_parse("lock", &o, err, sizeof err), 0);
  assert_true(o.lock);
  assert_int_equal(o.lock_ns, 10000);
  assert_int_equal(fg_options_parse("lock=0", &o, err, sizeof err), 0);
  assert_int_equal(o.lock_ns, 0);
  assert_int_equal(fg_options_parse("lock=1ms", &o, err, sizeof err), 0);
  assert_int_equal(o.lock_ns, 1000000);
  assert_int_equal(fg_options_parse("lock=250us,file=l.html", &o, err, sizeof err), 0);   /* one event: no %e */
  assert_int_equal(fg_options_parse("event=cpu,alloc,lock,file=p-%e.html,file=all.jfr", &o, err, sizeof err), 0);
  assert_true(o.cpu);
  assert_int_equal(fg_options_nevents(&o), 3);
  assert_int_equal(fg_options_parse("alloc,lock,file=p-%e.collapsed", &o, err, sizeof err), 0);
  assert_false(o.cpu);
  assert_int_equal(fg_options_nevents(&o), 2);
  assert_rejected("alloc=lots", "alloc='lots'", "k, m or g suffix");
  assert_rejected("alloc=2g", "alloc='2g'", "up to 1g");
  assert_rejected("lock=5", "lock='5'", "ns, us, ms or s");
  assert_rejected("lock=2m", "lock='2m'", "lock=DURATION");
  assert_rejected("event=cpu,alloc,file=p.html", "file='p.html' does not say which event", "%e");
  assert_rejected("alloc,lock", "file='fgagent-%p.txt' does not say which event", "a .jfr, .otlp or .heatmap.html file");
  assert_rejected("event=wall,lock,file=w.collapsed", "(event=wall, lock)", "%e");
}

/* nativemem, leak, nativelock: sizes, durations, and as events of their own. */
static void native_events_take_sizes_durations_and_leak(void **state)
{
  (void)state;
  assert_int_equal(fg_options_parse("nativemem", &o, err, sizeof err), 0);
  assert_true(o.nativemem);
  assert_false(o.cpu);   /* nativemem alone: no CPU samples */
  assert_false(o.leak);
  assert_int_equal(o.nativemem_bytes, 512 * 1024);
  assert_int_equal(fg_options_parse("nativemem=0", &o, err, sizeof err), 0);   /* every call */
  assert_true(o.nativemem);
  assert_int_equal(o.nativemem_bytes, 0);
  assert_int_equal(fg_options_parse("nativemem=64k,leak", &o, err, sizeof err), 0);
  assert_int_equal(o.nativemem_bytes, 64 * 1024);
  assert_true(o.leak);
  assert_int_equal(fg_options_parse("leak", &o, err, sizeof err), 0);   /* leak alone: nativemem's at its default */
  assert_true(o.nativemem);
  assert_true(o.leak);
  assert_int_equal(o.nativemem_bytes, 512 * 1024);
  assert_int_equal(fg_options_parse("nativelock", &o, err, sizeof err), 0);
  assert_true(o.nativelock);
  assert_false(o.nativemem);
  assert_int_equal(o.nativelock_ns, 10000);
  assert_int_equal(fg_options_parse("nativelock=0", &o, err, sizeof err), 0);
  assert_int_equal(o.nativelock_ns, 0);
  assert_int_equal(fg_options_parse("nativelock=2ms", &o, err, sizeof err), 0);
  assert_int_equal(o.nativelock_ns, 2000000);
  assert_int_equal(fg_options_parse("event=cpu,nativemem,nativelock,file=p-%e.html", &o, err, sizeof err), 0);
  assert_int_equal(fg_options_nevents(&o), 3);
  assert_rejected("nativemem=much", "nativemem='much'", "k, m or g suffix");
  assert_rejected("nativemem=2g", "nativemem='2g'", "up to 1g");
  assert_rejected("nativelock=5", "nativelock='5'", "ns, us, ms or s");
  assert_rejected("leak=maybe", "leak='maybe'", "true/false");
  assert_rejected("nativemem,nativelock", "does not say which event", "(nativemem, nativelock)");
  assert_rejected("event=cpu,nativemem,file=p.html", "(event=cpu, nativemem)", "%e");
}

/* live: alloc's sampling, its own event in place of alloc's */
static void live_samples_as_alloc(void **state)
{
  (void)state;
  assert_int_equal(fg_options_parse("alloc=64k,live", &o, err, sizeof err), 0);
  assert_true(o.live);
  assert_true(o.alloc);
  assert_false(o.cpu);
  assert_int_equal(o.alloc_bytes, 64 * 1024);
  assert_int_equal(fg_options_nevents(&o), 1);   /* live alone: a file without %e */
  assert_int_equal(fg_options_parse("live,file=l.html", &o, err, sizeof err), 0);
  assert_true(o.alloc);   /* live alone samples at alloc's default */
  assert_int_equal(o.alloc_bytes, 512 * 1024);
  assert_int_equal(fg_options_parse("alloc", &o, err, sizeof err), 0);
  assert_false(o.live);
  assert_rejected("live=yes", "live='yes'", "live alone");
  assert_rejected("event=cpu,live,file=p.html", "file='p.html' does not say which event", "(event=cpu, live)");
}

/* Kernel frames: on by default, room for them in every walk with event=cpu
 * only (no other event records them), and off with kernel=no. */
static void kernel_frames_have_room_with_event_cpu(void **state)
{
  (void)state;
  assert_int_equal(fg_options_parse("depth=100", &o, err, sizeof err), 0);
  assert_true(o.kernel);
  int with = fg_options_max_frames(&o);
  assert_int_equal(fg_options_parse("depth=100,kernel=no", &o, err, sizeof err), 0);
  assert_false(o.kernel);
  assert_int_equal(with - fg_options_max_frames(&o), FG_MAX_KERNEL_FRAMES);
  assert_int_equal(fg_options_parse("depth=100,event=wall", &o, err, sizeof err), 0);
  assert_int_equal(with - fg_options_max_frames(&o), FG_MAX_KERNEL_FRAMES);
  assert_int_equal(fg_options_parse("kernel", &o, err, sizeof err), 0);
  assert_true(o.kernel);
  assert_rejected("kernel=maybe", "option kernel='maybe'", "kernel alone");
}

/* event=NAME of a kernel event: beside cpu, itimer or wall (or alone, when
 * it replaces the sampled event), up to FG_KERNEL_EVENTS_MAX a session, interval=N without a unit
 * its count of events; with another event, files name theirs with %e. */
static void kernel_events_combine_with_the_others(void **state)
{
  (void)state;
  assert_int_equal(fg_options_parse("event=page-faults", &o, err, sizeof err), 0);
  assert_string_equal(o.kevent[0], "page-faults");
  assert_false(o.cpu);
  assert_int_equal(fg_options_nevents(&o), 1);
  assert_int_equal(fg_options_parse("event=cpu,event=faults,interval=5ms,alloc,lock,file=p-%e.html", &o, err,
                                    sizeof err), 0);
  assert_string_equal(o.kevent[0], "page-faults");
  assert_true(o.cpu);
  assert_int_equal(o.event, FG_EVENT_CPU);
  assert_int_equal(o.interval_ns, 5000000);
  assert_int_equal(o.kevent_period, 0);
  assert_int_equal(fg_options_nevents(&o), 4);
  assert_int_equal(fg_options_parse("event=syscalls:sys_enter_write,interval=1,event=wall,file=w-%e.txt", &o, err,
                                    sizeof err), 0);
  assert_string_equal(o.kevent[0], "syscalls:sys_enter_write");
  assert_int_equal(o.kevent_period, 1);
  assert_int_equal(o.event, FG_EVENT_WALL);
  assert_int_equal(o.interval_ns, FG_DEFAULT_INTERVAL_NS);
  assert_int_equal(fg_options_parse("event=cycles,interval=1000000", &o, err, sizeof err), 0);
  assert_int_equal(o.kevent_period, 1000000);
  int with = fg_options_max_frames(&o);
  assert_int_equal(fg_options_parse("event=cycles,kernel=no", &o, err, sizeof err), 0);
  assert_int_equal(with - fg_options_max_frames(&o), FG_MAX_KERNEL_FRAMES);   /* its kernel frames' room */
  assert_int_equal(fg_options_parse("event=cpu,event=faults,event=cs,event=page-faults,file=p-%e.html", &o, err,
                                    sizeof err), 0);   /* an alias of one given: the same event */
  assert_int_equal(fg_options_nkevents(&o), 2);
  assert_string_equal(o.kevent[1], "context-switches");
  assert_int_equal(fg_options_nevents(&o), 3);
  assert_int_equal(fg_options_parse("event=faults,event=cs,event=migrations,event=major-faults,file=p-%e.html", &o,
                                    err, sizeof err), 0);
  assert_int_equal(fg_options_nkevents(&o), 4);
  assert_string_equal(o.kevent[3], "major-faults");
  assert_rejected("event=faults,event=cs,event=migrations,event=major-faults,event=minor-faults,file=p-%e.html",
                  "event='minor-faults' is a kernel event past the 4", "up to 4 kernel events a session");
  assert_rejected("event=faults,event=cs,file=p.html", "(event=page-faults, event=context-switches)", "%e");
  assert_rejected("event=uprobe:/lib/a.so:f,event=uprobe:/lib/a_so:f,file=p-%e.html", "name one file",
                  "differ in more than");
  {   /* a uprobe's path of 240 characters: alone it is %e "kernel", beside another too long for a file name */
    char longer[400], opts[600];
    snprintf(longer, sizeof longer, "uprobe:/%0240d.so:f", 0);
    snprintf(opts, sizeof opts, "event=%s,file=p-%%e.html", longer);
    assert_int_equal(fg_options_parse(opts, &o, err, sizeof err), 0);
    snprintf(opts, sizeof opts, "event=%s,event=cs,file=p-%%e.html", longer);
    assert_rejected(opts, "is too long a name beside another kernel event", "up to 200 characters");
    snprintf(opts, sizeof opts, "event=cs,event=%s,file=p-%%e.html", longer);
    assert_rejected(opts, "is too long a name beside another kernel event", "up to 200 characters");
  }
  assert_rejected("event=pagefaults", "event='pagefaults'", "page-faults");
  assert_rejected("event=kprobe:a/b", "event='kprobe:a/b'", "kprobe:FUNC");
  assert_rejected("event=cpu,event=cs,file=p.html", "(event=cpu, event=context-switches)", "%e");
  assert_rejected("event=cpu,interval=100", "interval='100' has no unit", "event=page-faults");
  assert_rejected("event=cs,interval=0", "interval='0'", "from 1 to 2^40");
}

/* Without ringsize, a thread's ring holds FG_RING_HOLD_NS of samples at the
 * interval (a power of two from 4k), so that the drainer's 50 ms pass
 * empties it before it is half full, where the handler would wake the
 * drainer itself (a system call costing the thread 15-20 us here); ringsize
 * overrides it. */
static void ring_holds_the_drainers_pass(void **state)
{
  (void)state;
  static const struct {
    const char *options;
    uint64_t bytes;
  } cases[] = {
      {"", 4096},                       /* the default 10 ms: 20 samples, at least a page */
      {"interval=1ms", 8192},           /* 200 samples, 8000 bytes */
      {"interval=250us", 32768},        /* 800 samples */
      {"interval=200us", 65536},        /* the shortest: 1000 samples, 40000 bytes */
      {"interval=250us,ringsize=4k", 4096},
      {"ringsize=1m,interval=200us", 1 << 20},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    assert_int_equal(fg_options_parse(cases[i].options, &o, err, sizeof err), 0);
    assert_int_equal(o.ring_bytes, cases[i].bytes);
  }
}

/* The ring holds five words a sample whatever the depth: no depth needs a
 * ringsize, and every depth up to 65536 starts with defaults. */
static void any_depth_with_any_ring(void **state)
{
  (void)state;
  assert_int_equal(fg_options_parse("depth=65536", &o, err, sizeof err), 0);
  assert_int_equal(o.ring_bytes, FG_MIN_RING_BYTES);   /* at the default 10 ms: ring_holds_the_drainers_pass */
  assert_int_equal(o.memlimit, 0);
  assert_int_equal(fg_options_first_frames(&o), FG_FIRST_WALK_DEPTH + fg_options_max_frames(&o) - 65536);
  assert_int_equal(fg_options_parse("depth=8192,ringsize=4k,memlimit=64m", &o, err, sizeof err), 0);
  assert_int_equal(o.ring_bytes, 4096);
  assert_int_equal(o.memlimit, 64u << 20);
  assert_int_equal(fg_options_parse("depth=64,memlimit=0", &o, err, sizeof err), 0);
  assert_int_equal(o.memlimit, 0);
  assert_int_equal(fg_options_first_frames(&o), fg_options_max_frames(&o));   /* depth below the first room */
  assert_int_equal(fg_options_parse("loop=90s,file=p-%n.html", &o, err, sizeof err), 0);
  assert_int_equal(o.loop_ns, 90000000000ull);
  assert_int_equal(fg_options_parse("loop=24h", &o, err, sizeof err), 0);
  assert_int_equal(o.loop_ns, 86400000000000ull);
  assert_int_equal(fg_options_parse("memlimit=2g", &o, err, sizeof err), 0);
  assert_int_equal(o.memlimit, 2ull << 30);
  assert_int_equal(o.cstack, FG_CSTACK_NATIVE);
  assert_true(o.recover);
  assert_false(o.ann);
  assert_int_equal(fg_options_parse("event=wall,ann,sched,recover=no,wallthreads=8", &o, err, sizeof err), 0);
  assert_int_equal(o.event, FG_EVENT_WALL);
  assert_true(o.ann);
  assert_true(o.sched);
  assert_false(o.recover);
  assert_int_equal(o.wall_threads, 8);
}

static void too_many_files(void **state)
{
  (void)state;
  char text[512] = "file=0.txt";
  for (int i = 1; i <= FG_MAX_FILES; i++)
    snprintf(text + strlen(text), sizeof text - strlen(text), ",file=%d.txt", i);
  assert_rejected(text, "one too many", "at most 8");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(empty_string_gives_documented_defaults),
    cmocka_unit_test(intervals_take_every_unit),
    cmocka_unit_test(full_option_string),
    cmocka_unit_test(bad_values_name_option_value_and_accepted),
    cmocka_unit_test(any_depth_with_any_ring),
    cmocka_unit_test(ring_holds_the_drainers_pass),
    cmocka_unit_test(kernel_frames_have_room_with_event_cpu),
    cmocka_unit_test(kernel_events_combine_with_the_others),
    cmocka_unit_test(alloc_and_lock_take_sizes_durations_and_events),
    cmocka_unit_test(native_events_take_sizes_durations_and_leak),
    cmocka_unit_test(live_samples_as_alloc),
    cmocka_unit_test(too_many_files),
  };
  return cmocka_run_group_tests_name("options", tests, NULL, NULL);
}
