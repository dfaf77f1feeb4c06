package io.shipstream.failover.dev;

import io.shipstream.failover.dev.Playground.Verdict;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.topology.FencedSites;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.WriteLoad;
import java.io.PrintStream;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * The playground's {@code fence-a-site}: a DBA fences a site with {@code
 * bloodraven.shipstream.io/fenced-sites} (what {@code kubectl failover fence} sets), as
 * CloudNativePG and cloudnative-mysql fence an instance.
 */
final class FenceSiteScenario {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private FenceSiteScenario() {}

  /**
   * iad (primary), then dr and pdx, all three primary-candidates, watched every 500 ms: dr is
   * declared before pdx, so with both caught up an emergency failover would choose dr, unless it
   * is fenced.
   */
  static FailoverStack.Options options() {
    return new FailoverStack.Options(List.of("iad", "dr", "pdx"), List.of(), "0s", null, "500ms", 3, true);
  }

  /**
   * Under a writer through the primary Service: dr is fenced (listed in the status, labelled out of
   * the replicas Service); made writable by hand, it is fenced back; iad is killed and pdx, not
   * dr, is promoted; dr is unfenced and is a replica again. Then the active site pdx is fenced: the
   * writer's writes fail and nothing fails over; unfenced, they resume. No acknowledged row is
   * missing on pdx.
   */
  static Verdict fenceASite(FailoverStack stack, PrintStream out) {
    DatabaseServer iad = stack.server("iad");
    DatabaseServer dr = stack.server("dr");
    DatabaseServer pdx = stack.server("pdx");
    GroupApi api = stack.api();
    Timeline timeline = new Timeline(out);
    Set<Long> acknowledged = new HashSet<>();
    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere)) {
      load.awaitAcknowledged(100, WAIT);
      timeline.print("writer: %d rows acknowledged through mysql-orders-primary (-> iad); dr's pod role=%s",
          load.acknowledgedCount(), api.roleOf("dr"));

      api.setAnnotation(FencedSites.ANNOTATION, "dr");
      timeline.print("kubectl annotate mysqlfailovergroup orders %s=dr", FencedSites.ANNOTATION);
      await(() -> fenced(api).equals(List.of("dr")), "status.fencedSites [dr]");
      timeline.print("status.fencedSites [dr]; Event SiteFenced: %s", last(api, "SiteFenced"));
      await(() -> "fenced".equals(api.roleOf("dr")), "dr's pod labelled role=fenced");
      timeline.print("dr's pod role=fenced: out of mysql-orders-replicas");

      dr.setReadOnly(false);
      timeline.print("admin on dr: SET GLOBAL read_only=OFF");
      await(dr::isReadOnly, "dr read-only again");
      timeline.print("dr read_only=ON again (its sidecar and the watcher keep a fenced site read-only)");

      pdx.awaitCaughtUpWith(iad, WAIT);
      dr.awaitCaughtUpWith(iad, WAIT);
      int ackedAtKill = load.acknowledgedCount();
      iad.kill9();
      timeline.print("kill -9 the server of iad after %d acknowledged rows", ackedAtKill);
      await(() -> "Succeeded".equals(api.emergencyPhase()), "the emergency failover");
      String promoted = api.resource().getStatus().activeSite();
      timeline.print("emergencyFailover Succeeded: activeSite %s (dr, declared before pdx, is fenced)", promoted);
      load.awaitAcknowledged(load.acknowledgedCount() + 50, WAIT);
      timeline.print("writer: writes resumed, %d rows acknowledged", load.acknowledgedCount());

      api.setAnnotation(FencedSites.ANNOTATION, null);
      timeline.print("kubectl annotate mysqlfailovergroup orders %s-", FencedSites.ANNOTATION);
      await(() -> fenced(api).isEmpty() && "replica".equals(api.roleOf("dr")), "dr a replica again");
      timeline.print("status.fencedSites empty, dr's pod role=replica; Event SiteUnfenced: %s",
          last(api, "SiteUnfenced"));

      long errorsBefore = load.errors();
      api.setAnnotation(FencedSites.ANNOTATION, "pdx");
      timeline.print("kubectl annotate mysqlfailovergroup orders %s=pdx (the active site)", FencedSites.ANNOTATION);
      await(pdx::isReadOnly, "pdx read-only");
      timeline.print("pdx read_only=ON: the group's writes stop on purpose");
      await(() -> load.errors() > errorsBefore, "the writer to see the fence");
      Playground.sleep(2_000);
      boolean refailed = FaultScenarios.eventCount(stack, "EmergencyFailoverStarted") > 1;
      timeline.print("2 s later: %d failed writes, activeSite %s, %s", load.errors() - errorsBefore,
          api.resource().getStatus().activeSite(), refailed ? "ANOTHER FAILOVER STARTED" : "no failover");

      int ackedBeforeUnfence = load.acknowledgedCount();
      api.setAnnotation(FencedSites.ANNOTATION, "");
      timeline.print("kubectl annotate mysqlfailovergroup orders %s=", FencedSites.ANNOTATION);
      await(() -> !pdx.isReadOnly(), "pdx writable again");
      timeline.print("pdx writable again (the watcher lifted the fence it no longer lists)");
      load.awaitAcknowledged(ackedBeforeUnfence + 50, WAIT);
      timeline.print("writer: writes resumed, %d rows acknowledged", load.acknowledgedCount());
      load.stop();
      load.acks().forEach(a -> acknowledged.add(a.id()));

      Set<Long> missing = new HashSet<>(acknowledged);
      missing.removeAll(DatabaseCluster.writtenIds(pdx));
      MysqlFailoverGroupStatus status = api.resource().getStatus();
      out.printf("writer: %d acknowledged, %d missing on pdx, %d failed writes in all%n", acknowledged.size(),
          missing.size(), load.errors());
      if (!"pdx".equals(promoted) || refailed || !missing.isEmpty() || !dr.isReadOnly() || pdx.isReadOnly()
          || !"pdx".equals(status.activeSite())) {
        return new Verdict(false, "promoted " + promoted + ", another failover " + refailed + ", " + missing.size()
            + " acknowledged rows missing, dr read-only " + dr.isReadOnly() + ", pdx read-only " + pdx.isReadOnly());
      }
      return new Verdict(true, "fenced dr stayed read-only and out of the replicas, pdx (not dr) was promoted when "
          + "iad died, unfenced dr is a replica again; fencing the active pdx stopped the writes without a "
          + "failover, unfencing it resumed them; 0 acknowledged rows lost");
    }
  }

  private static List<String> fenced(GroupApi api) {
    MysqlFailoverGroupStatus s = api.resource().getStatus();
    return s == null || s.fencedSites() == null ? List.of() : s.fencedSites();
  }

  private static String last(GroupApi api, String reason) {
    List<String> messages = api.eventMessages(reason);
    return messages.isEmpty() ? "(none)" : messages.get(messages.size() - 1);
  }

  private static void await(BooleanSupplier condition, String what) {
    long until = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > until) {
        throw new IllegalStateException("not within " + WAIT.toSeconds() + " s: " + what);
      }
      Playground.sleep(20);
    }
  }
}
