package io.shipstream.failover.dev;

import io.shipstream.failover.testsupport.Flavor;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * An end-to-end test class whose tests run in order on one stack, started by the class's own
 * {@code @BeforeAll} ({@code stack = FailoverStack.start(work, ...)}) and closed after the last
 * test, whatever happened. A class whose tests run per {@link Flavor} asks {@link #stackOf} at the
 * top of each test instead: one stack per flavor, started by the first test of that flavor and
 * shared by the rest, as the single stack is. Compare {@link StackPerTest}.
 */
abstract class StackPerClass {
  @TempDir
  static Path work;
  static FailoverStack stack;
  private static final Map<Flavor, FailoverStack> STACKS = new EnumMap<>(Flavor.class);

  /**
   * Skips the test when {@code flavor} cannot run here; otherwise makes {@link #stack} the class's
   * stack of that flavor, starting it with {@code options} the first time.
   */
  static FailoverStack stackOf(Flavor flavor, FailoverStack.Options options) {
    flavor.assumeAvailable();
    stack = STACKS.computeIfAbsent(flavor,
        f -> FailoverStack.start(work.resolve(f.name().toLowerCase(Locale.ROOT)), options.withFlavor(f)));
    return stack;
  }

  @AfterAll
  static void closeStack() {
    if (stack != null && !STACKS.containsValue(stack)) {
      stack.close();
    }
    stack = null;
    STACKS.values().forEach(FailoverStack::close);
    STACKS.clear();
  }
}
