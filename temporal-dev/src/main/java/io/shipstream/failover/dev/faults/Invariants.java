package io.shipstream.failover.dev.faults;

import io.fabric8.kubernetes.api.model.Pod;
import io.shipstream.failover.dev.FailoverStack;
import io.shipstream.failover.dev.faults.CaseResult.Check;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.WriteLoad;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The four invariants every case must end with: never two writable servers (from the watch that
 * ran beside the case; when it held, the detail shows the closest hand-over), every acknowledged
 * write on the server that takes writes now, an outcome of Succeeded, or Failed with the source
 * writable and routed again, or a manual-recovery state stated in the status and in a Warning
 * Event; and a status that matches the servers (the activeSite is the one writable server and the
 * only pod labelled primary).
 */
final class Invariants {
  private final FailoverStack stack;

  Invariants(FailoverStack stack) {
    this.stack = stack;
  }

  /** Judges a case that ended with {@code end}; {@code source} was the primary when it started. */
  List<Check> judge(String source, PlannedFailoverStatus end, WriteLoad load, WritableWatch watch) {
    List<Check> checks = new ArrayList<>();
    WritableWatch.Verdict seen = watch.verdict();
    checks.add(new Check("one-writable", seen.most() <= 1, seen.most() > 1 ? "two writable: " + seen.firstOverlap()
        : seen.answers() + " answers" + (seen.closestHandOver() == null ? "" : "; " + seen.closestHandOver())));

    MysqlFailoverGroup group = FaultHarness.read(stack.api()::resource);
    String active = group.getStatus().activeSite();
    List<String> writable = stack.writableSites();
    boolean succeeded = "Succeeded".equals(end.phase());
    boolean rolledBack = "Failed".equals(end.phase()) && writable.equals(List.of(source)) && source.equals(active)
        && stack.api().routedSite().orElse("").equals(source);
    boolean manual = "Failed".equals(end.phase()) && end.message() != null
        && end.message().contains("manual recovery") && warningEventSays("manual recovery");
    checks.add(new Check("outcome", succeeded || rolledBack || manual, succeeded ? "Succeeded"
        : rolledBack ? "Failed, source writable and routed again"
            : manual ? "manual recovery stated in status and Event" : end.phase() + ": " + end.message()));

    // Every acknowledged write must be on the server that takes writes now.
    String holder = writable.size() == 1 ? writable.get(0) : active;
    DatabaseServer server = stack.server(holder);
    if (server.isRunning()) {
      Set<Long> rows = new HashSet<>(DatabaseCluster.writtenIds(server));
      List<Long> acked = load.acknowledged();
      long missing = acked.stream().filter(id -> !rows.contains(id)).count();
      checks.add(new Check("no-ack-lost", missing == 0, missing == 0 ? acked.size() + " acked, all on " + holder
          : missing + " of " + acked.size() + " acked rows missing on " + holder));
    } else {
      checks.add(new Check("no-ack-lost", false, holder + " is not running"));
    }

    if (manual && !succeeded && !rolledBack) {
      checks.add(new Check("status-matches", true, "n/a: manual recovery stated"));
    } else {
      String routed = stack.api().routedSite().orElse("none");
      List<String> primaries = podsLabelledPrimary();
      boolean matches = writable.equals(List.of(active)) && routed.equals(active) && primaries.equals(List.of(active));
      checks.add(new Check("status-matches", matches, "activeSite " + active + ", writable " + writable
          + ", role=primary on " + primaries));
    }
    return checks;
  }

  private List<String> podsLabelledPrimary() {
    List<Pod> pods = stack.api().client().pods().inNamespace(stack.api().ref().namespace())
        .withLabel("shipstream.io/role", "primary").list().getItems();
    return pods.stream().map(p -> p.getMetadata().getLabels().get("site")).sorted().toList();
  }

  private boolean warningEventSays(String text) {
    return stack.api().events().stream().anyMatch(e -> "Warning".equals(e.getType()) && e.getMessage() != null
        && e.getMessage().contains(text));
  }
}
