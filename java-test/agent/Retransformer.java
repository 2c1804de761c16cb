import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;

/**
 * A java agent that does what APM agents do to a hot class: retransforms it every 100 ms (the
 * class named by the agent's argument, ScaleHot unless given), its transformer handing back the
 * bytes unchanged, so that HotSpot makes new methods (new Method*s) for it each time.
 * Run: java -javaagent:retransformer.jar[=CLASS] ...
 */
public final class Retransformer {
  public static void premain(String arg, Instrumentation inst) {
    String name = arg == null || arg.isEmpty() ? "ScaleHot" : arg;
    inst.addTransformer(new ClassFileTransformer() {
      @Override
      public byte[] transform(ClassLoader l, String n, Class<?> c, ProtectionDomain d, byte[] bytes) {
        return n != null && n.equals(name) ? bytes.clone() : null;
      }
    }, true);
    Thread t = new Thread(() -> {
      long done = 0;
      for (;;) {
        try {
          Thread.sleep(100);
          for (Class<?> c : inst.getAllLoadedClasses())
            if (c.getName().equals(name)) {
              inst.retransformClasses(c);
              done++;
            }
        } catch (InterruptedException e) {
          return;
        } catch (Exception e) {
          System.err.println("retransformer: " + e);
          return;
        }
        if (done > 0 && done % 10 == 0)
          System.setProperty("retransformer.done", Long.toString(done));
      }
    }, "retransformer");
    t.setDaemon(true);
    t.start();
  }
}
