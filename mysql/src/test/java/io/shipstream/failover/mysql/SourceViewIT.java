package io.shipstream.failover.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica's view of its source ({@link SqlDialect#sourceView}) on real servers of each flavor: a
 * replica pointed at its source by {@link SourceChange} hears a heartbeat every second from an idle
 * source (its progress moves), and loses it with a connection error the moment the source is killed.
 */
class SourceViewIT {
  @FlavorTest
  void aReplicaHearsItsIdleSourceEverySecondAndLosesItWhenItIsKilled(Flavor flavor, @TempDir Path work)
      throws Exception {
    try (SourceAndReplica rig = SourceAndReplica.start(flavor, work)) {
      MysqlSession session = rig.onReplica();
      Thread.sleep(1500);
      SourceView first = session.dialect().sourceView(session);
      Thread.sleep(2500);
      SourceView second = session.dialect().sourceView(session);
      System.out.printf("%s: %s%n%s: %s%n", flavor, first, flavor, second);
      assertThat(second.configured()).isTrue();
      assertThat(second.ioRunning()).isTrue();
      assertThat(second.sourceServerId()).isNotNull();
      assertThat(second.progressCountsHeartbeats()).isTrue();
      assertThat(second.progress()).as("heartbeats from the idle source, 1 s apart").isNotEqualTo(first.progress());
      if (second.silence() != null) {
        assertThat(second.silence()).isLessThan(Duration.ofSeconds(3));
      }

      rig.source().kill9();
      SourceView lost = ItSessions.readUntil(Duration.ofSeconds(10), () -> session.dialect().sourceView(session),
          view -> !view.ioRunning() && view.lastIoErrno() != null && view.lastIoErrno() != 0);
      System.out.printf("%s: after kill -9: %s%n", flavor, lost);
      assertThat(lost.ioRunning()).isFalse();
      assertThat(lost.lastIoErrno()).as(lost.lastIoError()).isIn(2003, 2013, 2002, 2006);
      if (flavor == Flavor.MYSQL) {
        // Dated by the replica's own clock: the watcher tells an error older than a restart from a new one.
        assertThat(lost.lastIoErrorAge()).as("the error's age").isNotNull().isLessThan(Duration.ofSeconds(11));
      } else {
        assertThat(lost.lastIoErrorAge()).as("MariaDB records no time for the error").isNull();
      }
    }
  }
}
