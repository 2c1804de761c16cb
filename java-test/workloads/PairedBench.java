import com.sun.tools.attach.VirtualMachine;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * What a profiler costs one running JVM, paired block by block: the same fixed work (Bench's
 * units) timed again and again in one JVM with nothing sampling it, with the floor agent
 * (scripts/bench/floor_agent.c: fgagent's mechanism, an empty handler) and with fgagent, each
 * switched on and off through the JVM's own attach mechanism between blocks. Runs of separate
 * JVMs differ by more than a profiler costs on work that allocates and calls widely (the JIT
 * decides differently each time); blocks of one JVM share its compiled code, so their ratios
 * show a few tenths of a point.
 *
 * Each round times every mode once, in an order shuffled for the round (a fixed seed), each block
 * after a full collection and SETTLE_UNITS untimed units that let the mode settle (fgagent's start
 * replays the compiled methods and its drainer's first pass reads the symbol tables; their traces
 * in the cache would count against fgagent). The collection puts every block at the same point
 * of the heap's cycle: work that allocates collects every few blocks, and with the order rotated
 * (as it was to 2026-11-27) the collections fell on the same modes round after round, so that
 * the floor's blocks at 100 ms, with about no signals, came out 0.8 points cheaper than
 * nothing's on the demo. The shuffle leaves no mode always after another one.
 * Prints one line a block:
 *   BLOCK round mode elapsed_ns thread_cpu_ns
 * fgagent writes each block's profile and summary to OUTDIR/fg-ROUND.{collapsed,log}.
 * With a second fgagent library (FGAGENT2, another build of it), each round also times a block
 * with that one (mode fgagent2, files OUTDIR/fg2-ROUND.*): two builds compared in one JVM ("-":
 * none). With a second floor agent (FLOOR2, a copy of the floor agent's library at another path,
 * so that the JVM loads it apart, with its own options), each round also times a block with it
 * (mode floor2): two mechanisms' floors in the same rounds.
 * Needs -Djdk.attach.allowAttachSelf=true.
 * Run: PairedBench KIND UNITS_PER_BLOCK SETTLE_UNITS ROUNDS WARMUP_UNITS FGAGENT FGAGENT_OPTIONS FLOOR
 *      FLOOR_OPTIONS OUTDIR [FGAGENT2|- [FLOOR2 FLOOR2_OPTIONS]]
 */
public final class PairedBench {

  public static void main(String[] args) throws Exception {
    if ((args.length != 10 && args.length != 11 && args.length != 13) || !Bench.known(args[0])) {
      System.err.println("PairedBench: usage: KIND(demo|mix|deep) UNITS_PER_BLOCK SETTLE_UNITS ROUNDS WARMUP_UNITS "
          + "FGAGENT FGAGENT_OPTIONS FLOOR FLOOR_OPTIONS OUTDIR [FGAGENT2|- [FLOOR2 FLOOR2_OPTIONS]]");
      System.exit(2);
    }
    String kind = args[0];
    int units = Integer.parseInt(args[1]), settle = Integer.parseInt(args[2]), rounds = Integer.parseInt(args[3]);
    int warmup = Integer.parseInt(args[4]);
    String fg = args[5], fgOptions = args[6], floor = args[7], floorOptions = args[8], out = args[9];
    String fg2 = args.length > 10 && !args[10].equals("-") ? args[10] : null;
    String floor2 = args.length == 13 ? args[11] : null, floor2Options = args.length == 13 ? args[12] : null;
    List<String> modes = new ArrayList<>(List.of("none", "floor", "fgagent"));
    if (fg2 != null)
      modes.add("fgagent2");
    if (floor2 != null)
      modes.add("floor2");
    VirtualMachine self = VirtualMachine.attach(String.valueOf(ProcessHandle.current().pid()));
    long s = 0;
    for (int i = 0; i < warmup; i++)
      s = Bench.unit(kind, i, s);
    int next = warmup;
    Random order = new Random(20261127);
    List<String> shuffled = new ArrayList<>(modes);
    for (int round = 1; round <= rounds; round++) {
      Collections.shuffle(shuffled, order);
      for (String mode : shuffled) {
        boolean agent = mode.startsWith("fgagent");   // fgagent or fgagent2: which library, which files
        String lib = mode.equals("fgagent2") ? fg2 : fg, files = mode.equals("fgagent2") ? "/fg2-" : "/fg-";
        System.gc();
        if (mode.equals("floor"))
          self.loadAgentPath(floor, floorOptions);
        else if (mode.equals("floor2"))
          self.loadAgentPath(floor2, floor2Options);
        else if (agent)
          self.loadAgentPath(lib, start(fgOptions, out + files + round));
        for (int i = 0; i < settle; i++)
          s = Bench.unit(kind, next++, s);
        long c0 = Work.threadCpuNanos(), t0 = System.nanoTime();
        for (int i = 0; i < units; i++)
          s = Bench.unit(kind, next++, s);
        long elapsed = System.nanoTime() - t0, cpu = Work.threadCpuNanos() - c0;
        if (mode.equals("floor"))
          self.loadAgentPath(floor, "off");
        else if (mode.equals("floor2"))
          self.loadAgentPath(floor2, "off");
        else if (agent)
          self.loadAgentPath(lib, "stop");
        System.out.println("BLOCK " + round + " " + mode + " " + elapsed + " " + cpu);
      }
    }
    Work.sink = s;
    self.detach();
  }

  /** fgagent's attach options that start it, writing its profile and summary to files PREFIX.*. */
  static String start(String options, String prefix) {
    return "start," + options + ",file=" + prefix + ".collapsed,log=" + prefix + ".log";
  }
}
