package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.SiteStatus;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import java.time.Duration;
import java.time.Instant;

/**
 * {@code status.sites[].readiness} on real servers (iad primary, pdx a primary-candidate replica,
 * dr dr-only; the monitor polls every 500 ms): a replica whose SQL thread a DBA stops is no planned
 * target from the first poll that reads it so, with the reason ReplicationStopped, while the
 * emergency path would still promote it (its relay log is applied before a promotion); started
 * again, it is ready again. Both flavors: the replication status is read with each one's own SQL.
 */
class SiteReadinessIT extends StackPerTest {
  private static final Duration POLL = Duration.ofMillis(500);

  @FlavorTest
  void aStoppedSqlThreadTakesTheReplicaOutOfThePlannedTargetsWithinOnePoll(Flavor flavor) {
    start(flavor, FailoverStack.Options.emergency());
    Await.until(stack, () -> ready("pdx", true) && "pdx".equals(status().readySites()), Duration.ofSeconds(20),
        "pdx ready as a planned target");
    SiteStatus pdx = site("pdx");
    assertThat(pdx.readiness().emergency()).isTrue();
    assertThat(pdx.readiness().emergencyRank()).isEqualTo(1);
    assertThat(site("dr").readiness().plannedReason()).isEqualTo("NotCandidate");
    assertThat(site("iad").readiness().plannedReason()).isEqualTo("ActivePrimary");

    DatabaseServer server = stack.server("pdx");
    Instant stopped = Instant.now();
    server.stopReplicaSqlThread();
    Await.until(stack, () -> ready("pdx", false), Duration.ofSeconds(10), "pdx's readiness drops");
    SiteStatus after = site("pdx");
    // The status written with the drop carries the poll that saw it: the first after the stop,
    // which began at most a poll interval after it (plus the time the poll itself takes).
    Instant seenAt = Instant.parse(after.lastSeen());
    System.out.printf("%s: SQL thread stopped at %s, readiness dropped on the poll at %s (+%d ms)%n", flavor, stopped,
        seenAt, Duration.between(stopped, seenAt).toMillis());
    assertThat(seenAt).as("the poll that saw the stopped SQL thread").isBefore(stopped.plus(POLL).plus(POLL));
    assertThat(after.readiness().plannedReason()).isEqualTo("ReplicationStopped");
    assertThat(after.readiness().message()).contains("sql thread stopped");
    assertThat(after.readiness().emergency()).as("the relay log is applied before an emergency promotion").isTrue();
    assertThat(status().readySites()).isEqualTo("pdx");

    server.execute("START REPLICA SQL_THREAD");
    Await.until(stack, () -> ready("pdx", true), Duration.ofSeconds(10), "pdx ready again");
  }

  private boolean ready(String site, boolean planned) {
    SiteStatus s = site(site);
    return s != null && s.readiness() != null && planned == Boolean.TRUE.equals(s.readiness().planned());
  }

  private SiteStatus site(String name) {
    MysqlFailoverGroupStatus status = status();
    return status.sites() == null ? null
        : status.sites().stream().filter(s -> name.equals(s.name())).findFirst().orElse(null);
  }

  private MysqlFailoverGroupStatus status() {
    MysqlFailoverGroupStatus s = stack.api().resource().getStatus();
    return s == null ? MysqlFailoverGroupStatus.empty() : s;
  }
}
