package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.shipstream.failover.model.crd.DryRunStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.topology.DryRunAnnotation;
import io.shipstream.failover.model.topology.FencedSites;
import io.shipstream.failover.model.topology.PauseAnnotation;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code bloodraven.shipstream.io/dry-run} on real servers and the whole stack: a dry run reports
 * what the real request then does, and changes nothing. The healthy case runs on both flavors (the
 * dry run's reads and the comparison of every replication channel are flavor SQL); the refusals,
 * which no statement decides, on MariaDB, in order on one stack: the dr-only site, the fenced site,
 * the paused group, the lagging target, then a real switchover and the cooldown it starts, and last
 * the emergency precheck against the failover that follows a kill -9 of the primary.
 */
@ExtendWith(StoredGroupsFitTheCrd.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DryRunIT extends StackPerClass {
  private static final Duration WAIT = Duration.ofSeconds(60);

  private static void use(Flavor flavor) {
    stackOf(flavor, FailoverStack.Options.emergency());
  }

  /**
   * A switchover to a healthy pdx is Ready, with an estimate of the write window from the round
   * trips measured, a pre-hook found reachable but never called; and every server's read-only
   * flags, every replication channel's configuration and thread states, the pods' labels, the spec
   * and the other annotations are as they were. The group's workflow id was never used.
   */
  @FlavorTest
  @Order(1)
  void aHealthyTargetIsReadyWithAWindowEstimateAndNothingChanges(Flavor flavor) {
    use(flavor);
    try (HookRecorder hooks = new HookRecorder()) {
      hooks.installAsHooksOf(stack, "hook-s3cret");
      stack.server("pdx").awaitCaughtUpWith(stack.server("iad"), WAIT);
      World before = World.of(stack);

      DryRunStatus verdict = dryRun("pdx");

      assertThat(verdict.verdict()).as(String.valueOf(verdict)).isEqualTo("Ready");
      assertThat(verdict.kind()).isEqualTo(DryRunStatus.SWITCHOVER);
      assertThat(verdict.reason()).isNull();
      assertThat(verdict.message()).isEqualTo("a switchover from iad to pdx would start now");
      assertThat(verdict.source()).isEqualTo("iad");
      assertThat(verdict.target()).isEqualTo("pdx");
      assertThat(verdict.lagTransactions()).isZero();
      assertThat(verdict.estimatedWriteWindowSeconds()).isPositive().isLessThan(5.0);
      assertThat(verdict.findings()).anyMatch(f -> f.startsWith("write window estimate: "))
          .anyMatch(f -> f.startsWith("pre-failover hook " + hooks.url("/pre") + ": reachable"))
          .anyMatch(f -> f.startsWith("site pdx (primary-candidate, the target): read-only, replicating"))
          .anyMatch(f -> f.contains("connection plaintext"))
          .anyMatch(f -> f.startsWith("replicas re-pointed at pdx after the promotion: [dr]"))
          .anyMatch(f -> f.equals("failover cooldown: not active"));
      assertThat(verdict.workflowId()).startsWith("mysqlfailovergroup/shop/orders-dry-run-");
      assertThat(hooks.received).as("the pre-hook is reached, never called").isEmpty();
      System.out.printf("%s: dry run to pdx: estimated write window %.4f s; %s%n", flavor,
          verdict.estimatedWriteWindowSeconds(), verdict.findings());

      World after = World.of(stack);
      assertThat(after.readOnly()).as("read_only of every server").isEqualTo(before.readOnly());
      assertThat(after.channels()).as("every replication channel").isEqualTo(before.channels());
      assertThat(after.podLabels()).as("the pods' labels").isEqualTo(before.podLabels());
      assertThat(after.spec()).as("the spec").isEqualTo(before.spec());
      assertThat(after.annotations()).as("the other annotations; the dry run's own removed")
          .isEqualTo(before.annotations());
      assertThat(after.status().activeSite()).isEqualTo("iad");
      assertThat(after.status().plannedFailover()).as("status.plannedFailover")
          .isEqualTo(before.status().plannedFailover());
      assertThat(after.status().workflow()).as("the group's workflow id unused").isEqualTo(before.status().workflow());
      assertThat(after.status().cooldownSince()).as("no cooldown").isEqualTo(before.status().cooldownSince());
      assertThat(stack.api().eventReasons()).contains("DryRunCompleted")
          .doesNotContain("PlannedFailoverStarted", "PlannedFailoverDraining");
      stack.api().editSpec(spec -> GroupSpecs.withHooks(spec, null));
    }
  }

  /** A dr-only site: the dry run and the real request both say TargetNotCandidate. */
  @Test
  @Order(2)
  @DisplayName("MARIADB: a dry run to a dr-only site reports the reason the real request fails with")
  void aDrOnlySiteIsRefusedAsTheRealRequestIs() {
    use(Flavor.MARIADB);
    sameReasonAsTheRealRequest("dr", "TargetNotCandidate");
  }

  /** A fenced target: TargetFenced for both. */
  @Test
  @Order(3)
  @DisplayName("MARIADB: a dry run to a fenced site reports the reason the real request fails with")
  void aFencedSiteIsRefusedAsTheRealRequestIs() {
    use(Flavor.MARIADB);
    stack.api().setAnnotation(FencedSites.ANNOTATION, "pdx");
    Await.until(stack, () -> stack.api().resource().getStatus().fencedSites().contains("pdx"), WAIT, "pdx fenced");
    sameReasonAsTheRealRequest("pdx", "TargetFenced");
    stack.api().setAnnotation(FencedSites.ANNOTATION, null);
    Await.until(stack, () -> {
      List<String> fenced = stack.api().resource().getStatus().fencedSites();
      return (fenced == null || fenced.isEmpty()) && stack.server("pdx").replicaStatus().configured();
    }, WAIT, "pdx unfenced");
  }

  /** A paused group: Paused for both. */
  @Test
  @Order(4)
  @DisplayName("MARIADB: a dry run on a paused group reports the reason the real request fails with")
  void aPausedGroupIsRefusedAsTheRealRequestIs() {
    use(Flavor.MARIADB);
    stack.api().setAnnotation(PauseAnnotation.ANNOTATION, "true");
    DryRunStatus paused = sameReasonAsTheRealRequest("pdx", "Paused");
    assertThat(paused.message()).contains(PauseAnnotation.ANNOTATION + "=true");
    stack.api().setAnnotation(PauseAnnotation.ANNOTATION, null);
  }

  /**
   * A target that lags (its replication delayed): still Ready, its lag reported in transactions
   * against maxLagWait, and a warning that the lag gate would hold writes.
   */
  @Test
  @Order(5)
  @DisplayName("MARIADB: a lagging target is reported with its lag against maxLagWait")
  void aLaggingTargetIsReportedAgainstMaxLagWait() {
    use(Flavor.MARIADB);
    DatabaseServer iad = stack.server("iad");
    DatabaseServer pdx = stack.server("pdx");
    pdx.delayReplication(30);
    try {
      iad.execute("CREATE DATABASE IF NOT EXISTS dryrun", "CREATE TABLE dryrun.lag (id INT PRIMARY KEY)",
          "INSERT INTO dryrun.lag VALUES (1)", "INSERT INTO dryrun.lag VALUES (2)");
      Await.until(stack, () -> secondsBehind(pdx) >= 2, WAIT, "pdx 2 s behind");

      DryRunStatus verdict = dryRun("pdx");

      assertThat(verdict.lagTransactions()).as(String.valueOf(verdict)).isGreaterThanOrEqualTo(3);
      assertThat(verdict.lagSeconds()).isGreaterThanOrEqualTo(2);
      assertThat(verdict.findings()).anyMatch(f -> f.startsWith("lag: pdx is " + verdict.lagTransactions()
          + " transaction(s) and ") && f.endsWith("behind iad (maxLagWait 300 s)"));
      assertThat(verdict.warnings()).anyMatch(w -> w.contains("against maxLagWait 300 s: the lag gate would hold "
          + "writes for about"));
      assertThat(verdict.estimatedWriteWindowSeconds()).isGreaterThanOrEqualTo(verdict.lagSeconds());
      System.out.printf("%s: dry run to a lagging pdx: %s %s; lag %d trx, %d s; estimate %.4f s; warnings %s%n",
          stack.flavor(), verdict.verdict(), verdict.message(), verdict.lagTransactions(), verdict.lagSeconds(),
          verdict.estimatedWriteWindowSeconds(), verdict.warnings());
    } finally {
      pdx.delayReplication(0);
    }
    pdx.awaitCaughtUpWith(iad, WAIT);
  }

  /**
   * A real switchover to pdx starts the cooldown (set to ten minutes): a dry run back to iad then
   * reports CooldownActive, as the real request fails with; the dry run itself started no cooldown
   * (the healthy case shows it).
   */
  @Test
  @Order(6)
  @DisplayName("MARIADB: a dry run in the group's cooldown reports the reason the real request fails with")
  void aGroupInItsCooldownIsRefusedAsTheRealRequestIs() {
    use(Flavor.MARIADB);
    stack.api().editSpec(spec -> GroupSpecs.with(spec, "failoverCooldown", "10m"));
    String before = Instant.now().toString();
    stack.api().annotate("pdx");
    PlannedFailoverStatus done = stack.waits().plannedEnd(before, WAIT);
    assertThat(done.phase()).as(done.message()).isEqualTo("Succeeded");

    DryRunStatus verdict = sameReasonAsTheRealRequest("iad", "CooldownActive");
    assertThat(verdict.findings()).anyMatch(f -> f.startsWith("failover cooldown: active until "));
    stack.api().editSpec(spec -> GroupSpecs.with(spec, "failoverCooldown", "0s"));
  }

  /**
   * The emergency precheck names the site the emergency path would promote (iad, the only
   * candidate left once pdx, now primary, is lost) and what it would lose (nothing: caught up);
   * then pdx is killed and the emergency failover promotes exactly that site.
   */
  @Test
  @Order(7)
  @DisplayName("MARIADB: the emergency precheck names the candidate the real failover then promotes")
  void theEmergencyPrecheckNamesTheCandidateTheRealFailoverPromotes() {
    use(Flavor.MARIADB);
    DatabaseServer pdx = stack.server("pdx");
    stack.server("iad").awaitCaughtUpWith(pdx, WAIT);
    stack.server("dr").awaitCaughtUpWith(pdx, WAIT);

    DryRunStatus precheck = dryRun(DryRunAnnotation.EMERGENCY);

    assertThat(precheck.kind()).isEqualTo(DryRunStatus.EMERGENCY);
    assertThat(precheck.verdict()).as(String.valueOf(precheck)).isEqualTo("WouldPromote");
    assertThat(precheck.source()).isEqualTo("pdx");
    assertThat(precheck.transactionsLost()).isZero();
    assertThat(pdx.isReadOnly()).as("nothing fenced").isFalse();

    pdx.kill9();
    Await.until(stack, () -> "Succeeded".equals(stack.api().emergencyPhase()), WAIT, "the emergency failover");
    assertThat(stack.api().resource().getStatus().activeSite()).isEqualTo(precheck.target());
    assertThat(stack.api().resource().getStatus().emergencyFailover().target()).isEqualTo(precheck.target());
  }

  // --- helpers ---------------------------------------------------------------------------------

  /** Runs a dry run for {@code site}, then the real request; both must name {@code reason}. */
  private static DryRunStatus sameReasonAsTheRealRequest(String site, String reason) {
    DryRunStatus verdict = dryRun(site);
    assertThat(verdict.verdict()).as(String.valueOf(verdict)).isEqualTo("Refused");
    assertThat(verdict.reason()).as(String.valueOf(verdict)).isEqualTo(reason);

    String before = Instant.now().toString();
    stack.api().annotate(site);
    PlannedFailoverStatus real = stack.waits().plannedEnd(before, WAIT);
    assertThat(real.phase()).as(real.message()).isEqualTo("Failed");
    assertThat(real.reason()).as("the real request's reason").isEqualTo(verdict.reason());
    System.out.printf("%s: dry run %s: %s %s: %s; the real request: %s%n", stack.flavor(), site, verdict.verdict(),
        verdict.reason(), verdict.message(), real.reason());
    return verdict;
  }

  /** Sets the dry-run annotation and waits for the verdict its run writes as it removes the annotation. */
  private static DryRunStatus dryRun(String value) {
    String before = Instant.now().minusMillis(1).toString();
    stack.api().setAnnotation(DryRunAnnotation.ANNOTATION, value);
    Await.until(stack, () -> {
      MysqlFailoverGroup g = stack.api().resource();
      DryRunStatus d = g.getStatus() == null ? null : g.getStatus().dryRun();
      return d != null && value.equals(d.request()) && d.startTime().compareTo(before) >= 0
          && g.annotation(DryRunAnnotation.ANNOTATION) == null;
    }, WAIT, "the dry run's verdict for " + value);
    return stack.api().resource().getStatus().dryRun();
  }

  /** The lag the replica reports (MariaDB's Seconds_Behind_Master); -1 when it says none. */
  private static long secondsBehind(DatabaseServer replica) {
    try (Connection c = replica.adminConnection(); Statement s = c.createStatement()) {
      String value = World.rows(s, "SHOW SLAVE STATUS", Set.of("Seconds_Behind_Master")).get(0)
          .get("Seconds_Behind_Master");
      return value == null ? -1 : Long.parseLong(value);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** What a dry run must leave as it found it. */
  private record World(Map<String, String> readOnly, Map<String, List<Map<String, String>>> channels,
      Map<String, Map<String, String>> podLabels, MysqlFailoverGroupSpec spec, Map<String, String> annotations,
      MysqlFailoverGroupStatus status) {

    static World of(FailoverStack stack) {
      Map<String, String> readOnly = new TreeMap<>();
      Map<String, List<Map<String, String>>> channels = new TreeMap<>();
      stack.servers().forEach((site, server) -> {
        readOnly.put(site, server.queryString(server.flavor() == Flavor.MYSQL
            ? "SELECT CONCAT(@@global.read_only, '/', @@global.super_read_only)" : "SELECT @@global.read_only"));
        channels.put(site, channels(server));
      });
      MysqlFailoverGroup group = stack.api().resource();
      Map<String, Map<String, String>> labels = stack.api().client().pods()
          .inNamespace(stack.api().ref().namespace()).list().getItems().stream()
          .collect(Collectors.toMap(p -> p.getMetadata().getName(), World::labels, (a, b) -> a, TreeMap::new));
      Map<String, String> annotations = new HashMap<>(group.getMetadata().getAnnotations() == null ? Map.of()
          : group.getMetadata().getAnnotations());
      annotations.remove(DryRunAnnotation.ANNOTATION);
      return new World(readOnly, channels, labels, group.getSpec(), annotations, group.getStatus());
    }

    private static Map<String, String> labels(Pod pod) {
      return pod.getMetadata().getLabels() == null ? Map.of() : new TreeMap<>(pod.getMetadata().getLabels());
    }

    /**
     * Every replication channel of the server: its configuration and its threads' states, without
     * what moves by itself (positions, lag, timestamps). MySQL keeps them in performance_schema,
     * one row per channel; MariaDB shows every connection with SHOW ALL SLAVES STATUS.
     */
    private static List<Map<String, String>> channels(DatabaseServer server) {
      try (Connection c = server.adminConnection(); Statement s = c.createStatement()) {
        if (server.flavor() == Flavor.MYSQL) {
          List<Map<String, String>> rows =
              rows(s, "SELECT * FROM performance_schema.replication_connection_configuration "
                  + "ORDER BY CHANNEL_NAME", Set.of());
          rows.addAll(
              rows(s, "SELECT * FROM performance_schema.replication_applier_configuration ORDER BY CHANNEL_NAME",
                  Set.of()));
          rows.addAll(
              rows(s, "SELECT CHANNEL_NAME, SERVICE_STATE FROM performance_schema.replication_connection_status "
                  + "ORDER BY CHANNEL_NAME", Set.of()));
          rows.addAll(rows(s, "SELECT CHANNEL_NAME, SERVICE_STATE FROM performance_schema.replication_applier_status "
              + "ORDER BY CHANNEL_NAME", Set.of()));
          return rows;
        }
        return rows(s, "SHOW ALL SLAVES STATUS", Set.of("Connection_name", "Master_Host", "Master_User", "Master_Port",
            "Connect_Retry", "Slave_IO_Running", "Slave_SQL_Running", "Replicate_Do_DB", "Replicate_Ignore_DB",
            "Replicate_Do_Table", "Replicate_Ignore_Table", "Replicate_Wild_Do_Table", "Replicate_Wild_Ignore_Table",
            "Last_Errno", "Last_IO_Errno", "Last_SQL_Errno", "Master_SSL_Allowed", "Master_SSL_Verify_Server_Cert",
            "Master_Server_Id", "Using_Gtid", "Replicate_Do_Domain_Ids", "Replicate_Ignore_Domain_Ids", "Parallel_Mode",
            "SQL_Delay", "Replicate_Rewrite_DB"));
      } catch (SQLException e) {
        throw new IllegalStateException(server.name() + ": " + e.getMessage(), e);
      }
    }

    /** The rows of {@code sql}, each the columns in {@code keep} (every column when empty). */
    private static List<Map<String, String>> rows(Statement s, String sql, Set<String> keep) throws SQLException {
      List<Map<String, String>> rows = new java.util.ArrayList<>();
      try (ResultSet r = s.executeQuery(sql)) {
        ResultSetMetaData meta = r.getMetaData();
        while (r.next()) {
          Map<String, String> row = new TreeMap<>();
          for (int i = 1; i <= meta.getColumnCount(); i++) {
            String name = meta.getColumnLabel(i);
            if (keep.isEmpty() || keep.contains(name)) {
              row.put(name, r.getString(i));
            }
          }
          rows.add(row);
        }
      }
      return rows;
    }
  }
}
