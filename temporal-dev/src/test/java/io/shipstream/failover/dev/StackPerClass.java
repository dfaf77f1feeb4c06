package io.shipstream.failover.dev;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * An end-to-end test class whose tests run in order on one stack, started by the class's own
 * {@code @BeforeAll} ({@code stack = FailoverStack.start(work, ...)}) and closed after the last
 * test, whatever happened. Compare {@link StackPerTest}.
 */
abstract class StackPerClass {
  @TempDir
  static Path work;
  static FailoverStack stack;

  @AfterAll
  static void closeStack() {
    if (stack != null) {
      stack.close();
      stack = null;
    }
  }
}
