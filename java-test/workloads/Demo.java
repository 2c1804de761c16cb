import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The bundled demo: an order-processing service in miniature. Workers parse
 * text orders, validate them with a regex, aggregate totals per customer in a
 * map, sort the report and render it. Run: Demo SECONDS
 */
public final class Demo {
  private static final Pattern ORDER =
      Pattern.compile("order=(\\d+);customer=([a-z]+);amount=(\\d+)\\.(\\d{2});sku=([A-Z0-9-]+)");

  static String makeOrder(int i) {
    return "order=" + i + ";customer=cust" + (char) ('a' + i % 26)
        + ";amount=" + (i % 997) + "." + String.format("%02d", i % 100) + ";sku=SKU-" + (i % 50);
  }

  static long parseCents(Matcher m) {
    return Long.parseLong(m.group(3)) * 100 + Long.parseLong(m.group(4));
  }

  static Map<String, Long> aggregate(List<String> orders) {
    Map<String, Long> totals = new HashMap<>();
    for (String o : orders) {
      Matcher m = ORDER.matcher(o);
      if (m.matches())
        totals.merge(m.group(2), parseCents(m), Long::sum);
    }
    return totals;
  }

  static String render(Map<String, Long> totals) {
    List<Map.Entry<String, Long>> rows = new ArrayList<>(totals.entrySet());
    rows.sort((a, b) -> Long.compare(b.getValue(), a.getValue()));
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, Long> e : rows)
      sb.append(e.getKey()).append(": ").append(e.getValue() / 100).append('.')
          .append(e.getValue() % 100).append('\n');
    return sb.toString();
  }

  static int checksum(String report) {
    int h = 0;
    for (int round = 0; round < 200; round++)
      for (int i = 0; i < report.length(); i++)
        h = 31 * h + report.charAt(i) + round;
    return h;
  }

  static int batch(int seed) {
    List<String> orders = new ArrayList<>();
    for (int i = 0; i < 2000; i++)
      orders.add(makeOrder(seed * 2000 + i));
    return checksum(render(aggregate(orders)));
  }

  public static void main(String[] args) throws Exception {
    double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 5;
    long end = System.nanoTime() + (long) (seconds * 1e9);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    long[] sum = new long[2];
    for (int w = 0; w < 2; w++) {
      final int worker = w;
      pool.submit(() -> {
        int seed = worker;
        while (System.nanoTime() < end)
          sum[worker] += batch(seed += 2);
      });
    }
    pool.shutdown();
    pool.awaitTermination(1, TimeUnit.HOURS);
    System.out.println("demo checksum " + (sum[0] ^ sum[1]));
  }
}
