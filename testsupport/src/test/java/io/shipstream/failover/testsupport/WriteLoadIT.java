package io.shipstream.failover.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class WriteLoadIT {

  @Test
  void survivesASwitchoverAndLosesNoAcknowledgedWrite() {
    try (MariaDbCluster cluster = MariaDbCluster.start(Path.of("target", "it-writeload"), 2)) {
      MariaDbServer primary = cluster.primary();
      MariaDbServer replica = cluster.server(1);
      AtomicReference<String> url = new AtomicReference<>(primary.jdbcUrl());
      WriteLoad load = WriteLoad.start(url::get);
      load.awaitAcknowledged(50, Duration.ofSeconds(10));

      // A hand-made switchover: fence, drain, promote, flip the address.
      primary.setReadOnly(true);
      replica.awaitCaughtUpWith(primary, Duration.ofSeconds(10));
      replica.execute("STOP SLAVE", "RESET SLAVE ALL");
      replica.setReadOnly(false);
      url.set(replica.jdbcUrl());
      int before = load.acknowledgedCount();
      load.awaitAcknowledged(before + 50, Duration.ofSeconds(10));
      load.stop();

      // The fenced primary refused writes until the load moved over: errors, then recovery.
      assertThat(load.errors()).isPositive();
      assertThat(load.lastError()).hasValueSatisfying(message -> assertThat(message).contains("read-only"));
      assertThat(MariaDbCluster.writtenIds(replica)).containsAll(load.acknowledged());
      assertThat(load.acknowledged()).isSorted().doesNotHaveDuplicates();
      assertThat(load.writeUnavailability()).isPositive().isLessThan(Duration.ofSeconds(5));
    }
  }
}
