package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.testsupport.MockCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The playground script itself, run from a copy of the checkout's layout in a temporary directory
 * (the script, the built classes and classpath, the logback file), so that nothing it writes
 * touches a stack a developer is serving.
 */
class PlaygroundScriptIT {
  private static final Path MODULE = Path.of("").toAbsolutePath();

  @TempDir
  Path checkout;

  /**
   * The serve process keeps writing its log at its own offset; a client command that truncated the
   * file would leave its start full of NUL bytes. Its content must survive any number of calls.
   * {@code get} runs against a mock API server standing in for serve's: it must get as far as
   * building its Kubernetes client, which is what starts the logging.
   */
  @Test
  void theCommandsAgainstServeNeverTruncateServesLog() throws Exception {
    Path devDir = layOutCheckout();
    Path serveLog = devDir.resolve("target/playground.log");
    String serveLines = "12:00:00.000 INFO  WatcherApp - watching MysqlFailoverGroups in all namespaces\n";
    Files.writeString(serveLog, serveLines);

    try (MockCluster kube = MockCluster.start()) {
      kube.createGroup(FailoverStack.GROUP_NAME, List.of(MockCluster.site(FailoverStack.GROUP_NAME, "iad", "10.0.1.10"),
          MockCluster.site(FailoverStack.GROUP_NAME, "pdx", "10.0.2.10")));
      kube.setStatus(new GroupRef(MockCluster.NAMESPACE, FailoverStack.GROUP_NAME),
          MysqlFailoverGroupStatus.empty().withActiveSite("iad"));
      Kubeconfig.write(kube.client().getMasterUrl().toString(), MockCluster.NAMESPACE,
          devDir.resolve("target/playground/serve/kubeconfig"));

      for (int i = 0; i < 2; i++) {
        Process run = new ProcessBuilder("bash", devDir.resolve("playground").toString(), "get")
            .redirectErrorStream(true).start();
        String output = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(run.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(run.exitValue()).as(output).isZero();
        assertThat(output).contains("activeSite: iad");
      }
    }

    assertThat(Files.readString(serveLog)).isEqualTo(serveLines);
    assertThat(devDir.resolve("target/playground-client.log")).exists();
  }

  /**
   * {@code ./temporal-dev/benchmark --help}, of any subcommand, prints the usage and exits 0 at
   * once; it went on to build and threw the argument parser's exception with its stack trace.
   */
  @Test
  void theBenchmarksHelpPrintsItsUsage() throws Exception {
    for (List<String> args : List.of(List.of("--help"), List.of("emergency", "--help"), List.of("fleet", "-h"))) {
      List<String> command = new java.util.ArrayList<>(List.of("bash", MODULE.resolve("benchmark").toString()));
      command.addAll(args);
      Process run = new ProcessBuilder(command).redirectErrorStream(true).start();
      String output = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(run.waitFor(30, TimeUnit.SECONDS)).isTrue();
      assertThat(run.exitValue()).as(output).isZero();
      assertThat(output).as(String.join(" ", args)).contains("./temporal-dev/benchmark emergency [N]")
          .contains("./temporal-dev/benchmark all").doesNotContain("Exception").doesNotContain("#");
    }
  }

  /**
   * {@code ./temporal-dev/faults --help} prints the usage and exits 0 at once: it built the project
   * first (minutes on a fresh checkout) before the suite printed it.
   */
  @Test
  void theFaultSuitesHelpPrintsItsUsageWithoutABuild() throws Exception {
    Path devDir = Files.createDirectories(checkout.resolve("temporal-dev"));
    Files.copy(MODULE.resolve("faults"), devDir.resolve("faults"), StandardCopyOption.COPY_ATTRIBUTES);
    failingBuild();
    for (String flag : List.of("--help", "-h")) {
      String output = run(checkout, 0, "bash", devDir.resolve("faults").toString(), "--cases", "x", flag);
      assertThat(output).contains("./temporal-dev/faults --cases a,b").contains("--flavor mysql")
          .contains("Exits 0 when every invariant held").doesNotContain("Exception").doesNotContain("#")
          .doesNotContain("built");
    }
  }

  /**
   * {@code ./temporal-dev/playground --help} on a checkout not built yet prints the usage at once
   * rather than building; once built, it lists the scenarios from the classes, still without a build.
   */
  @Test
  void thePlaygroundsHelpNeedsNoBuild() throws Exception {
    Path devDir = Files.createDirectories(checkout.resolve("temporal-dev"));
    Files.copy(MODULE.resolve("playground"), devDir.resolve("playground"), StandardCopyOption.COPY_ATTRIBUTES);
    failingBuild();
    String unbuilt = run(checkout, 0, "bash", devDir.resolve("playground").toString(), "--help");
    assertThat(unbuilt).contains("./temporal-dev/playground serve").contains("annotate <value>|get|cancel")
        .contains("once the first run has built the project").doesNotContainPattern("(?m)^#")
        .doesNotContain("built it");

    Files.delete(devDir.resolve("playground"));
    layOutCheckout();
    String built = run(checkout, 0, "bash", devDir.resolve("playground").toString(), "-h");
    assertThat(built).contains("planned-switchover").contains("annotate <value>").doesNotContain("built it");
  }

  /**
   * {@code annotate} against serve goes through kubectl when it is installed: the annotation is set
   * through serve's gateway and the run is followed to its end, printed as the JVM command prints
   * it, with no JVM (which took about 6 s to start for one annotation) and so no client log.
   */
  @Test
  void annotateGoesThroughKubectlWhenItIsInstalled() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(new ProcessBuilder("bash", "-c", "command -v kubectl").start()
        .waitFor() == 0, "kubectl is not installed");
    Path devDir = layOutCheckout();
    GroupRef group = new GroupRef(MockCluster.NAMESPACE, FailoverStack.GROUP_NAME);
    try (MockCluster kube = MockCluster.start();
        KubectlGateway gateway = KubectlGateway.start(kube.client().getMasterUrl().toString())) {
      kube.createGroup(FailoverStack.GROUP_NAME, List.of(MockCluster.site(FailoverStack.GROUP_NAME, "iad", "10.0.1.10"),
          MockCluster.site(FailoverStack.GROUP_NAME, "pdx", "10.0.2.10")));
      // The previous run, which the follow must not take for this one.
      kube.setStatus(group, MysqlFailoverGroupStatus.empty().withActiveSite("iad").withPlannedFailover(
          new PlannedFailoverStatus("Succeeded", "iad", "pdx", null, null, "2026-01-01T00:00:00Z", null, 0.3, 0L, null,
              null, null, null)));
      Kubeconfig.write(gateway.url(), MockCluster.NAMESPACE, devDir.resolve("target/playground/serve/kubeconfig"));

      Process annotate = new ProcessBuilder("bash", devDir.resolve("playground").toString(), "annotate", "pdx")
          .redirectErrorStream(true).start();
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!"pdx".equals(annotation(kube, group)) && annotate.isAlive() && System.nanoTime() < until) {
        Thread.sleep(20);
      }
      assertThat(annotation(kube, group)).as("the annotation set through the gateway").isEqualTo("pdx");
      // What the workflow writes when it is done.
      kube.setStatus(group, MysqlFailoverGroupStatus.empty().withActiveSite("pdx").withPlannedFailover(
          new PlannedFailoverStatus("Succeeded", "pdx", "iad", null, null, java.time.Instant.now().plusSeconds(1)
              .toString(), null, 0.252, 0L, null, null, null, null)));

      assertThat(annotate.waitFor(60, TimeUnit.SECONDS)).isTrue();
      String output = new String(annotate.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(annotate.exitValue()).as(output).isZero();
      assertThat(output).contains("annotated mysqlfailovergroup/orders with "
          + io.shipstream.failover.model.crd.MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION + "=pdx")
          .containsPattern("\\+\\d+ ms  Succeeded").contains("Succeeded in 0.252 s");
    }
    assertThat(devDir.resolve("target/playground-client.log")).as("no JVM started").doesNotExist();
  }

  private static String annotation(MockCluster kube, GroupRef group) {
    var annotations = kube.group(group).getMetadata().getAnnotations();
    return annotations == null ? null
        : annotations.get(io.shipstream.failover.model.crd.MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION);
  }

  /** Stands in for the prerequisites and the build with scripts that fail, saying so: none may run. */
  private void failingBuild() throws IOException {
    Path scripts = Files.createDirectories(checkout.resolve("scripts"));
    for (String stub : List.of("prerequisites", "mvn-quiet")) {
      Files.writeString(scripts.resolve(stub), "#!/usr/bin/env bash\necho \"$0 built it\"\nexit 1\n");
      scripts.resolve(stub).toFile().setExecutable(true);
    }
  }

  private static String run(Path dir, int exit, String... command) throws Exception {
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(output).isEqualTo(exit);
    return output;
  }

  /**
   * The scripts build through scripts/mvn-quiet, whose output holds no escape codes: Debian's
   * Maven wrote terminal resets even with -B -q, and they showed in serve's captured output.
   */
  @Test
  void theScriptsBuildWithoutEscapeCodes() throws Exception {
    Path root = MODULE.getParent();
    for (String script : List.of("playground", "benchmark", "faults")) {
      String text = Files.readString(MODULE.resolve(script));
      assertThat(text).as(script).contains("scripts/mvn-quiet install").doesNotContainPattern("(?m)^\\s*mvn ");
    }
    Files.writeString(checkout.resolve("pom.xml"), """
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>io.shipstream.failover</groupId><artifactId>escape-check</artifactId><version>1</version>
          <packaging>pom</packaging>
        </project>
        """);
    Process run = new ProcessBuilder(root.resolve("scripts/mvn-quiet").toString(), "-o", "-f",
        checkout.resolve("pom.xml").toString(), "validate").redirectErrorStream(true).start();
    String output = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(run.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(run.exitValue()).as(output).isZero();
    assertThat(output).as("what the build printed").doesNotContain("\u001b");
  }

  /**
   * {@code serve &} from a script: the job starts with SIGINT ignored, which the JVM kept, so
   * {@code kill -INT} did nothing and the stack stayed up. Now it stops as on Ctrl-C. The build
   * and the prerequisites are stood in for (this is about the process the script starts).
   */
  @Test
  void aBackgroundedServeStopsOnSigint() throws Exception {
    Path devDir = layOutCheckout();
    Path scripts = Files.createDirectories(checkout.resolve("scripts"));
    for (String stub : List.of("prerequisites", "mvn-quiet")) {
      Files.writeString(scripts.resolve(stub), "#!/usr/bin/env bash\nexit 0\n");
      scripts.resolve(stub).toFile().setExecutable(true);
    }
    Path out = checkout.resolve("serve.out");
    Path pidFile = checkout.resolve("serve.pid");
    Process shell = new ProcessBuilder("bash", "-c", "temporal-dev/playground serve --no-writer --no-monitor > "
        + out + " 2>&1 & echo $! > " + pidFile + "; wait").directory(checkout.toFile()).start();
    long pid = -1;
    try {
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
      while (!(Files.exists(out) && Files.readString(out).contains("The stack stays up until Ctrl-C"))
          && shell.isAlive() && System.nanoTime() < until) {
        Thread.sleep(200);
      }
      assertThat(Files.readString(out)).contains("The stack stays up until Ctrl-C");
      pid = Long.parseLong(Files.readString(pidFile).trim());
      assertThat(new ProcessBuilder("kill", "-INT", Long.toString(pid)).start().waitFor()).isZero();
      assertThat(shell.waitFor(60, TimeUnit.SECONDS)).as("serve ended after SIGINT").isTrue();
      assertThat(Files.readString(out)).contains("stopping the stack...");
    } finally {
      if (pid > 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
        // SIGTERM always reached it; its shutdown stops every server it started.
        new ProcessBuilder("kill", "-TERM", Long.toString(pid)).start().waitFor();
        shell.waitFor(60, TimeUnit.SECONDS);
      }
    }
  }

  private Path layOutCheckout() throws IOException {
    Path devDir = Files.createDirectories(checkout.resolve("temporal-dev"));
    Files.copy(MODULE.resolve("playground"), devDir.resolve("playground"), StandardCopyOption.COPY_ATTRIBUTES);
    Path target = Files.createDirectories(devDir.resolve("target"));
    Files.copy(MODULE.resolve("target/classpath.txt"), target.resolve("classpath.txt"));
    Files.createSymbolicLink(target.resolve("classes"), MODULE.resolve("target/classes"));
    Path resources = Files.createDirectories(devDir.resolve("src/main/resources"));
    Files.copy(MODULE.resolve("src/main/resources/playground-logback.xml"),
        resources.resolve("playground-logback.xml"));
    return devDir;
  }
}
