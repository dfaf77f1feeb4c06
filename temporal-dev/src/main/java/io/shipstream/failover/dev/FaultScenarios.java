package io.shipstream.failover.dev;

import io.shipstream.failover.dev.Playground.Verdict;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.WriteLoad;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The playground's scenarios that break something: a primary, the worker or the watcher dies in
 * the middle of things, and the verdict says whether the user would have noticed more than a gap
 * in writes.
 */
final class FaultScenarios {
  private FaultScenarios() {}

  /**
   * kill -9 of the primary with the topology monitor on (500ms polls, dead after 3): pdx must be
   * promoted, the application's writes through the primary Service must resume, no 50 ms sample
   * may ever see two writable servers, and what the replicas held at the kill must be on pdx.
   */
  static Verdict primaryKill(FailoverStack stack, PrintStream out) {
    Timeline timeline = new Timeline(out);
    WritableSampler sampler = WritableSampler.started(stack, timeline);
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere)) {
      load.awaitAcknowledged(200, Duration.ofSeconds(30));
      DatabaseServer iad = stack.server("iad");
      // What the replicas hold now was acknowledged and replicated before the kill.
      Set<Long> replicated = stack.awaitReplicatedFrom("iad");
      int ackedAtKill = load.acknowledgedCount();
      timeline.print("writer: %d rows acknowledged through mysql-orders-primary (-> iad)", ackedAtKill);
      long killedAt = System.nanoTime();
      iad.kill9();
      timeline.print("kill -9 %s iad (pid %d)", Playground.daemon(stack), iad.pid());

      String active = null;
      long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (active == null && System.nanoTime() < until) {
        timeline.pollEmergency(stack);
        MysqlFailoverGroupStatus status = stack.api().resource().getStatus();
        if (status != null && status.activeSite() != null && !status.activeSite().equals("iad")) {
          active = status.activeSite();
          timeline.print("status.activeSite %s", active);
        }
        Playground.sleep(20);
      }
      if (active == null) {
        return new Verdict(false, "status.activeSite still iad 60 s after the kill");
      }
      load.awaitAcknowledged(ackedAtKill + 50, Duration.ofSeconds(60));
      long firstAfter = load.acks().stream().filter(a -> a.nanos() > killedAt).mapToLong(WriteLoad.Ack::nanos)
          .min().orElseThrow();
      long gapMs = Duration.ofNanos(firstAfter - killedAt).toMillis();
      timeline.print("writer: first acknowledged write on %s, %d ms after the kill", active, gapMs);
      // The workflow goes on with DNS, labels and taints after the promotion; let it finish.
      String phase = awaitEmergencyEnd(stack, timeline, Duration.ofSeconds(30));
      load.stop();
      sampler.stop();
      List<Long> onNewPrimary = DatabaseCluster.writtenIds(stack.server(active));
      List<Long> lost = new ArrayList<>(replicated);
      lost.removeAll(new HashSet<>(onNewPrimary));
      out.printf("most writable servers in any 50 ms sample: %d; replicated rows missing on %s: %d%n",
          sampler.most(), active, lost.size());
      if (!"pdx".equals(active) || !stack.api().routedSite().orElse("").equals("pdx")) {
        return new Verdict(false, "expected pdx promoted and routed, got active " + active + ", routed "
            + stack.api().routedSite().orElse("nothing"));
      }
      if (sampler.most() > 1) {
        return new Verdict(false, sampler.most() + " servers were writable at once");
      }
      if (!lost.isEmpty()) {
        return new Verdict(false, lost.size() + " replicated rows missing on pdx");
      }
      return new Verdict(true, String.format("pdx promoted (emergencyFailover %s), kill -9 to first acknowledged "
          + "write %d ms, never two writable servers, 0 replicated rows lost", phase, gapMs));
    } finally {
      sampler.stop();
    }
  }

  /**
   * The worker dies while the workflow waits for a 5 s lagging pdx, and a new one starts: the
   * workflow resumes where it stopped and succeeds, nothing acknowledged is lost.
   */
  static Verdict workerKillMidFailover(FailoverStack stack, PrintStream out) {
    stack.server("pdx").delayReplication(5);
    out.println(
        "pdx now applies every transaction 5 s late (a replication delay of 5 s): WaitingForLag lasts about 5 s");
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrl)) {
      load.awaitAcknowledged(100, Duration.ofSeconds(10));
      Timeline timeline = new Timeline(out);
      String before = Playground.annotate(stack, timeline, "pdx");
      timeline.awaitPlanned(stack, before, p -> "WaitingForLag".equals(p.phase()) || Timeline.ended(p),
          Duration.ofSeconds(60));
      // Kill once the worker sits in the wait activity, not while a status write is in flight: a
      // workflow task handed to a poll that dies at that instant is only re-dispatched after the
      // 10 s workflow task timeout (see PlannedFailoverIT), which would only slow the scenario.
      Playground.sleep(1_000);
      timeline.print("killing the worker (polls and running activities stop at once)");
      stack.controlPlane().killWorker();
      timeline.print("worker gone");
      stack.controlPlane().startWorker();
      timeline.print("worker started again");
      PlannedFailoverStatus s = timeline.awaitPlannedEnd(stack, before, Duration.ofSeconds(60));
      load.awaitAcknowledged(load.acknowledgedCount() + 100, Duration.ofSeconds(10));
      load.stop();
      Playground.printStatus(out, s);
      return succeededOnPdx(stack, out, load, s, "after the worker was killed in WaitingForLag");
    }
  }

  /**
   * The watcher dies right after it picked the annotation up (the status shows the run), and a
   * new one starts: the failover succeeds exactly once (one Started and one Completed Event, no
   * second run) and the annotation is cleared.
   */
  static Verdict watcherKillMidFailover(FailoverStack stack, PrintStream out) {
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrl)) {
      load.awaitAcknowledged(100, Duration.ofSeconds(10));
      Timeline timeline = new Timeline(out);
      String before = Playground.annotate(stack, timeline, "pdx");
      // The first phase written (Pending, or a later one if Pending passed between two polls).
      timeline.awaitPlanned(stack, before, p -> true, Duration.ofSeconds(30));
      stack.controlPlane().killWatcher();
      timeline.print("watcher killed");
      stack.controlPlane().startWatcher();
      timeline.print("watcher started again");
      PlannedFailoverStatus s = timeline.awaitPlannedEnd(stack, before, Duration.ofSeconds(60));
      Scenarios.awaitAnnotationCleared(stack);
      timeline.print("annotation %s", stack.api().annotation().isEmpty() ? "cleared" : "still there");
      // A second run would start within a watcher resync; give it the time to show itself.
      Playground.sleep(3_000);
      load.awaitAcknowledged(load.acknowledgedCount() + 100, Duration.ofSeconds(10));
      load.stop();
      Playground.printStatus(out, s);
      int started = eventCount(stack, "PlannedFailoverStarted");
      int completed = eventCount(stack, "PlannedFailoverCompleted");
      out.printf("events: PlannedFailoverStarted x%d, PlannedFailoverCompleted x%d%n", started, completed);
      if (started != 1 || completed != 1 || stack.api().annotation().isPresent()) {
        return new Verdict(false, "expected one run: Started x" + started + ", Completed x" + completed
            + ", annotation " + stack.api().annotation().orElse("cleared"));
      }
      return succeededOnPdx(stack, out, load, s, "exactly once after the watcher was killed");
    }
  }

  private static Verdict succeededOnPdx(FailoverStack stack, PrintStream out, WriteLoad load, PlannedFailoverStatus s,
      String how) {
    long missing = Playground.missing(stack, load, "pdx");
    out.printf("writer: write-unavailability window %d ms; acknowledged rows missing on pdx: %d%n",
        load.writeUnavailability().toMillis(), missing);
    boolean ok = "Succeeded".equals(s.phase()) && Objects.equals(s.transactionsLost(), 0L) && missing == 0
        && !stack.server("pdx").isReadOnly() && stack.server("iad").isReadOnly()
        && stack.api().routedSite().orElse("").equals("pdx");
    return new Verdict(ok, ok ? String.format("Succeeded %s in %.3f s, 0 rows lost", how, s.durationSeconds())
        : "expected Succeeded on pdx with 0 lost, got " + s.phase() + "/" + s.reason() + " (" + s.message() + "), "
            + missing + " missing");
  }

  private static String awaitEmergencyEnd(FailoverStack stack, Timeline timeline, Duration timeout) {
    long until = System.nanoTime() + timeout.toNanos();
    String phase = "unknown";
    while (System.nanoTime() < until) {
      phase = timeline.pollEmergency(stack).map(e -> e.phase()).orElse("absent");
      if (phase.equals("Succeeded") || phase.equals("Failed")) {
        return phase;
      }
      Playground.sleep(20);
    }
    return phase;
  }

  /** Sums the counts of the group's Events with this reason (repeats are folded into one Event). */
  static int eventCount(FailoverStack stack, String reason) {
    return stack.api().events().stream()
        .filter(e -> reason.equals(e.getReason()))
        .mapToInt(e -> Objects.requireNonNullElse(e.getCount(), 1))
        .sum();
  }
}
