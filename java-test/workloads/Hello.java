/** Prints one line: the shortest run a profiler has to survive. */
public final class Hello {
  public static void main(String[] args) {
    System.out.println("hello");
  }
}
