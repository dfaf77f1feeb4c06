package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Prometheus's own tools from Debian's {@code prometheus} package, which scripts/prerequisites
 * installs: {@code promtool} and the {@code prometheus} server. A missing binary fails the test
 * that needs it, saying how to install it: CI runs the prerequisites, so there it is always
 * present, and a check that silently skips would let broken rules through.
 */
final class Promtool {
  private Promtool() {}

  /** What one run printed (stdout and stderr together) and its exit status. */
  record Run(List<String> command, int exit, String output) {
    /** Prints the command and promtool's own words, which the test report keeps. */
    Run report() {
      System.out.println("$ " + String.join(" ", command) + "\n" + output + "(exit " + exit + ")\n");
      return this;
    }

    Run assertSucceeded() {
      assertThat(exit).as("%s said:%n%s", String.join(" ", command), output).isZero();
      return this;
    }
  }

  /** The path of a binary of the prometheus package, or a failed test saying how to get it. */
  static Path binary(String name) {
    try {
      return PrometheusServer.binary(name);
    } catch (IllegalStateException e) {
      return fail(e.getMessage());
    }
  }

  /** Runs promtool with {@code args} in {@code dir}, feeding {@code stdin} when not null. */
  static Run run(Path dir, String stdin, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(binary("promtool").toString());
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    try (OutputStream in = process.getOutputStream()) {
      if (stdin != null) {
        in.write(stdin.getBytes(StandardCharsets.UTF_8));
      }
    }
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      return fail("promtool did not finish within a minute: " + command);
    }
    return new Run(List.of("promtool", String.join(" ", List.of(args))), process.exitValue(), output);
  }
}
