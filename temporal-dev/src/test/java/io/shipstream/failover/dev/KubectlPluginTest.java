package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.topology.FencedSites;
import io.shipstream.failover.model.topology.PauseAnnotation;
import io.shipstream.failover.testsupport.MockCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scripts/kubectl-failover}, the kubectl plugin: what each subcommand asks kubectl (a
 * recording stand-in), and, where kubectl is installed, the annotations it really leaves on a
 * group of the mock API server behind the gateway kubectl needs.
 */
class KubectlPluginTest {
  private static final Path PLUGIN = Path.of("..", "scripts", "kubectl-failover").toAbsolutePath().normalize();

  @TempDir
  Path dir;

  private record Run(int exit, String output, List<String> kubectlCalls) {}

  /** Runs the plugin with a kubectl that only records its arguments, one call per line. */
  private Run recorded(String... args) throws Exception {
    return withKubectl("", args);
  }

  /**
   * Runs the plugin with a fake kubectl that records each call's arguments and then runs {@code
   * script} (bash, the call's arguments in {@code $*}).
   */
  private Run withKubectl(String script, String... args) throws Exception {
    Path calls = dir.resolve("calls");
    Files.deleteIfExists(calls);
    Path fake = dir.resolve("kubectl");
    Files.writeString(fake, "#!/usr/bin/env bash\necho \"$*\" >> '" + calls + "'\n" + script);
    fake.toFile().setExecutable(true);
    return run(Map.of("KUBECTL", fake.toString()), args, calls);
  }

  private Run run(Map<String, String> env, String[] args, Path calls) throws Exception {
    long started = System.nanoTime();
    try {
      return runTimed(env, args, calls);
    } finally {
      if (calls == null) {
        System.out.printf("kubectl failover %s: %d ms%n", String.join(" ", args),
            (System.nanoTime() - started) / 1_000_000);
      }
    }
  }

  private Run runTimed(Map<String, String> env, String[] args, Path calls) throws Exception {
    List<String> command = new ArrayList<>(List.of("bash", PLUGIN.toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().putAll(env);
    Process p = pb.start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int exit = p.waitFor();
    List<String> made = calls != null && Files.exists(calls) ? Files.readAllLines(calls) : List.of();
    return new Run(exit, output, made);
  }

  @Test
  void eachSubcommandIsOneAnnotationOrRead() throws Exception {
    String g = "mysqlfailovergroup orders ";
    assertThat(recorded("switchover", "orders", "pdx").kubectlCalls())
        .containsExactly("annotate " + g + "bloodraven.shipstream.io/planned-failover=pdx --overwrite");
    assertThat(recorded("switchover", "orders", "pdx", "30s").kubectlCalls())
        .containsExactly("annotate " + g + "bloodraven.shipstream.io/planned-failover=pdx:maxLagWait=30s --overwrite");
    assertThat(recorded("switchover", "orders", "pdx", "--at", "2026-12-01T02:00:00Z").kubectlCalls())
        .containsExactly(
            "annotate " + g + "bloodraven.shipstream.io/planned-failover=pdx:at=2026-12-01T02:00:00Z --overwrite");
    assertThat(recorded("switchover", "orders", "pdx", "30s", "--at=2026-12-01T03:00:00+01:00").kubectlCalls())
        .containsExactly("annotate " + g + "bloodraven.shipstream.io/planned-failover="
            + "pdx:maxLagWait=30s:at=2026-12-01T03:00:00+01:00 --overwrite");
    assertThat(recorded("cancel", "orders").kubectlCalls())
        .containsExactly("annotate " + g + "bloodraven.shipstream.io/planned-failover-");
    assertThat(recorded("pause", "orders").kubectlCalls())
        .containsExactly("annotate " + g + PauseAnnotation.ANNOTATION + "=true --overwrite");
    assertThat(recorded("resume", "orders").kubectlCalls())
        .containsExactly("annotate " + g + PauseAnnotation.ANNOTATION + "-");
    assertThat(recorded("promote-anyway", "orders", "pdx").kubectlCalls())
        .containsExactly("annotate " + g + "bloodraven.shipstream.io/promote-anyway=pdx --overwrite");
    assertThat(recorded("history", "orders").kubectlCalls()).hasSize(2).satisfiesExactly(
        events -> assertThat(events).startsWith(
            "get events --field-selector involvedObject.kind=MysqlFailoverGroup,involvedObject.name=orders"),
        runs -> assertThat(runs).startsWith("get " + g + "-o jsonpath={range .status.failoverHistory[*]}"));
    assertThat(recorded("status", "orders").kubectlCalls()).hasSize(3).allSatisfy(c -> assertThat(c)
        .startsWith("get " + g.strip()));
    // kubectl's own flags are passed on, before the subcommand's arguments.
    assertThat(recorded("-n", "shop", "--context", "prod", "pause", "orders").kubectlCalls())
        .containsExactly("-n shop --context prod annotate " + g + PauseAnnotation.ANNOTATION + "=true --overwrite");
  }

  /** Runs the plugin with a recording kubectl that answers every {@code get} with {@code answer}. */
  private Run answering(String answer, String... args) throws Exception {
    return withKubectl("if [[ \" $* \" == *\" get \"* ]]; then printf '%s' '" + answer + "'; fi\n", args);
  }

  /**
   * A dry run sets its own annotation (never planned-failover), waits for the run to remove it,
   * prints status.dryRun, and exits 1 when the request would be refused or the emergency path is
   * blocked; --dry-run takes neither maxLagWait nor --at.
   */
  @Test
  void aDryRunIsItsOwnAnnotationAndItsVerdictIsTheExitCode() throws Exception {
    String g = "mysqlfailovergroup orders ";
    Run ready = recorded("switchover", "orders", "pdx", "--dry-run");
    assertThat(ready.exit()).as(ready.output()).isZero();
    assertThat(ready.kubectlCalls().get(0))
        .isEqualTo("annotate " + g + "bloodraven.shipstream.io/dry-run=pdx --overwrite");
    assertThat(ready.kubectlCalls()).noneMatch(c -> c.contains("planned-failover"))
        .anyMatch(c -> c.startsWith("get " + g + "-o jsonpath=DRY RUN {.status.dryRun.kind}"));
    assertThat(recorded("precheck", "orders").kubectlCalls().get(0))
        .isEqualTo("annotate " + g + "bloodraven.shipstream.io/dry-run=emergency --overwrite");

    Run refused = verdict("Refused", "switchover", "orders", "pdx", "--dry-run");
    assertThat(refused.exit()).isEqualTo(1);
    assertThat(refused.output()).contains("Refused");
    assertThat(verdict("Blocked", "precheck", "orders").exit()).isEqualTo(1);
    assertThat(verdict("WouldPromote", "precheck", "orders").exit()).isZero();

    Run withLag = recorded("switchover", "orders", "pdx", "30s", "--dry-run");
    assertThat(withLag.exit()).isEqualTo(2);
    assertThat(withLag.output()).contains("--dry-run takes no maxLagWait or --at");
    assertThat(withLag.kubectlCalls()).isEmpty();
  }

  /** A kubectl whose annotation read finds the dry run done and whose other reads answer {@code verdict}. */
  private Run verdict(String verdict, String... args) throws Exception {
    return withKubectl("if [[ \" $* \" == *\" get \"* && \" $* \" != *dry-run}* ]]; then printf '%s' '" + verdict
        + "'; fi\n", args);
  }

  /** fence and unfence edit the list as read, guarded by the resourceVersion read with it. */
  @Test
  void fenceAndUnfenceEditTheListAnnotation() throws Exception {
    String g = "mysqlfailovergroup orders ";
    String read = "get " + g + "-o jsonpath={.metadata.resourceVersion} "
        + "{.metadata.annotations.bloodraven\\.shipstream\\.io/fenced-sites}";
    assertThat(answering("42 ", "fence", "orders", "dr").kubectlCalls()).containsExactly(read,
        "annotate " + g + FencedSites.ANNOTATION + "=dr --overwrite --resource-version 42");
    assertThat(answering("42 iad", "fence", "orders", "dr").kubectlCalls()).last()
        .isEqualTo("annotate " + g + FencedSites.ANNOTATION + "=iad,dr --overwrite --resource-version 42");
    assertThat(answering("42 iad,dr", "fence", "orders", "dr").kubectlCalls()).as("already fenced: the same list")
        .last().isEqualTo("annotate " + g + FencedSites.ANNOTATION + "=iad,dr --overwrite --resource-version 42");
    assertThat(answering("42 iad,dr", "unfence", "orders", "iad").kubectlCalls()).last()
        .isEqualTo("annotate " + g + FencedSites.ANNOTATION + "=dr --overwrite --resource-version 42");
    assertThat(answering("42 dr", "unfence", "orders", "dr").kubectlCalls()).last()
        .isEqualTo("annotate " + g + FencedSites.ANNOTATION + "- --resource-version 42");
    Run notFenced = answering("42 dr", "unfence", "orders", "pdx");
    assertThat(notFenced.kubectlCalls()).containsExactly(read);
    assertThat(notFenced.output()).contains("site 'pdx' is not fenced in orders");
    assertThat(recorded("fence", "orders", "D R").kubectlCalls()).as("a malformed site").isEmpty();
    assertThat(recorded("unfence", "orders").exit()).isEqualTo(2);
  }

  @Test
  void badInputIsRefusedWithoutCallingKubectl() throws Exception {
    for (String[] args : List.of(new String[] {"switchover", "orders", "PDX;rm"}, new String[] {"switchover", "orders"},
        new String[] {"switchover", "orders", "pdx", "--at", "tomorrow"},
        new String[] {"switchover", "orders", "pdx", "--at", "2026-12-01T02:00:00"},
        new String[] {"switchover", "orders", "pdx", "--at"},
        new String[] {"promote-anyway", "orders", "a b"}, new String[] {"frobnicate", "orders"},
        new String[] {"pause"}, new String[] {})) {
      Run run = recorded(args);
      assertThat(run.exit()).as(String.join(" ", args)).isEqualTo(2);
      assertThat(run.kubectlCalls()).as(String.join(" ", args)).isEmpty();
      assertThat(run.output()).as(String.join(" ", args)).isNotBlank();
    }
  }

  /** With the real kubectl, against the mock API server: the annotations land on the group. */
  @Test
  void withTheRealKubectlTheAnnotationsLandOnTheGroup() throws Exception {
    Optional<Path> kubectl = Stream.of(System.getenv("PATH").split(":")).map(d -> Path.of(d, "kubectl"))
        .filter(Files::isExecutable).findFirst();
    Assumptions.assumeTrue(kubectl.isPresent(), "kubectl is not installed here; the recorded runs above still ran");
    try (MockCluster kube = MockCluster.start();
        KubectlGateway gateway = KubectlGateway.start(kube.client().getMasterUrl().toString())) {
      GroupRef orders = new GroupRef(MockCluster.NAMESPACE, "orders");
      kube.createGroup("orders", List.of(MockCluster.site("orders", "iad", "10.0.1.10"),
          MockCluster.site("orders", "pdx", "10.0.2.10")));
      Path config = Kubeconfig.write(gateway.url(), MockCluster.NAMESPACE, dir.resolve("kubeconfig"));
      Map<String, String> env = Map.of("KUBECONFIG", config.toString(), "HOME", dir.toString());

      Run pause = run(env, new String[] {"pause", "orders"}, null);
      assertThat(pause.exit()).as(pause.output()).isZero();
      assertThat(annotations(kube, orders)).containsEntry(PauseAnnotation.ANNOTATION, "true");

      Run switchover = run(env, new String[] {"switchover", "orders", "pdx"}, null);
      assertThat(switchover.exit()).as(switchover.output()).isZero();
      assertThat(annotations(kube, orders)).containsEntry(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION, "pdx");

      Run fence = run(env, new String[] {"fence", "orders", "pdx"}, null);
      assertThat(fence.exit()).as(fence.output()).isZero();
      Run fenceMore = run(env, new String[] {"fence", "orders", "iad"}, null);
      assertThat(fenceMore.exit()).as(fenceMore.output()).isZero();
      assertThat(annotations(kube, orders)).containsEntry(FencedSites.ANNOTATION, "pdx,iad");
      Run unfence = run(env, new String[] {"unfence", "orders", "pdx"}, null);
      assertThat(unfence.exit()).as(unfence.output()).isZero();
      assertThat(annotations(kube, orders)).containsEntry(FencedSites.ANNOTATION, "iad");

      Run resume = run(env, new String[] {"resume", "orders"}, null);
      assertThat(resume.exit()).as(resume.output()).isZero();
      // Gone on a real API server; the mock's merge patch keeps the key with a null value.
      assertThat(annotations(kube, orders).get(PauseAnnotation.ANNOTATION)).isNull();
    }
  }

  /**
   * Issue 31 item 14, on the playground's gateway with the real kubectl: docs/operating/day-2.md's "Watch it"
   * command lists the group's Events (it said "No resources found"), and {@code history} prints
   * them and the group's last failovers (it printed only its header), nothing of another group.
   */
  @Test
  void withTheRealKubectlHistoryPrintsTheGroupsEventsAndItsLastFailovers() throws Exception {
    Optional<Path> kubectl = Stream.of(System.getenv("PATH").split(":")).map(d -> Path.of(d, "kubectl"))
        .filter(Files::isExecutable).findFirst();
    Assumptions.assumeTrue(kubectl.isPresent(), "kubectl is not installed here; KubectlGatewayTest sends its requests");
    try (MockCluster kube = MockCluster.start();
        KubectlGateway gateway = KubectlGateway.start(kube.client().getMasterUrl().toString())) {
      GroupRef orders = new GroupRef(MockCluster.NAMESPACE, "orders");
      for (String name : List.of("orders", "billing")) {
        kube.createGroup(name, List.of(MockCluster.site(name, "iad", "10.0.1.10"),
            MockCluster.site(name, "pdx", "10.0.2.10")));
        kube.client().v1().events().inNamespace(MockCluster.NAMESPACE)
            .resource(new io.fabric8.kubernetes.api.model
            .EventBuilder().withNewMetadata().withName(name + ".1")
                .withNamespace(MockCluster.NAMESPACE).endMetadata()
                .withNewInvolvedObject().withKind("MysqlFailoverGroup").withName(name)
                .withNamespace(MockCluster.NAMESPACE).endInvolvedObject().withReason("FailoverExecuted")
                .withType("Normal")
                .withMessage("promoted pdx of " + name).withLastTimestamp("2026-04-20T14:32:47Z").build())
            .create();
      }
      kube.setStatus(orders, io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.empty().withActiveSite("pdx")
          .withFailoverHistory(List.of(
              new io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.FailoverHistoryEntry(
                  orders.workflowId(), "run-2", "planned", "pdx", "Succeeded", null, "2026-04-20T14:32:46Z", 0.25),
              new io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.FailoverHistoryEntry(
                  orders.workflowId(), "run-1", "emergency", "iad", "Failed", "ExecuteFailed", "2026-04-20T13:00:00Z",
                  4.5))));
      Path config = Kubeconfig.write(gateway.url(), MockCluster.NAMESPACE, dir.resolve("kubeconfig"));
      Map<String, String> env = Map.of("KUBECONFIG", config.toString(), "HOME", dir.toString());

      Run watchIt = kubectlRun(kubectl.get(), env, "get", "events", "--field-selector", "involvedObject.name=orders");
      assertThat(watchIt.exit()).as(watchIt.output()).isZero();
      assertThat(watchIt.output()).contains("FailoverExecuted").contains("promoted pdx of orders")
          .doesNotContain("of billing").doesNotContain("No resources found");

      Run history = run(env, new String[] {"history", "orders"}, null);
      assertThat(history.exit()).as(history.output()).isZero();
      assertThat(history.output()).contains("FailoverExecuted").contains("promoted pdx of orders")
          .doesNotContain("of billing").contains("FAILOVERS (newest first)");
      String runs = history.output().substring(history.output().indexOf("FAILOVERS"));
      assertThat(runs).contains("2026-04-20T14:32:46Z  planned to pdx  Succeeded   0.25s  run run-2")
          .contains("2026-04-20T13:00:00Z  emergency to iad  Failed ExecuteFailed  4.5s  run run-1");
      assertThat(runs.indexOf("run-2")).as("newest first").isLessThan(runs.indexOf("run-1"));
    }
  }

  /** Runs kubectl itself with {@code env}. */
  private static Run kubectlRun(Path kubectl, Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(kubectl.toString()));
    command.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().putAll(env);
    Process p = pb.start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return new Run(p.waitFor(), output, List.of());
  }

  private static Map<String, String> annotations(MockCluster kube, GroupRef ref) {
    Map<String, String> a = kube.group(ref).getMetadata().getAnnotations();
    return a == null ? Map.of() : a;
  }
}
