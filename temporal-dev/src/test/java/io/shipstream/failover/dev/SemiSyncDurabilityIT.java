package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.SemiSyncSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.SemiSyncStatus;
import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import io.shipstream.failover.testsupport.WriteLoad;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * spec.semiSync on real servers, once per flavor: the watcher applies the settings on adoption and
 * moves them with a planned failover; three kill -9s of the primary under a writer at full speed
 * lose no acknowledged row; {@code preferred} keeps writing when the only replica dies (after one
 * timeout), shows Degraded/SemiSyncFallenBack with a Warning Event and returns with a Normal one;
 * {@code required} holds a commit until a replica acknowledges it.
 */
@ExtendWith(StoredGroupsFitTheCrd.class)
class SemiSyncDurabilityIT extends StackPerTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @FlavorTest
  void settingsFollowThePrimaryAndThreeKilledPrimariesLoseNoAcknowledgedRow(Flavor flavor) {
    // Four primary-candidates: no killed primary has to rejoin before the next kill.
    start(flavor, new FailoverStack.Options(List.of("iad", "pdx", "ord", "sea"), List.of(), "0s", null, "500ms", 3,
        true));
    stack.api().editSpec(s -> GroupSpecs.withSemiSync(s, new SemiSyncSpec(true, "preferred", "10s", 1, null)));
    SemiSyncStatus adopted = awaitSemiSync(s -> "iad".equals(s.primary()) && Boolean.TRUE.equals(s.enabled())
        && s.clients() != null && s.clients() == 3, "semi-sync on iad with three acknowledging replicas");
    assertThat(adopted.waitCount()).isEqualTo(1);
    assertThat(adopted.fallenBack()).isFalse();
    assertSource(flavor, "iad", true);
    for (String replica : List.of("pdx", "ord", "sea")) {
      assertSource(flavor, replica, false);
      assertThat(flag(stack.server(replica), replicaVariable(flavor, "enabled"))).as(replica + " acknowledges")
          .isTrue();
    }

    stack.api().annotate("pdx");
    assertThat(stack.waits().plannedEnd(null, WAIT).phase()).isEqualTo("Succeeded");
    awaitSemiSync(s -> "pdx".equals(s.primary()) && Boolean.TRUE.equals(s.enabled()) && s.clients() != null
        && s.clients() == 3, "semi-sync moved to pdx, iad acknowledging");
    assertSource(flavor, "pdx", true);
    Await.until(stack, () -> !flag(stack.server("iad"), sourceVariable(flavor, "enabled")), WAIT,
        "iad's source side off after the failover");
    assertThat(flag(stack.server("iad"), replicaVariable(flavor, "enabled"))).isTrue();

    for (int run = 1; run <= 3; run++) {
      String primary = stack.api().resource().getStatus().activeSite();
      // Four writers: one alone waits a replica round trip per commit and stays under 500 rows/s on
      // a loaded machine.
      List<WriteLoad> loads = new java.util.ArrayList<>();
      for (int w = 0; w < 4; w++) {
        loads.add(WriteLoad.start(stack::routedJdbcUrlOrNowhere, Duration.ZERO, run * 10_000_000L + w * 1_000_000L));
      }
      try {
        loads.forEach(l -> l.awaitAcknowledged(100, WAIT));
        int before = acknowledged(loads);
        long t0 = System.nanoTime();
        sleep(1_000);
        double rate = (acknowledged(loads) - before) / ((System.nanoTime() - t0) / 1e9);
        long killedAt = System.nanoTime();
        stack.server(primary).kill9();
        String active = awaitActiveSiteOtherThan(primary);
        Await.until(stack, () -> succeededTo(active), WAIT, "the emergency failover to " + active + " to succeed");
        long succeededAt = System.nanoTime();
        for (WriteLoad l : loads) {
          l.awaitAcknowledged(l.acknowledgedCount() + 20, WAIT);
          l.stop();
        }
        Set<Long> missing = new HashSet<>();
        loads.forEach(l -> missing.addAll(l.acknowledged()));
        missing.removeAll(DatabaseCluster.writtenIds(stack.server(active)));
        EmergencyFailoverStatus e = stack.api().resource().getStatus().emergencyFailover();
        System.out.printf("%s semi-sync kill %d: %s -> %s, 4 writers %.0f rows/s, kill to Succeeded seen %d ms, "
            + "%d acknowledged, %d missing, transactionsLost %s%n", flavor, run, primary, active, rate,
            Duration.ofNanos(succeededAt - killedAt).toMillis(), acknowledged(loads), missing.size(),
            e.transactionsLost());
        assertThat(missing).as("acknowledged rows missing on " + active + " after kill " + run).isEmpty();
      } finally {
        loads.forEach(WriteLoad::close);
      }
    }
  }

  @FlavorTest
  void preferredFallsBackWhenTheOnlyReplicaDiesAndRequiredHoldsTheCommit(Flavor flavor) throws Exception {
    // The monitor watches but does not act: the dead replica is the point, not a failover.
    startWithSemiSync(flavor, false, "preferred", "2s");
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");

    try (WriteLoad load = WriteLoad.start(stack::routedJdbcUrlOrNowhere, Duration.ofMillis(5), 1)) {
      load.awaitAcknowledged(50, WAIT);
      long killedAt = System.nanoTime();
      pdx.kill9();
      int acked = load.acknowledgedCount();
      load.awaitAcknowledged(acked + 50, WAIT);
      long firstAfter = load.acks().stream().filter(a -> a.nanos() > killedAt + 100_000_000L)
          .mapToLong(WriteLoad.Ack::nanos).min().orElseThrow();
      System.out.printf("%s preferred, only replica killed: writes acknowledged again %d ms after the kill "
          + "(timeout 2 s), longest gap %d ms%n", flavor, Duration.ofNanos(firstAfter - killedAt).toMillis(),
          load.writeUnavailability().toMillis());
      SemiSyncStatus fallen = awaitSemiSync(s -> Boolean.TRUE.equals(s.fallenBack()), "the fallback in status");
      assertThat(fallen.enabled()).isFalse();
      Await.until(stack, () -> "SemiSyncFallenBack".equals(degraded().getReason()), WAIT,
          "Degraded with reason SemiSyncFallenBack");
      assertThat(degraded().getStatus()).isEqualTo("True");
      assertThat(stack.api().eventReasons()).contains("SemiSyncFallenBack");

      pdx.restart();
      awaitSemiSync(s -> Boolean.FALSE.equals(s.fallenBack()) && Boolean.TRUE.equals(s.enabled()),
          "semi-sync back once pdx returns");
      Await.until(stack, () -> stack.api().eventReasons().contains("SemiSyncRestored"), WAIT,
          "a SemiSyncRestored Event");
      Await.until(stack, () -> !"SemiSyncFallenBack".equals(degraded().getReason()), WAIT, "Degraded cleared");
    }

    stack.api().editSpec(s -> GroupSpecs.withSemiSync(s, new SemiSyncSpec(true, "required", "20s", 1, null)));
    Await.until(stack, () -> "20000".equals(iad.queryString("SELECT @@global." + sourceVariable(flavor, "timeout"))),
        WAIT, "the 20 s timeout on iad");
    Await.until(stack, () -> iad.queryLong("SELECT VARIABLE_VALUE FROM " + statusTable(flavor)
        + " WHERE VARIABLE_NAME = '" + sourceStatus(flavor, "clients") + "'") == 1, WAIT, "pdx acknowledging");
    long unacknowledgedBefore = iad.queryLong("SELECT VARIABLE_VALUE FROM " + statusTable(flavor)
        + " WHERE VARIABLE_NAME = '" + sourceStatus(flavor, "no_tx") + "'");
    // pdx stops receiving: nothing can acknowledge.
    pdx.stopReplicaIoThread();
    CompletableFuture<Void> commit = commitInBackground(iad, -7L);
    sleep(3_000);
    assertThat(commit).as("a commit waits for an acknowledgement while no replica can give one").isNotDone();
    long waitingSince = System.nanoTime();
    pdx.startReplicaIoThread();
    commit.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    System.out.printf("%s required: the commit was acknowledged %d ms after pdx's IO thread started again%n", flavor,
        Duration.ofNanos(System.nanoTime() - waitingSince).toMillis());
    assertThat(iad.queryLong("SELECT VARIABLE_VALUE FROM " + statusTable(flavor) + " WHERE VARIABLE_NAME = '"
        + sourceStatus(flavor, "no_tx") + "'")).as("no commit went through unacknowledged")
        .isEqualTo(unacknowledgedBefore);
    pdx.awaitCaughtUpWith(iad, WAIT);
    assertThat(DatabaseCluster.writtenIds(pdx)).contains(-7L);
  }

  /**
   * Semi-sync on ({@code required}, a 30 s timeout), a planned failover to pdx (whose promotion
   * turned its source side on), then spec.semiSync removed: every server ends with both sides off
   * and status.semiSync is removed, and a commit on the new primary does not wait for an
   * acknowledgement even with no replica connected. Before the fix the keeper left the servers
   * alone once disabled: pdx kept waiting out the whole timeout on every such commit.
   */
  @FlavorTest
  void removedFromTheSpecItIsOffOnEveryServerAndTheNewPrimaryWritesAtOnce(Flavor flavor) throws Exception {
    startWithSemiSync(flavor, true, "required", "30s");
    awaitSemiSync(s -> "iad".equals(s.primary()) && Boolean.TRUE.equals(s.enabled()) && s.clients() != null
        && s.clients() == 1, "semi-sync on iad with pdx acknowledging");
    stack.api().annotate("pdx");
    assertThat(stack.waits().plannedEnd(null, WAIT).phase()).isEqualTo("Succeeded");
    awaitSemiSync(s -> "pdx".equals(s.primary()) && Boolean.TRUE.equals(s.enabled()) && s.clients() != null
        && s.clients() == 1, "semi-sync moved to pdx, iad acknowledging");

    long removedAt = System.nanoTime();
    stack.api().editSpec(s -> GroupSpecs.withSemiSync(s, null));
    List<String> sides = List.of(sourceVariable(flavor, "enabled"), replicaVariable(flavor, "enabled"));
    Await.until(stack, () -> List.of("iad", "pdx").stream().noneMatch(site -> sides.stream()
        .anyMatch(v -> flag(stack.server(site), v))), WAIT, "both sides off on iad and pdx");
    long offAt = System.nanoTime();
    Await.until(stack, () -> semiSync() == null, WAIT, "status.semiSync removed");
    for (String site : List.of("iad", "pdx")) {
      for (String v : sides) {
        assertThat(flag(stack.server(site), v)).as(site + " " + v).isFalse();
      }
    }

    // No replica connected: a source side still on (required) would hold the commit for 30 s.
    DatabaseServer pdx = stack.server("pdx");
    DatabaseServer iad = stack.server("iad");
    iad.stopReplicaIoThread();
    long t0 = System.nanoTime();
    CompletableFuture<Void> commit = commitInBackground(pdx, -11L);
    // Half the semi-sync timeout: a commit that waited for an acknowledgement is not back before 30 s.
    commit.get(15, TimeUnit.SECONDS);
    System.out.printf("%s semi-sync removed from the spec: both sides off on every server %d ms after the edit; "
        + "a commit on the new primary with no replica connected took %d ms (semi-sync timeout 30 s)%n", flavor,
        Duration.ofNanos(offAt - removedAt).toMillis(), Duration.ofNanos(System.nanoTime() - t0).toMillis());
    iad.startReplicaIoThread();
    iad.awaitCaughtUpWith(pdx, WAIT);
    assertThat(DatabaseCluster.writtenIds(iad)).contains(-11L);
  }

  /**
   * A killed primary's binlog may end with a commit no replica acknowledged (written to the binlog,
   * waiting for the acknowledgement when the kill came; its client never got an answer). MariaDB
   * restarted with the replica side in its configuration ({@code rpl_semi_sync_slave_enabled=ON},
   * and {@code init_rpl_role=SLAVE}, which 10.6.19/10.11.9 and later require) truncates that tail
   * and rejoins; MySQL's crash recovery commits it, so the old primary is held read-only as
   * divergent by exactly that one transaction.
   */
  @FlavorTest
  void aKilledPrimarysUnacknowledgedTailIsTruncatedOnMariaDbAndHeldDivergentOnMySql(Flavor flavor) throws Exception {
    // Required: the commit waits for pdx even while pdx's IO thread is stopped (preferred would
    // turn asynchronous at once, with no semi-synchronous replica connected).
    startWithSemiSync(flavor, true, "required", "60s");
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");
    iad.execute("INSERT INTO " + DatabaseCluster.WRITES_TABLE + " (id, at) VALUES (1, NOW(6))");
    pdx.awaitCaughtUpWith(iad, WAIT);
    pdx.stopReplicaIoThread();
    CompletableFuture<Void> unacknowledged = commitInBackground(iad, -9L);
    sleep(1_500);
    assertThat(unacknowledged).as("the commit waits for pdx's acknowledgement").isNotDone();
    iad.kill9();
    assertThat(awaitActiveSiteOtherThan("iad")).isEqualTo("pdx");
    Await.until(stack, () -> succeededTo("pdx"), WAIT, "the emergency failover to pdx to succeed");
    assertThat(unacknowledged).as("its client never got an acknowledgement").isCompletedExceptionally();
    assertThat(DatabaseCluster.writtenIds(pdx)).doesNotContain(-9L);

    if (flavor == Flavor.MARIADB) {
      iad.restartWith(List.of("--rpl-semi-sync-slave-enabled=ON", "--init-rpl-role=SLAVE"));
      Await.until(stack, () -> stack.api().eventReasons().contains("RecoveryComplete"), WAIT,
          "iad rejoining: " + stack.api().eventReasons());
      assertThat(DatabaseCluster.writtenIds(iad)).as("the unacknowledged tail truncated").doesNotContain(-9L);
      assertThat(stack.api().eventReasons()).doesNotContain("RecoveryBlocked");
      System.out.println("MARIADB: the killed primary's unacknowledged transaction was truncated; it rejoined");
    } else {
      iad.restart();
      Await.until(stack, () -> stack.api().eventReasons().contains("RecoveryBlocked"), WAIT, "a RecoveryBlocked Event");
      assertThat(stack.api().eventMessages("RecoveryBlocked"))
          .anySatisfy(m -> assertThat(m).contains("holds 1 transaction"));
      assertThat(iad.isReadOnly()).isTrue();
      System.out.println("MYSQL: " + stack.api().eventMessages("RecoveryBlocked"));
    }
  }

  /**
   * Starts iad, the primary, and pdx ({@code monitorActs}: the monitor fails over, fences and
   * recovers, or only watches), switches semi-sync on in {@code mode} with {@code timeout}, and
   * waits until iad has it on with pdx acknowledging, with no fall-back reported on the way.
   */
  private void startWithSemiSync(Flavor flavor, boolean monitorActs, String mode, String timeout) {
    start(flavor, new FailoverStack.Options(List.of("iad", "pdx"), List.of(), "0s", null, "500ms", 3, monitorActs));
    stack.api().editSpec(s -> GroupSpecs.withSemiSync(s, new SemiSyncSpec(true, mode, timeout, 1, null)));
    awaitSemiSync(s -> Boolean.TRUE.equals(s.enabled()) && s.clients() != null && s.clients() == 1,
        "semi-sync on iad with pdx acknowledging");
    // Switching semi-sync on is no fall-back: the source side is on a moment before pdx's IO thread
    // reconnects with its replica side, and that moment is not reported.
    assertThat(stack.api().eventReasons()).as("no fall-back reported while semi-sync was switched on")
        .doesNotContain("SemiSyncFallenBack", "SemiSyncRestored");
  }

  /** An application's commit of row {@code id} on {@code server}, in the background: it may wait for an acknowledgement. */
  private static CompletableFuture<Void> commitInBackground(DatabaseServer server, long id) {
    return CompletableFuture.runAsync(() -> {
      try (Connection c = server.appConnection(); Statement st = c.createStatement()) {
        st.execute("INSERT INTO " + DatabaseCluster.WRITES_TABLE + " (id, at) VALUES (" + id + ", NOW(6))");
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
  }

  private static int acknowledged(List<WriteLoad> loads) {
    return loads.stream().mapToInt(WriteLoad::acknowledgedCount).sum();
  }

  private SemiSyncStatus semiSync() {
    MysqlFailoverGroupStatus s = stack.api().resource().getStatus();
    return s == null ? null : s.semiSync();
  }

  private SemiSyncStatus awaitSemiSync(java.util.function.Predicate<SemiSyncStatus> p, String what) {
    Await.until(stack, () -> semiSync() != null && p.test(semiSync()), WAIT, what + " (status.semiSync)");
    return semiSync();
  }

  private Condition degraded() {
    MysqlFailoverGroupStatus s = stack.api().resource().getStatus();
    return s == null || s.conditions() == null ? new Condition() : s.conditions().stream()
        .filter(c -> "Degraded".equals(c.getType())).findFirst().orElse(new Condition());
  }

  private boolean succeededTo(String site) {
    EmergencyFailoverStatus e = stack.api().resource().getStatus().emergencyFailover();
    return e != null && site.equals(e.target()) && "Succeeded".equals(e.phase());
  }

  private void assertSource(Flavor flavor, String site, boolean on) {
    DatabaseServer server = stack.server(site);
    assertThat(flag(server, sourceVariable(flavor, "enabled"))).as(site + " source side").isEqualTo(on);
    if (on) {
      assertThat(server.queryString("SELECT @@global." + sourceVariable(flavor, "wait_point")))
          .isEqualTo("AFTER_SYNC");
    }
  }

  private static boolean flag(DatabaseServer server, String variable) {
    String v = server.queryString("SELECT @@global." + variable);
    return "1".equals(v) || "ON".equalsIgnoreCase(v);
  }

  private static String sourceVariable(Flavor flavor, String name) {
    return (flavor == Flavor.MYSQL ? "rpl_semi_sync_source_" : "rpl_semi_sync_master_") + name;
  }

  private static String statusTable(Flavor flavor) {
    return flavor == Flavor.MYSQL ? "performance_schema.global_status" : "information_schema.GLOBAL_STATUS";
  }

  private static String sourceStatus(Flavor flavor, String name) {
    return (flavor == Flavor.MYSQL ? "Rpl_semi_sync_source_" : "RPL_SEMI_SYNC_MASTER_") + name;
  }

  private static String replicaVariable(Flavor flavor, String name) {
    return (flavor == Flavor.MYSQL ? "rpl_semi_sync_replica_" : "rpl_semi_sync_slave_") + name;
  }

  private String awaitActiveSiteOtherThan(String old) {
    long until = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < until) {
      MysqlFailoverGroupStatus status = stack.api().resource().getStatus();
      if (status != null && status.activeSite() != null && !status.activeSite().equals(old)) {
        return status.activeSite();
      }
      sleep(50);
    }
    throw new AssertionError("status.activeSite still '" + old + "': " + stack.api().resource().getStatus());
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
