# fgagent: `make` builds everything and profiles the demo; `make test` runs all tests.
# `make help` lists the other targets.

CC ?= gcc
JDK17 = $(firstword $(wildcard /usr/lib/jvm/java-17-openjdk-*))
JAVA_HOME ?= $(JDK17)
JAVAC = $(JAVA_HOME)/bin/javac
JAR = $(JAVA_HOME)/bin/jar

CFLAGS_COMMON = -std=c11 -D_GNU_SOURCE -Wall -Wextra -O2 -g -fPIC -Iinclude -Iagent \
                -I$(JAVA_HOME)/include -I$(JAVA_HOME)/include/linux
CFLAGS_LIB = $(CFLAGS_COMMON) -fvisibility=hidden -ftls-model=initial-exec -pthread

# Pure code: no JVM needed, unit-tested on its own.
CORE_SRC = agent/options.c agent/sampling/tick_codes.c agent/buffer/ring.c agent/buffer/trace_table.c agent/buffer/trace_stacks.c \
           agent/profile/profile.c agent/profile/event_kinds.c agent/output/heatmap.c agent/output/heatmap_blob.c agent/profile/profile_copy.c agent/profile/call_tree.c \
           agent/output/format.c agent/output/text_buffer.c agent/output/collapsed.c \
           agent/output/callgraph.c agent/output/ftrace_columns.c agent/output/timeline.c agent/output/summary.c agent/output/summary_native.c agent/output/summary_kernel.c agent/output/profile_file.c agent/output/output_target.c \
           agent/sampling/unregistered_threads.c cli/collapsed_reader.c cli/jfr_reader.c cli/otlp_reader.c cli/profile_input.c cli/time_range.c \
           agent/output/json_text.c agent/output/flamegraph_html.c agent/output/pprof.c agent/output/protobuf.c agent/output/otlp.c \
           agent/output/byte_buffer.c agent/output/frame_name.c agent/output/jfr.c agent/output/jfr_pools.c \
           agent/native/kernel_symbols.c agent/sampling/perf/perf_threads.c agent/sampling/perf/cpu_rings.c agent/sampling/perf/perf_counters.c agent/sampling/perf/fd_room.c agent/sampling/kernel_events/event_spec.c agent/sampling/cputimer/thread_timer.c agent/sampling/copy/copy_record.c agent/sampling/copy/copy_held.c \
           agent/output/speedscope.c cli/profile_filter.c cli/compare/significance.c cli/compare/diff.c cli/compare/call_path_diff.c agent/profile/u64_map.c agent/profile/utf8.c agent/profile/class_name.c agent/profile/lock_kinds.c agent/sched/switch_decoder.c agent/verify/call_site.c \
           agent/native_mem/import_patch.c agent/native_mem/nm_queue.c agent/native_mem/leak_table.c \
           agent/native/proc_maps.c cli/attach_reply.c cli/proc_status.c agent/sampling/wall/task_files.c
CORE_SRC += agent/output/summary_live.c agent/jvmti/gc_pauses.c
# The agent proper: JVMTI, timers, the signal handler, the drainer.
AGENT_SRC = $(filter-out $(CORE_SRC) $(CLI_SRC),$(wildcard agent/*.c agent/*/*.c agent/*/*/*.c))
# The command-line tool, on the same pure core.
CLI_SRC = $(filter-out $(CORE_SRC),$(wildcard cli/*.c cli/*/*.c))
PREFIX ?= /usr/local

CORE_OBJ = $(CORE_SRC:%.c=build/obj/%.o) build/obj/gen/flamegraph_template.o build/obj/gen/heatmap_template.o
AGENT_OBJ = $(AGENT_SRC:%.c=build/obj/%.o) build/obj/gen/park_binder.o
UNIT_TESTS = $(patsubst tests/unit/%.c,build/tests/%,$(wildcard tests/unit/test_*.c)) $(TSAN_TESTS)
# The lock-free storage's tests again under ThreadSanitizer, on their sources.
TSAN_TESTS = build/tests/test_ring_tsan build/tests/test_trace_table_tsan build/tests/test_gc_pauses_tsan
JAVA_SRC = $(wildcard java-test/workloads/*.java java-test/harness/*.java)

.PHONY: all deps lib cli java demo test unit tools-test docs-check screenshots integration analyze bench bench-share bench-paired bench-floors bench-javac bench-walker bench-wall-idle bench-convert bench-storage bench-walk bench-parts bench-busy bench-scale bench-clocks bench-alloc-lock bench-nativemem bench-real bench-threads stress install fuzz clean help

all: deps lib cli java demo

help:
	@echo "make              install missing Debian packages, build, profile the demo"
	@echo "make test         unit tests (C) and integration tests (real JVMs)"
	@echo "make unit         unit tests only"
	@echo "make tools-test   output formats checked by go tool pprof, speedscope's schema, Chromium"
	@echo "make integration  integration tests only"
	@echo "make screenshots  docs/img/*.png taken again from real runs"
	@echo "make docs-check   the docs' figures against results/, links between pages, no dates or hashes, the man page against fgprof --help, the user pages' length"
	@echo "make analyze      gcc -fanalyzer on every source; fails on a warning scripts/analyzer-triage.txt does not explain"
	@echo "make bench        overhead benchmark, writes results/overhead.md"
	@echo "make bench-share  fgagent's own share above its mechanism's floor, 40 rounds, writes results/overhead-share.md"
	@echo "make bench-paired  the same share paired block by block inside one JVM (demo, mix, deep), writes results/overhead-paired.md"
	@echo "make bench-floors  the floor of each perf_events mechanism (signal, sample record, stack copies) paired in one process, writes results/floors-paired.md"
	@echo "make bench-javac   unattributed samples on javac compiling java.xml, writes results/javac-unattributed.md"
	@echo "make bench-walker  walker=asgct and walker=vm on javac and H2, both JDKs, writes results/walker.md"
	@echo "make bench-wall-idle  event=wall on 200 idle threads for 30 s, writes results/wall-idle.md"
	@echo "make bench-convert  fgprof on 100 000 stacks, writes results/convert.md"
	@echo "make bench-storage  the trace table on 1M samples, memory at 1000 threads, writes results/storage.md"
	@echo "make bench-walk   the walker and the trace table by stack depth, no JVM, writes results/walk.md"
	@echo "make bench-parts  the handler's cycles part by part at 1 ms on three works, writes results/handler-parts.md"
	@echo "make bench-busy   make test quiet, then 3 times beside two busy loops, writes results/busy-machine.md"
	@echo "make bench-alloc-lock  what alloc and lock cost and how true they are; ASPROF=lib adds async-profiler; writes results/alloc-lock.md"
	@echo "make bench-nativemem  what nativemem costs on a malloc-heavy loop beside async-profiler's (ASPROF=lib); writes results/nativemem.md"
	@echo "make bench-real   what cpu and alloc cost H2 and javac, start to end; ASPROF=lib adds async-profiler; writes results/real.md"
	@echo "make bench-scale  many threads, thread ends and starts, CPU hoppers, handoffs, virtual threads, retransformed classes; ASPROF=lib adds async-profiler; writes results/scale.md"
	@echo "make bench-threads  100 000 threads started and ended per clock (posix, perf) on JDK 17 and Temurin 25: walk time, RSS, fds, stack storage first third vs last, writes results/threads.md"
	@echo "make bench-clocks  what a perf_events counter and a POSIX CPU timer cost a thread at each context switch, writes results/clocks.md"
	@echo "make stress       programs that once hung the JVM, with and without the agent, writes results/stress.md"
	@echo "make install      install libfgagent.so, fgprof and its man page under PREFIX (/usr/local)"
	@echo "make fuzz         fuzz every reader of outside input (tests/fuzz) for FUZZ_SECONDS (60) each"
	@echo "make clean        remove build/"

deps:
	@bash scripts/install-deps.sh

lib: build/libfgagent.so

build/obj/%.o: %.c $(wildcard include/fg/*.h agent/*/*.h agent/*/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_LIB) -c $< -o $@

# The native memory hooks read their caller's registers off their own frame.
build/obj/agent/native_mem/hooks.o: CFLAGS_LIB += -fno-omit-frame-pointer -fno-optimize-sibling-calls

# The flame graph page, compiled in as one C string.
build/gen/flamegraph_template.c: agent/output/flamegraph_template.html
	@mkdir -p $(dir $@)
	{ echo 'const char fg_flamegraph_template[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $<; echo ';'; } > $@

build/gen/heatmap_template.c: agent/output/heatmap_template.html
	@mkdir -p $(dir $@)
	{ echo 'const char fg_heatmap_template[] ='; \
	  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/"/' -e 's/$$/\\n"/' $<; echo ';'; } > $@

build/obj/gen/%.o: build/gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_LIB) -c $< -o $@

# lock's helper class (agent/java_events/ParkBinder.java), compiled in as bytes.
build/gen/park_binder.c: agent/java_events/ParkBinder.java
	@mkdir -p build/gen/classes
	$(JAVAC) --release 11 -d build/gen/classes $<
	{ echo 'const unsigned char fg_park_binder_class[] = {'; \
	  od -An -v -tx1 build/gen/classes/fgagent/ParkBinder.class | sed -e 's/ \([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '};'; echo 'const unsigned fg_park_binder_class_len = sizeof fg_park_binder_class;'; } > $@

build/libfgcore.a: $(CORE_OBJ) Makefile   # rebuilt when the list of core sources changes
	@rm -f $@
	ar rcs $@ $(CORE_OBJ)

build/libfgagent.so: $(AGENT_OBJ) build/libfgcore.a
	$(CC) -shared -pthread -o $@ $(AGENT_OBJ) build/libfgcore.a -ldl -lm

# The agent with its handler's parts timed (agent/sampling/signal/handler_parts.h),
# for make bench-parts; never installed. fg_parts_arm() deals arms in these
# files only (elsewhere it is 0): the handler, the walkers, the trace table.
PARTS_SRC = agent/sampling/signal/handler.c agent/sampling/sample_store.c agent/sampling/signal/handler_parts.c agent/walk/walker.c agent/walk/vm_walker.c \
            agent/buffer/trace_table.c
PARTS_OBJ = $(PARTS_SRC:%.c=build/obj-parts/%.o)

build/obj-parts/%.o: %.c $(wildcard include/fg/*.h agent/*/*.h agent/*/*/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_LIB) -DFG_HANDLER_PARTS -c $< -o $@

build/libfgagent-parts.so: $(filter-out $(PARTS_SRC:%.c=build/obj/%.o),$(AGENT_OBJ)) $(PARTS_OBJ) build/libfgcore.a
	$(CC) -shared -pthread -o $@ $^ -ldl -lm

cli: build/fgprof

build/fgprof: $(CLI_SRC) build/libfgcore.a
	$(CC) $(CFLAGS_COMMON) -o $@ $(CLI_SRC) build/libfgcore.a -lm

install: lib cli
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 build/libfgagent.so $(DESTDIR)$(PREFIX)/lib/libfgagent.so
	install -m 755 build/fgprof $(DESTDIR)$(PREFIX)/bin/fgprof
	install -m 644 docs/fgprof.1 $(DESTDIR)$(PREFIX)/share/man/man1/fgprof.1

build/tests/%: tests/unit/%.c build/libfgcore.a tests/unit/unit.h
	@mkdir -p build/tests
	$(CC) $(CFLAGS_COMMON) -pthread -Itests/unit $< build/libfgcore.a -lcmocka -lm -o $@

build/tests/%_tsan: tests/unit/%.c agent/buffer/ring.c agent/buffer/trace_table.c agent/jvmti/gc_pauses.c include/fg/ring.h include/fg/trace_table.h include/fg/gc_pauses.h tests/unit/unit.h
	@mkdir -p build/tests
	$(CC) $(CFLAGS_COMMON) -O1 -fsanitize=thread -pthread -Itests/unit $< agent/buffer/ring.c agent/buffer/trace_table.c agent/jvmti/gc_pauses.c -lcmocka -o $@

# Native frames' unwind rules from the libraries' DWARF call frame information.
UNWIND_OBJ = build/obj/agent/native/unwind_rows.o build/obj/agent/native/unwind_tables.o \
             build/obj/agent/native/unwind_refresher.o
build/tests/test_handler_parts: tests/unit/test_handler_parts.c agent/sampling/signal/handler_parts.c agent/sampling/signal/handler_parts.h tests/unit/unit.h
	@mkdir -p build/tests
	$(CC) $(CFLAGS_COMMON) -DFG_HANDLER_PARTS -Itests/unit $< agent/sampling/signal/handler_parts.c -lcmocka -o $@

build/tests/test_unwind_rows build/tests/test_unwind_tables build/tests/test_unwind_refresher build/tests/test_eh_frame_hostile: build/tests/%: tests/unit/%.c $(UNWIND_OBJ) tests/unit/unit.h tests/unit/own_stack.h
	@mkdir -p build/tests
	$(CC) $(CFLAGS_COMMON) -pthread -Itests/unit $< $(UNWIND_OBJ) -lcmocka -o $@

# What the VM walker reads of a method the code map has not read yet (code_heap.c, vm_deopt.c).
HEAP_READ_OBJ = build/obj/agent/hotspot/code_heap.o build/obj/agent/hotspot/vm_deopt.o build/obj/agent/hotspot/osr_entry.o build/obj/agent/hotspot/vm_structs.o \
                build/obj/agent/native/symbols.o
# The handler's test drives the real handler and registry with a fake ASGCT.
HANDLER_OBJ = build/obj/agent/sampling/signal/handler.o build/obj/agent/sampling/sample_store.o build/obj/agent/jvmti/threads.o build/obj/agent/jvmti/prior_threads.o \
              build/obj/agent/walk/walker.o build/obj/agent/hotspot/code_map.o build/obj/agent/hotspot/pc_scopes.o build/obj/agent/walk/x86/frame_layout.o build/obj/agent/walk/x86/frame_pop.o \
              build/obj/agent/walk/vm_walker.o build/obj/agent/walk/vm_stub_frames.o build/obj/agent/hotspot/method_map.o build/obj/agent/walk/pc_cache.o build/obj/agent/walk/walk_cache.o \
              $(HEAP_READ_OBJ) $(UNWIND_OBJ)
build/tests/test_handler: tests/unit/test_handler.c $(HANDLER_OBJ) build/libfgcore.a tests/unit/unit.h
	@mkdir -p build/tests
	$(CC) $(CFLAGS_COMMON) -pthread -Itests/unit $< $(HANDLER_OBJ) build/libfgcore.a -lcmocka -o $@

# Java threads running before attach, found through a pthread key.
build/tests/test_prior_threads: tests/unit/test_prior_threads.c build/obj/agent/jvmti/prior_threads.o tests/unit/unit.h
	@mkdir -p build/tests
	$(CC) $(CFLAGS_COMMON) -pthread -Itests/unit $< build/obj/agent/jvmti/prior_threads.o -lcmocka -o $@

# Frame layouts of compiled methods, on code bytes HotSpot printed.
build/tests/test_frame_layout: tests/unit/test_frame_layout.c build/obj/agent/walk/x86/frame_layout.o tests/unit/unit.h
	@mkdir -p build/tests
	$(CC) $(CFLAGS_COMMON) -Itests/unit $< build/obj/agent/walk/x86/frame_layout.o -lcmocka -o $@

# The code map and its granule index.
build/tests/test_code_map: tests/unit/test_code_map.c build/obj/agent/hotspot/code_map.o build/obj/agent/hotspot/pc_scopes.o build/obj/agent/walk/x86/frame_layout.o tests/unit/unit.h
	@mkdir -p build/tests
	$(CC) $(CFLAGS_COMMON) -pthread -Itests/unit $< build/obj/agent/hotspot/code_map.o build/obj/agent/hotspot/pc_scopes.o build/obj/agent/walk/x86/frame_layout.o -lcmocka -o $@

# Compiled methods read from a fake code heap, and the code map's wants and sweep.
CODE_HEAP_OBJ = build/obj/agent/hotspot/code_heap.o build/obj/agent/hotspot/code_map.o build/obj/agent/hotspot/pc_scopes.o build/obj/agent/walk/x86/frame_layout.o
build/tests/test_code_heap: tests/unit/test_code_heap.c $(CODE_HEAP_OBJ) tests/unit/unit.h
	@mkdir -p build/tests
	$(CC) $(CFLAGS_COMMON) -pthread -Itests/unit $< $(CODE_HEAP_OBJ) -lcmocka -o $@

# Compiled methods' debug records and their block directory.
build/tests/test_pc_scopes: tests/unit/test_pc_scopes.c build/obj/agent/hotspot/pc_scopes.o tests/unit/unit.h
	@mkdir -p build/tests
	$(CC) $(CFLAGS_COMMON) -Itests/unit $< build/obj/agent/hotspot/pc_scopes.o -lcmocka -o $@

# The VM walker on synthetic frames (it calls fg_walk_scopes_at in walker.o).
VM_WALKER_OBJ = build/obj/agent/walk/vm_walker.o build/obj/agent/walk/vm_stub_frames.o build/obj/agent/walk/walker.o build/obj/agent/walk/x86/frame_pop.o \
                build/obj/agent/hotspot/code_map.o build/obj/agent/hotspot/pc_scopes.o build/obj/agent/walk/x86/frame_layout.o build/obj/agent/hotspot/method_map.o \
                build/obj/agent/walk/pc_cache.o build/obj/agent/walk/walk_cache.o $(HEAP_READ_OBJ) $(UNWIND_OBJ)
build/tests/test_vm_walker build/tests/test_vm_walker_stubs: build/tests/%: tests/unit/%.c $(VM_WALKER_OBJ) build/libfgcore.a \
    tests/unit/vm_walker_fixture.h tests/unit/unit.h
	@mkdir -p build/tests
	$(CC) $(CFLAGS_COMMON) -pthread -Itests/unit $< $(VM_WALKER_OBJ) build/libfgcore.a -lcmocka -o $@

# The kept last walk, on the VM walker's fixture, committed through the trace table.
build/tests/test_walk_cache: tests/unit/test_walk_cache.c $(VM_WALKER_OBJ) build/libfgcore.a \
    tests/unit/vm_walker_fixture.h tests/unit/unit.h
	@mkdir -p build/tests
	$(CC) $(CFLAGS_COMMON) -pthread -Itests/unit $< $(VM_WALKER_OBJ) build/libfgcore.a -lcmocka -o $@

# A thread with no Java's kept native walk, on this program's own stack.
build/tests/test_native_walk_kept: tests/unit/test_native_walk_kept.c $(VM_WALKER_OBJ) build/libfgcore.a \
    tests/unit/unit.h tests/unit/own_stack.h
	@mkdir -p build/tests
	$(CC) $(CFLAGS_COMMON) -pthread -Itests/unit $< $(VM_WALKER_OBJ) build/libfgcore.a -lcmocka -o $@

# Deoptimization sites read from a fake nmethod, in JDK 17's layout and JDK 25's.
VM_DEOPT_OBJ = build/obj/agent/hotspot/vm_deopt.o build/obj/agent/hotspot/osr_entry.o build/obj/agent/hotspot/vm_structs.o build/obj/agent/native/symbols.o \
               build/obj/agent/native/unwind_rows.o
build/tests/test_vm_deopt: tests/unit/test_vm_deopt.c $(VM_DEOPT_OBJ) tests/unit/unit.h
	@mkdir -p build/tests
	$(CC) $(CFLAGS_COMMON) -pthread -Itests/unit $< $(VM_DEOPT_OBJ) -ldl -lcmocka -o $@

# verify's class lookup among the loaded classes, on a fake JVMTI and JNI.
build/tests/test_loaded_class: tests/unit/test_loaded_class.c build/obj/agent/verify/loaded_class.o tests/unit/unit.h
	@mkdir -p build/tests
	$(CC) $(CFLAGS_COMMON) -Itests/unit $< build/obj/agent/verify/loaded_class.o -lcmocka -o $@

# The walker's pc cache.
build/tests/test_pc_cache: tests/unit/test_pc_cache.c build/obj/agent/walk/pc_cache.o tests/unit/unit.h
	@mkdir -p build/tests
	$(CC) $(CFLAGS_COMMON) -pthread -Itests/unit $< build/obj/agent/walk/pc_cache.o -lcmocka -o $@

# The VM walker's Method* map.
build/tests/test_method_map: tests/unit/test_method_map.c build/obj/agent/hotspot/method_map.o tests/unit/unit.h
	@mkdir -p build/tests
	$(CC) $(CFLAGS_COMMON) -pthread -Itests/unit $< build/obj/agent/hotspot/method_map.o -lcmocka -o $@

# alloc and lock's event log: its shards and the threads' class caches.
build/tests/test_event_log: tests/unit/test_event_log.c build/obj/agent/java_events/event_log.o build/libfgcore.a tests/unit/unit.h
	@mkdir -p build/tests
	$(CC) $(CFLAGS_COMMON) -pthread -Itests/unit $< build/obj/agent/java_events/event_log.o build/libfgcore.a -lcmocka -o $@

# Kernel event names resolved against a made-up sysfs and tracefs, and a uprobe's offset in the test program.
build/tests/test_kernel_events: tests/unit/test_kernel_events.c build/obj/agent/sampling/kernel_events/event_resolve.o build/obj/agent/native/symbols.o build/obj/agent/native/unwind_rows.o build/libfgcore.a tests/unit/unit.h
	@mkdir -p build/tests
	$(CC) $(CFLAGS_COMMON) -pthread -Itests/unit $< build/obj/agent/sampling/kernel_events/event_resolve.o build/obj/agent/native/symbols.o build/obj/agent/native/unwind_rows.o build/libfgcore.a -lcmocka -ldl -lm -o $@

# A kernel event's counters on the test's own threads.
build/tests/test_kernel_counters: tests/unit/test_kernel_counters.c build/obj/agent/sampling/kernel_events/kernel_counters.o build/obj/agent/sampling/kernel_events/event_resolve.o build/obj/agent/native/symbols.o build/obj/agent/native/unwind_rows.o build/libfgcore.a tests/unit/unit.h
	@mkdir -p build/tests
	$(CC) $(CFLAGS_COMMON) -pthread -Itests/unit $< build/obj/agent/sampling/kernel_events/kernel_counters.o build/obj/agent/sampling/kernel_events/event_resolve.o build/obj/agent/native/symbols.o build/obj/agent/native/unwind_rows.o build/libfgcore.a -lcmocka -ldl -lm -o $@

# The ELF symbol reader, on the test program's own functions.
build/tests/test_symbols: tests/unit/test_symbols.c build/obj/agent/native/symbols.o build/obj/agent/native/unwind_rows.o tests/unit/unit.h
	@mkdir -p build/tests
	$(CC) $(CFLAGS_COMMON) -pthread -Itests/unit $< build/obj/agent/native/symbols.o build/obj/agent/native/unwind_rows.o -lcmocka -o $@

# A day of a busy service as a JFR recording, for the heatmap benchmark (scripts/bench-heatmap.sh).
build/gen_day_jfr: tests/bench/gen_day_jfr.c build/libfgcore.a
	@mkdir -p build
	$(CC) $(CFLAGS_COMMON) -o $@ $< build/libfgcore.a -lm

# Sample storage timed on the agent's own code (scripts/bench-storage.sh).
build/bench_storage: tests/bench/bench_storage.c build/libfgcore.a
	@mkdir -p build
	$(CC) $(CFLAGS_COMMON) -o $@ $< build/libfgcore.a -lm

# The overhead benchmarks' floor: fgagent's mechanism on a JVM with an empty handler.
build/floor_agent.so: scripts/bench/floor_agent.c scripts/bench/perf_counter.h agent/sampling/perf/jitter.h
	@mkdir -p build
	$(CC) $(CFLAGS_COMMON) -shared -o $@ $<

build/switch_cost: scripts/bench/switch_cost.c agent/sampling/cputimer/thread_timer.c agent/sampling/cputimer/thread_timer.h
	@mkdir -p build
	$(CC) $(CFLAGS_COMMON) -pthread -o $@ scripts/bench/switch_cost.c agent/sampling/cputimer/thread_timer.c

build/event_floor_agent.so: scripts/bench/event_floor_agent.c
	@mkdir -p build
	$(CC) $(CFLAGS_COMMON) -shared -o $@ $<

# The walker and the trace table timed on a synthetic deep stack (scripts/bench-walk.sh).
build/bench_walk: tests/bench/bench_walk.c $(VM_WALKER_OBJ) build/libfgcore.a
	@mkdir -p build
	$(CC) $(CFLAGS_COMMON) -pthread -o $@ $< $(VM_WALKER_OBJ) build/libfgcore.a -lm

# Every reader of outside input under libFuzzer, with ASan and UBSan: the
# target tests/fuzz/fuzz_NAME.c is built as build/fuzz_NAME with the sources
# FUZZ_SRC_NAME lists, and its seed corpus is tests/fuzz/corpus/NAME/.
# A target with a rule of its own (build/fuzz_NAME: ...) needs nothing here.
FUZZ_FLAGS = -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
             -Iinclude -Iagent -Icli -I$(JAVA_HOME)/include -I$(JAVA_HOME)/include/linux
FUZZERS = $(patsubst tests/fuzz/fuzz_%.c,build/fuzz_%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SRC_collapsed_reader = $(CORE_SRC) build/gen/flamegraph_template.c build/gen/heatmap_template.c
FUZZ_SRC_switch_decoder = agent/sched/switch_decoder.c
FUZZ_SRC_attach_reply = cli/attach_reply.c
FUZZ_SRC_kallsyms = agent/native/kernel_symbols.c
FUZZ_SRC_proc_status = cli/proc_status.c
FUZZ_SRC_proc_maps = agent/native/proc_maps.c
FUZZ_SRC_task_files = agent/sampling/wall/task_files.c
FUZZ_SRC_elf_symbols = agent/native/symbols.c agent/native/unwind_rows.c
FUZZ_SRC_eh_frame = agent/native/unwind_rows.c
FUZZ_SRC_otlp_reader = $(CORE_SRC) build/gen/flamegraph_template.c build/gen/heatmap_template.c
FUZZ_SRC_jfr_reader = $(CORE_SRC) build/gen/flamegraph_template.c build/gen/heatmap_template.c
FUZZ_HEADERS = $(wildcard include/fg/*.h agent/*/*.h cli/*.h)

.SECONDEXPANSION:
build/fuzz_%: tests/fuzz/fuzz_%.c $$(FUZZ_SRC_$$*) $(FUZZ_HEADERS)
	@mkdir -p build
	clang $(FUZZ_FLAGS) -o $@ $< $(FUZZ_SRC_$*) -ldl -lm

# FUZZ_SECONDS (default 60) of fuzzing for each target, from its seed corpus;
# what it finds new goes to build/fuzz-corpus/NAME, a crash to build/fuzz-crashes.
fuzz: $(FUZZERS)
	@mkdir -p build/fuzz-crashes
	@for f in $(FUZZERS); do n=$${f#build/fuzz_}; mkdir -p build/fuzz-corpus/$$n; \
	  echo "fuzz: $$n for $${FUZZ_SECONDS:-60} s"; \
	  $$f -max_total_time=$${FUZZ_SECONDS:-60} -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix=build/fuzz-crashes/$$n- build/fuzz-corpus/$$n tests/fuzz/corpus/$$n || exit 1; \
	done

java: build/java-test/.built build/java-test-jni/.built build/java-test-jni/libfghop.so build/java-test-jni/libnoperf.so \
      build/java-test-jni/libfgnm.so build/java-test-jni/libfgnmhelper.so build/java-test-jni/libfgcwd.so \
      build/java-test/retransformer.jar

build/java-test/.built: $(JAVA_SRC)
	@mkdir -p build/java-test
	$(JAVAC) --release 17 -d build/java-test $(JAVA_SRC)
	@touch $@

# A JNI library and its class, apart from the workloads' class path so that
# a class loader of their own can be collected and the library unloaded
# (UnloadedJni); its leaf without unwind tables, so walks read its code.
build/java-test-jni/.built: java-test/jni/JniSpinner.java java-test/jni/fgspin.c java-test/jni/fgspin_leaf.c
	@mkdir -p build/java-test-jni
	$(JAVAC) --release 17 -d build/java-test-jni java-test/jni/JniSpinner.java
	$(CC) -c -fPIC -O2 -Wall -Wextra -fno-asynchronous-unwind-tables -fno-unwind-tables \
	  -o build/java-test-jni/fgspin_leaf.o java-test/jni/fgspin_leaf.c
	$(CC) -shared -fPIC -O2 -Wall -Wextra -I$(JAVA_HOME)/include -I$(JAVA_HOME)/include/linux \
	  -o build/java-test-jni/libfgspin.so java-test/jni/fgspin.c build/java-test-jni/fgspin_leaf.o
	@touch $@

# Scale's hop mode: a thread moving itself between CPUs.
build/java-test-jni/libfghop.so: java-test/jni/fghop.c
	@mkdir -p build/java-test-jni
	$(CC) -shared -fPIC -O2 -Wall -Wextra -I$(JAVA_HOME)/include -I$(JAVA_HOME)/include/linux -o $@ $<

# nativemem's and nativelock's truth (NativeMem): every site calls the allocator from its own
# frame (no tail calls, no malloc folded into calloc), and a library it loads and unloads.
build/java-test-jni/libfgnm.so: java-test/jni/fgnm.c
	@mkdir -p build/java-test-jni
	$(CC) -shared -fPIC -O2 -g -Wall -Wextra -fno-optimize-sibling-calls -fno-builtin-malloc -fno-builtin-calloc \
	  -fno-builtin-free -I$(JAVA_HOME)/include -I$(JAVA_HOME)/include/linux -o $@ $< -pthread -ldl

build/java-test-jni/libfgnmhelper.so: java-test/jni/fgnm_helper.c
	@mkdir -p build/java-test-jni
	$(CC) -shared -fPIC -O2 -Wall -Wextra -fno-builtin-malloc -fno-builtin-free -o $@ $<

# A JVM working a while in its perf data directory, as HotSpot does at start-up (AttachStartingTests).
build/java-test-jni/libfgcwd.so: java-test/jni/fgcwd.c
	@mkdir -p build/java-test-jni
	$(CC) -shared -fPIC -O2 -Wall -Wextra -I$(JAVA_HOME)/include -I$(JAVA_HOME)/include/linux -o $@ $<

# perf_event_open refused in a JVM it is preloaded into (RobustnessTests).
build/java-test-jni/libnoperf.so: java-test/jni/noperf.c
	@mkdir -p build/java-test-jni
	$(CC) -shared -fPIC -O2 -Wall -Wextra -o $@ $< -ldl

# A java agent retransforming a class every 100 ms, as APM agents do (Scale's hot mode).
build/java-test/retransformer.jar: java-test/agent/Retransformer.java
	@mkdir -p build/java-test-agent
	$(JAVAC) --release 17 -d build/java-test-agent $<
	printf 'Premain-Class: Retransformer\nCan-Retransform-Classes: true\n' > build/java-test-agent/manifest
	$(JAR) cfm $@ build/java-test-agent/manifest -C build/java-test-agent Retransformer.class -C build/java-test-agent 'Retransformer$$1.class'

demo: lib java
	@bash scripts/demo.sh

unit: deps $(UNIT_TESTS)
	@bash scripts/run-tests.sh unit

integration: deps lib cli java
	@bash scripts/run-tests.sh integration

analyze: deps
	@bash scripts/analyze.sh

tools-test: deps lib cli java
	@bash scripts/run-tests.sh tools

# The docs' own checks, in seconds (tests/tools/run.sh runs them too, with their self-tests).
# The docs' pictures, docs/img/*.png, taken again from real runs (headless Chromium).
screenshots: lib cli java
	@bash tests/tools/screenshots.sh docs/img

docs-check: cli
	@bash scripts/check-figures.sh && bash scripts/check-figures.sh --results && bash scripts/check-links.sh && bash scripts/check-no-history.sh && bash scripts/check-man-page.sh && bash scripts/check-page-budget.sh

test: deps lib cli java $(UNIT_TESTS) $(FUZZERS)
	@bash scripts/run-tests.sh all

bench: deps lib java build/floor_agent.so
	@bash scripts/bench-overhead.sh

# The same benchmark narrowed to fgagent / the floor agent on steady work, rounds enough to
# resolve a few tenths of a point.
bench-share: deps lib java build/floor_agent.so
	@ROUNDS=40 JVM_WORK=mix JVM_MODES="none floor-perf-kernel cpu-1ms" FLOOR_MODES= \
	  OUT=results/overhead-share.md bash scripts/bench-overhead.sh

# fgagent / the floor agent in one JVM, switched between blocks of the same work (about 20 minutes).
bench-paired: deps lib java build/floor_agent.so
	@bash scripts/bench-paired.sh

# The floor of each perf_events mechanism (signal, sample record, stack copies) paired in one
# process, without a JVM (about 10 minutes).
bench-floors: deps
	@bash scripts/bench-floors.sh

bench-javac: deps lib
	@bash scripts/bench-javac.sh

bench-walker: deps lib
	@bash scripts/bench-walker.sh

bench-wall-idle: deps lib java
	@bash scripts/bench-wall-idle.sh

bench-convert: deps cli
	@bash scripts/bench-convert.sh

bench-storage: deps lib java build/bench_storage
	@bash scripts/bench-storage.sh

bench-walk: deps build/bench_walk
	@bash scripts/bench-walk.sh

bench-parts: deps lib java build/libfgagent-parts.so
	@bash scripts/bench-parts.sh

bench-scale: deps lib java
	@bash scripts/bench-scale.sh

bench-threads: deps lib java
	@bash scripts/bench-threads.sh

bench-clocks:
	@bash scripts/bench-clocks.sh

bench-alloc-lock: deps lib java build/event_floor_agent.so
	@bash scripts/bench-alloc-lock.sh

bench-nativemem: deps lib java
	@bash scripts/bench-nativemem.sh

bench-real: deps lib build/event_floor_agent.so
	@bash scripts/install-deps.sh bench
	@bash scripts/bench-real.sh

stress: deps lib java
	@bash scripts/stress.sh

bench-busy:
	@bash scripts/busy-machine.sh

clean:
	rm -rf build
