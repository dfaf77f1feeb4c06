package io.shipstream.failover.dev;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Condition;
import io.shipstream.failover.dev.Playground.Verdict;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.HooksSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.PlannedFailoverSpec;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.topology.PauseAnnotation;
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
 * The playground's day-2 controls (issue #20): the handles a DBA operates a group with, each
 * applied as kubectl would, with the Events and status it produces printed as they appear. The
 * same controls as DayTwoControlsIT and PlannedFailoverIT's hooks, told to a reader.
 */
final class DayTwoScenarios {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private DayTwoScenarios() {}

  /**
   * {@code bloodraven.shipstream.io/paused=true}: the Paused condition and an AutomationPaused
   * Event; a planned request refused (Failed/Paused) with nothing fenced; the primary killed while
   * paused is reported (ActionHeld) and not failed over; removing the annotation lets the held
   * emergency failover to pdx happen, with every acknowledged write on pdx.
   */
  static Verdict pausedGroup(FailoverStack stack, PrintStream out) {
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");
    Timeline timeline = new Timeline(out);
    timeline.followEvents(stack);
    Checks checks = new Checks();
    Set<Long> acknowledged = new HashSet<>();
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere)) {
      load.awaitAcknowledged(50, WAIT);
      timeline.print("writer: %d rows acknowledged through mysql-orders-primary (-> %s)", load.acknowledgedCount(),
          stack.api().routedSite().orElse("?"));
      timeline.print("kubectl annotate mysqlfailovergroup orders %s=true", PauseAnnotation.ANNOTATION);
      stack.api().setAnnotation(PauseAnnotation.ANNOTATION, "true");
      if (!timeline.until(stack, () -> conditionIs(stack, "Paused", "True"), WAIT)) {
        return new Verdict(false, "no Paused=True condition within " + WAIT);
      }
      printCondition(timeline, stack, "Paused");
      checks.expect(stack.api().eventReasons().contains("AutomationPaused"), "no AutomationPaused Event");

      long errorsBefore = load.errors();
      String before = Playground.annotate(stack, timeline, "pdx");
      PlannedFailoverStatus refused = timeline.awaitPlannedEnd(stack, before, WAIT);
      timeline.print("status.plannedFailover: %s/%s: %s", refused.phase(), refused.reason(), refused.message());
      load.awaitAcknowledged(load.acknowledgedCount() + 20, WAIT);
      load.stop();
      long failedWrites = load.errors() - errorsBefore;
      timeline.print("writer: still acknowledged on iad, %d failed writes since the request; iad read_only=%s",
          failedWrites, onOff(iad.isReadOnly()));
      checks.expect("Failed".equals(refused.phase()) && "Paused".equals(refused.reason()),
          "the planned request ended " + refused.phase() + "/" + refused.reason() + ", not Failed/Paused");
      checks.expect(!iad.isReadOnly() && failedWrites == 0, "something was fenced: iad read_only "
          + iad.isReadOnly() + ", " + failedWrites + " failed writes");
      load.acks().forEach(a -> acknowledged.add(a.id()));
    }
    pdx.awaitCaughtUpWith(iad, WAIT);
    stack.server("dr").awaitCaughtUpWith(iad, WAIT);
    timeline.print("writer stopped after %d rows; pdx and dr hold all of them", acknowledged.size());

    long killedAt = System.nanoTime();
    iad.kill9();
    timeline.print("kill -9 %s iad (pid %d) while the group is paused", Playground.daemon(stack), iad.pid());
    if (!timeline.until(stack, () -> stack.api().eventReasons().contains("ActionHeld"), WAIT)) {
      return new Verdict(false, "no ActionHeld Event within " + WAIT + " of the kill");
    }
    long heldMs = (System.nanoTime() - killedAt) / 1_000_000;
    // More polls of a dead primary: the failover stays held, and is reported once.
    timeline.until(stack, () -> false, Duration.ofSeconds(3));
    timeline.print("3 s later: status.activeSite %s, pdx read_only=%s", stack.api().resource().getStatus().activeSite(),
        onOff(pdx.isReadOnly()));
    printCondition(timeline, stack, "Ready");
    checks.expect(stack.api().eventMessages("ActionHeld").size() == 1, "ActionHeld reported "
        + stack.api().eventMessages("ActionHeld").size() + " times, not once");
    checks.expect(FaultScenarios.eventCount(stack, "EmergencyFailoverStarted") == 0
        && "iad".equals(stack.api().resource().getStatus().activeSite()) && pdx.isReadOnly(),
        "a failover happened while paused");
    checks.expect(conditionIs(stack, "Ready", "False"), "Ready is not False with the primary dead");

    timeline.print("kubectl annotate mysqlfailovergroup orders %s-", PauseAnnotation.ANNOTATION);
    long resumedAt = System.nanoTime();
    stack.api().setAnnotation(PauseAnnotation.ANNOTATION, null);
    boolean succeeded = timeline.until(stack, () -> "Succeeded".equals(stack.api().emergencyPhase()),
        Duration.ofSeconds(60));
    long resumeMs = (System.nanoTime() - resumedAt) / 1_000_000;
    timeline.until(stack, () -> conditionIs(stack, "Paused", "False"), WAIT);
    printCondition(timeline, stack, "Paused");
    Set<Long> missing = new HashSet<>(acknowledged);
    missing.removeAll(DatabaseCluster.writtenIds(pdx));
    out.printf("kill -9 to ActionHeld %d ms; resume to emergencyFailover Succeeded %d ms; acknowledged rows missing"
        + " on pdx: %d of %d%n", heldMs, resumeMs, missing.size(), acknowledged.size());
    checks.expect(succeeded, "no emergency failover Succeeded within 60 s of the resume (phase "
        + stack.api().emergencyPhase() + ")");
    checks.expect("pdx".equals(stack.api().resource().getStatus().activeSite()) && !pdx.isReadOnly(),
        "pdx is not the writable active site after the resume");
    checks.expect(conditionIs(stack, "Paused", "False") && stack.api().eventReasons().contains("AutomationResumed"),
        "no Paused=False and AutomationResumed after the resume");
    checks.expect(missing.isEmpty(), missing.size() + " acknowledged rows missing on pdx");
    return checks.verdict(String.format("paused: planned request refused (Paused), nothing fenced, kill -9 held "
        + "(ActionHeld after %d ms, no failover); resumed: pdx promoted %d ms later, 0 of %d acknowledged rows lost",
        heldMs, resumeMs, acknowledged.size()));
  }

  /**
   * {@code spec.plannedFailover.onActiveNodeDrain: switchover}: cordoning the node of iad's pod (the
   * first step of {@code kubectl drain}) makes the watcher request a planned failover to pdx by
   * itself (DrainSwitchoverRequested), which succeeds under write load with nothing lost. What a
   * PodDisruptionBudget on the primary pod does with the drain's eviction meanwhile is told.
   */
  static Verdict drainSwitchover(FailoverStack stack, PrintStream out) {
    Timeline timeline = new Timeline(out);
    timeline.followEvents(stack);
    Checks checks = new Checks();
    timeline.print("kubectl patch mysqlfailovergroup orders --type merge -p "
        + "'{\"spec\":{\"plannedFailover\":{\"onActiveNodeDrain\":\"switchover\"}}}'");
    stack.api()
        .editSpec(s -> GroupSpecs.withPlannedFailover(s, new PlannedFailoverSpec(null, null, null, "switchover")));
    out.println("  with a PodDisruptionBudget {maxUnavailable: 0, selector: shipstream.io/group=orders,"
        + " shipstream.io/role=primary} (README \"Day-2 controls\"), kubectl drain's eviction of the primary's pod"
        + " is refused and retried every 5 s until the switchover has moved role=primary off it");
    String node = GroupApi.nodeOf("iad");
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere)) {
      load.awaitAcknowledged(50, WAIT);
      timeline.print("writer: %d rows acknowledged through mysql-orders-primary (-> %s)", load.acknowledgedCount(),
          stack.api().routedSite().orElse("?"));
      String before = Timeline.now();
      long cordonedAt = System.nanoTime();
      timeline.print("kubectl cordon %s   (the first thing kubectl drain %s does; mysql-iad-0 runs there)", node, node);
      stack.api().cordon("iad", true);
      if (!timeline.until(stack, () -> stack.api().eventReasons().contains("DrainSwitchoverRequested"), WAIT)) {
        return new Verdict(false, "no DrainSwitchoverRequested Event within " + WAIT + " of the cordon");
      }
      timeline.print("annotation bloodraven.shipstream.io/planned-failover=%s (set by the watcher)",
          stack.api().annotation().orElse("(already cleared)"));
      boolean[] evictable = {false};
      PlannedFailoverStatus done = timeline.awaitPlanned(stack, before, p -> {
        if (!evictable[0] && !stack.api().routesTo("iad")) {
          evictable[0] = true;
          timeline
              .print("mysql-iad-0 left shipstream.io/role=primary (fenced): the budget now lets the drain evict it");
        }
        return Timeline.ended(p);
      }, Duration.ofSeconds(60));
      long switchedMs = (System.nanoTime() - cordonedAt) / 1_000_000;
      int atEnd = load.acknowledgedCount();
      load.awaitAcknowledged(atEnd + 50, WAIT);
      timeline.print("writer: %d more rows acknowledged through mysql-orders-primary (-> %s)",
          load.acknowledgedCount() - atEnd, stack.api().routedSite().orElse("?"));
      load.stop();
      Playground.printStatus(out, done);
      long missing = Playground.missing(stack, load, "pdx");
      out.printf("cordon to Succeeded %d ms; writer: %d rows, %d failed attempts, write-unavailability window %d ms;"
          + " acknowledged rows missing on pdx: %d%n", switchedMs, load.acknowledgedCount(), load.errors(),
          load.writeUnavailability().toMillis(), missing);
      List<String> requested = stack.api().eventMessages("DrainSwitchoverRequested");
      checks.expect(requested.size() == 1 && requested.get(0).startsWith(
          "node " + node + " of the active site iad is cordoned: switching over to pdx"),
          "expected one DrainSwitchoverRequested naming " + node + " and pdx, got " + requested);
      checks.expect("Succeeded".equals(done.phase()) && "pdx".equals(done.target()),
          "the switchover ended " + done.phase() + "/" + done.reason() + " to " + done.target() + ": "
              + done.message());
      checks.expect(Objects.equals(done.transactionsLost(), 0L) && missing == 0,
          "transactionsLost " + done.transactionsLost() + ", " + missing + " acknowledged rows missing on pdx");
      checks.expect("pdx".equals(stack.api().resource().getStatus().activeSite()) && !stack.server("pdx").isReadOnly()
          && stack.server("iad").isReadOnly() && stack.api().routedSite().orElse("").equals("pdx"),
          "pdx is not the routed, writable active site with iad read-only");
      return checks.verdict(String.format("cordon of %s switched over to pdx by itself: Succeeded %d ms after the "
          + "cordon, writes stopped for %d ms and continued on pdx, 0 rows lost", node, switchedMs,
          load.writeUnavailability().toMillis()));
    }
  }

  /**
   * {@code spec.hooks} pointed at a real HTTP endpoint in this process: a pre-hook answering 500
   * vetoes the planned failover before anything is fenced (PreFailoverHookVetoed); once it answers
   * 200 the failover succeeds and the post-hook receives the documented body, printed here and
   * checked against the status.
   */
  static Verdict hooks(FailoverStack stack, PrintStream out) {
    Timeline timeline = new Timeline(out);
    timeline.followEvents(stack);
    Checks checks = new Checks();
    try (HookRecorder endpoint = new HookRecorder(); WriteLoad load = WriteLoad.start(stack::routedJdbcUrl)) {
      timeline.print("kubectl create secret generic failover-hooks -n shop --from-literal=token=hook-s3cret");
      HooksSpec hooks = endpoint.installAsHooksOf(stack, "hook-s3cret");
      timeline.print("spec.hooks: preFailover %s, postFailover %s (timeout 5s each, bearer token from the Secret)",
          hooks.preFailover().url(), hooks.postFailover().url());
      endpoint.statusByPath.put("/pre", 500);
      timeline.print("the endpoint answers /pre with 500 \"change freeze until Monday\"");
      load.awaitAcknowledged(50, WAIT);
      long errorsBefore = load.errors();

      PlannedFailoverStatus vetoed = Playground.watch(stack, timeline, "pdx", Duration.ofSeconds(60));
      timeline.print("status.plannedFailover: %s/%s: %s", vetoed.phase(), vetoed.reason(), vetoed.message());
      timeline.until(stack, () -> !endpoint.at("/post").isEmpty(), WAIT);
      List<HookRecorder.Received> asked = endpoint.at("/pre");
      timeline.print("the pre-hook was asked %d times (Authorization: %s); the post-hook heard outcome %s",
          asked.size(), asked.isEmpty() ? "-" : asked.get(0).authorization(),
          endpoint.at("/post").isEmpty() ? "nothing" : endpoint.at("/post").get(0).body().path("outcome").asText());
      Scenarios.awaitAnnotationCleared(stack);
      load.awaitAcknowledged(load.acknowledgedCount() + 20, WAIT);
      long failedWrites = load.errors() - errorsBefore;
      timeline.print("writer: %d failed writes; iad read_only=%s, pdx read_only=%s, routed to %s", failedWrites,
          onOff(stack.server("iad").isReadOnly()), onOff(stack.server("pdx").isReadOnly()),
          stack.api().routedSite().orElse("nothing"));
      checks.expect("Failed".equals(vetoed.phase()) && "PreFailoverHookVetoed".equals(vetoed.reason()),
          "the vetoed request ended " + vetoed.phase() + "/" + vetoed.reason());
      checks.expect(vetoed.sourceGtidAtFence() == null && failedWrites == 0 && !stack.server("iad").isReadOnly()
          && stack.server("pdx").isReadOnly() && stack.api().routedSite().orElse("").equals("iad"),
          "something was fenced or moved by the vetoed request");
      checks.expect(!asked.isEmpty() && asked.stream().allMatch(r -> "Bearer hook-s3cret".equals(r.authorization())),
          "the pre-hook was not asked with the Secret's bearer token: " + asked);
      checks.expect(!endpoint.at("/post").isEmpty()
          && "Failed".equals(endpoint.at("/post").get(0).body().path("outcome").asText()),
          "the post-hook did not hear the veto");

      endpoint.statusByPath.put("/pre", 200);
      endpoint.received.clear();
      timeline.print("the endpoint answers /pre with 200 now");
      PlannedFailoverStatus s = Playground.watch(stack, timeline, "pdx", Duration.ofSeconds(60));
      boolean posted = timeline.until(stack, () -> !endpoint.at("/post").isEmpty(), WAIT);
      load.awaitAcknowledged(load.acknowledgedCount() + 50, WAIT);
      load.stop();
      Playground.printStatus(out, s);
      if (!posted || endpoint.at("/pre").isEmpty()) {
        return new Verdict(false, "the hooks of the switchover were not called: pre "
            + endpoint.at("/pre").size() + ", post " + endpoint.at("/post").size());
      }
      JsonNode pre = endpoint.at("/pre").get(0).body();
      JsonNode post = endpoint.at("/post").get(0).body();
      out.println("POST /pre received (before the fence): " + pre);
      out.println("POST /post received:");
      post.toPrettyString().lines().forEach(l -> out.println("  " + l));
      long missing = Playground.missing(stack, load, "pdx");
      out.printf("writer: write-unavailability window %d ms; acknowledged rows missing on pdx: %d%n",
          load.writeUnavailability().toMillis(), missing);
      checks.expect("Succeeded".equals(s.phase()) && Objects.equals(s.transactionsLost(), 0L) && missing == 0,
          "the switchover ended " + s.phase() + "/" + s.reason() + ", transactionsLost " + s.transactionsLost()
              + ", " + missing + " missing");
      checks.expect("pre".equals(pre.path("phase").asText()) && pre.path("sourceGtidSet").isNull(),
          "the pre-hook body is not phase pre with no source GTID set yet: " + pre);
      checks.expect("orders".equals(post.path("group").asText()) && "planned".equals(post.path("kind").asText())
          && "post".equals(post.path("phase").asText()) && "iad".equals(post.path("source").asText())
          && "pdx".equals(post.path("target").asText()) && "Succeeded".equals(post.path("outcome").asText())
          && post.path("transactionsLost").asLong(-1) == 0
          && Objects.equals(post.path("sourceGtidSet").asText(null), s.sourceGtidAtFence())
          && Objects.equals(post.path("targetGtidSet").asText(null), s.targetGtidAtPromotion()),
          "the post-hook body does not match the status: " + post);
      return checks.verdict(String.format("pre-hook 500 vetoed the request (PreFailoverHookVetoed, nothing fenced, "
          + "0 failed writes); with 200 Succeeded in %.3f s, the post-hook got group/kind/source/target/GTID sets/"
          + "transactionsLost matching the status, 0 rows lost", s.durationSeconds()));
    }
  }

  private static boolean conditionIs(FailoverStack stack, String type, String status) {
    return stack.api().condition(type).map(c -> status.equals(c.getStatus())).orElse(false);
  }

  private static void printCondition(Timeline timeline, FailoverStack stack, String type) {
    Condition c = stack.api().condition(type).orElse(null);
    timeline.print("status.conditions[%s]: %s", type, c == null ? "absent"
        : c.getStatus() + " " + c.getReason() + ": " + c.getMessage());
  }

  private static String onOff(boolean on) {
    return on ? "ON" : "OFF";
  }

  /** A scenario's checks: each one that fails is named in the FAIL verdict. */
  private static final class Checks {
    private final List<String> failed = new ArrayList<>();

    void expect(boolean ok, String otherwise) {
      if (!ok) {
        failed.add(otherwise);
      }
    }

    Verdict verdict(String passed) {
      return failed.isEmpty() ? new Verdict(true, passed) : new Verdict(false, String.join("; ", failed));
    }
  }
}
