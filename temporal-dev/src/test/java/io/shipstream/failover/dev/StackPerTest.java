package io.shipstream.failover.dev;

import io.shipstream.failover.testsupport.Flavor;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * An end-to-end test class whose every test starts a stack of its own ({@code stack =
 * FailoverStack.start(work, ...)}): a killed server, an errant transaction or a cooldown must not
 * leak into the next test. The stack is closed after each, whatever happened.
 */
abstract class StackPerTest {
  @TempDir
  Path work;
  FailoverStack stack;

  /** Skips the test when {@code flavor} cannot run here; otherwise starts the test's stack of that flavor. */
  FailoverStack start(Flavor flavor, FailoverStack.Options options) {
    flavor.assumeAvailable();
    stack = FailoverStack.start(work, options.withFlavor(flavor));
    return stack;
  }

  @AfterEach
  void closeStack() {
    if (stack != null) {
      stack.close();
      stack = null;
    }
  }
}
