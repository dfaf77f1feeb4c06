package io.shipstream.failover.dev;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * {@code serve} keeps a playground stack up until Ctrl-C (see {@link ServedStack}: a writer and the
 * topology monitor run unless {@code --no-writer} or {@code --no-monitor} turn them off) and writes
 * where to reach it (a kubeconfig for the mock API server, the Temporal address) into its work
 * directory; {@code annotate},
 * {@code get} and {@code cancel}, run from another terminal, read those files and act on it.
 */
final class PlaygroundServe {
  static final List<String> COMMANDS = List.of("serve", "annotate", "get", "cancel");
  private static final GroupRef GROUP = new GroupRef("shop", FailoverStack.GROUP_NAME);

  private PlaygroundServe() {}

  static void usage(PrintStream out) {
    out.printf("%-32s %s%n", "serve [--no-writer] [--no-monitor]", "keep a stack up until Ctrl-C, with a writer and "
        + "the topology monitor; prints the kubeconfig and Temporal address");
    out.printf("%-32s %s%n", "      [--prometheus]",
        "also a real prometheus (Debian's) scraping the worker, the watcher "
            + "and the sidecars with the chart's alert rules; prints its URL");
    out.printf("%-32s %s%n", "annotate <value>", "against serve: request a planned failover and follow it");
    out.printf("%-32s %s%n", "get", "against serve: activeSite and status.plannedFailover");
    out.printf("%-32s %s%n", "cancel [reason]", "against serve: send the cancel signal to the group's workflow");
  }

  /** Runs one command; returns the exit code. */
  static int main(Path root, List<String> args) throws Exception {
    Path work = root.resolve("serve");
    return switch (args.get(0)) {
      case "serve" -> serve(work, args.subList(1, args.size()));
      case "annotate" -> args.size() < 2 ? usageError() : annotate(work, args.get(1));
      case "get" -> get(work);
      case "cancel" ->
        cancel(work, args.size() > 1 ? String.join(" ", args.subList(1, args.size())) : "playground cancel");
      default -> usageError();
    };
  }

  private static int usageError() {
    usage(System.err);
    return 2;
  }

  private static int serve(Path work, List<String> flags) throws Exception {
    ServedStack.Options options;
    try {
      options = ServedStack.Options.parse(flags);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      return usageError();
    }
    PrintStream out = System.out;
    ServedStack served = ServedStack.start(work, options, out);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      out.println("stopping the stack...");
      served.close();
      stopped.countDown();
    }, "playground-shutdown"));
    FailoverStack stack = served.stack();
    Path kubeconfig = work.resolve("kubeconfig").toAbsolutePath();
    out.println();
    out.println(options.writer()
        ? "A writer inserts a row every " + ServedStack.WRITE_PAUSE.toMillis() + " ms through mysql-orders-primary "
            + "(the pod labelled primary); Ctrl-C prints what it saw."
        : "No writer (--no-writer).");
    out.println(options.monitor()
        ? "The topology monitor polls every site every 500ms and fails over after 3 missed polls of the primary:\n"
            + "  kill -9 " + stack.server("iad").pid()
            + "      # mariadbd of iad, the primary: pdx takes over in about 2 s"
        : "The topology monitor only watches (--no-monitor): it adopts the group and keeps its routing and "
            + "conditions right, but nothing fails over unless you ask for it.");
    out.printf("""

        The stack stays up until Ctrl-C. The failover cooldown is 1m: a request sooner than that after
        a failover fails with CooldownActive. From another terminal:
          ./temporal-dev/playground annotate pdx        # request iad -> pdx and follow the phases
          ./temporal-dev/playground get                 # activeSite and status.plannedFailover
          ./temporal-dev/playground cancel "postponed"  # the cancel signal (Deferred or before Promoting)
        or with kubectl through the playground's gateway (get with the group's columns, get -w, describe,
        annotate, patch, and wait, e.g. kubectl wait --for=condition=Ready mfg/orders):
          export KUBECONFIG=%s
          kubectl get mysqlfailovergroup orders -o jsonpath='{.status.plannedFailover}{"\\n"}'
          kubectl annotate mysqlfailovergroup orders bloodraven.shipstream.io/planned-failover=pdx --overwrite
          kubectl get events -o custom-columns=REASON:.reason,MESSAGE:.message
        and Temporal's CLI: temporal workflow describe --address %s --workflow-id %s
        The components log to temporal-dev/target/playground.log.
        %n""", kubeconfig, stack.controlPlane().temporalTarget(), GROUP.workflowId());
    stopped.await();
    return 0;
  }

  private static int annotate(Path work, String value) throws IOException {
    try (KubernetesClient k = client(work)) {
      String before = Instant.now().toString();
      GroupApi.annotate(k, GROUP, value);
      System.out.printf("annotated %s with %s=%s%n", GROUP, MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION, value);
      long start = System.nanoTime();
      String last = null;
      // Follows the run until it ends or waits (Deferred, Scheduled), for at most two minutes.
      while (System.nanoTime() - start < 120_000_000_000L) {
        MysqlFailoverGroupStatus status = groups(k).get().getStatus();
        PlannedFailoverStatus s = status == null ? null : status.plannedFailover();
        if (s != null && s.phase() != null && s.startTime() != null && s.startTime().compareTo(before) >= 0
            && !s.phase().equals(last)) {
          last = s.phase();
          System.out.printf("%9s  %s%s%n", "+" + (System.nanoTime() - start) / 1_000_000 + " ms", s.phase(),
              s.reason() == null ? "" : " (" + s.reason() + ")");
          if (Timeline.ended(s) || "Deferred".equals(s.phase()) || "Scheduled".equals(s.phase())) {
            System.out.println(outcome(s));
            return "Failed".equals(s.phase()) ? 1 : 0;
          }
        }
        Playground.sleep(10);
      }
      System.out.println("still running after 2 minutes; ./temporal-dev/playground get shows where it is");
      return 1;
    }
  }

  /**
   * The line that ends {@code annotate}. A Deferred request carries no message, only the reason
   * and the time it waits for, and a run may end without one: neither prints as "null".
   */
  static String outcome(PlannedFailoverStatus s) {
    if ("Deferred".equals(s.phase())) {
      return "deferred until " + (s.retryAfter() == null ? "the cooldown ends" : s.retryAfter())
          + (s.reason() == null ? "" : " (" + s.reason() + ")")
          + (s.message() == null ? "" : ": " + s.message())
          + "; it starts by itself then, or ./temporal-dev/playground cancel ends it now";
    }
    if ("Scheduled".equals(s.phase())) {
      return "scheduled at " + s.scheduledAt() + "; it starts by itself then, or ./temporal-dev/playground cancel "
          + "ends it now";
    }
    if (s.message() != null) {
      return s.message();
    }
    return s.phase() + (s.reason() == null ? "" : " (" + s.reason() + ")")
        + (s.durationSeconds() == null ? "" : String.format(" in %.3f s", s.durationSeconds()));
  }

  private static int get(Path work) throws IOException {
    try (KubernetesClient k = client(work)) {
      MysqlFailoverGroup g = groups(k).get();
      MysqlFailoverGroupStatus status = g.getStatus();
      System.out.println("activeSite: " + (status == null ? null : status.activeSite()));
      var annotations = g.getMetadata().getAnnotations();
      String annotation = annotations == null ? null : annotations.get(MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION);
      System.out.println("annotation: " + (annotation == null ? "(none)" : annotation));
      if (status != null && status.plannedFailover() != null) {
        Playground.printStatus(System.out, status.plannedFailover());
      }
      if (status != null && status.emergencyFailover() != null) {
        System.out.println("status.emergencyFailover:");
        System.out
            .print(Serialization.asYaml(status.emergencyFailover()).replace("---\n", "").replaceAll("(?m)^", "  "));
      }
      return 0;
    }
  }

  private static int cancel(Path work, String reason) throws IOException {
    String target = Files.readString(requireServed(work.resolve("temporal-target"))).trim();
    WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(
        WorkflowServiceStubsOptions.newBuilder().setTarget(target).build());
    try {
      WorkflowClient.newInstance(stubs).newUntypedWorkflowStub(GROUP.workflowId()).signal("cancel", reason);
      System.out.printf("sent cancel(\"%s\") to %s%n", reason, GROUP.workflowId());
      return 0;
    } catch (RuntimeException e) {
      System.out.println("no running failover to cancel: " + e.getMessage());
      return 1;
    } finally {
      stubs.shutdownNow();
    }
  }

  private static KubernetesClient client(Path work) throws IOException {
    String kubeconfig = Files.readString(requireServed(work.resolve("kubeconfig")));
    return new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeconfig)).build();
  }

  private static io.fabric8.kubernetes.client.dsl.Resource<MysqlFailoverGroup> groups(KubernetesClient k) {
    return k.resources(MysqlFailoverGroup.class).inNamespace(GROUP.namespace()).withName(GROUP.name());
  }

  private static Path requireServed(Path file) {
    if (!Files.exists(file)) {
      System.err.println("no playground is being served: start ./temporal-dev/playground serve in another terminal");
      System.exit(2);
    }
    return file;
  }
}
