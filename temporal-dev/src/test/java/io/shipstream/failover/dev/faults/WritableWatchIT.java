package io.shipstream.failover.dev.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.testsupport.DatabaseCluster;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The split-brain watch on two real servers, driven through the hand-overs the fault suite
 * produces: it must report the two writable servers that there are, and never two that there
 * were not. The statements go over kept admin connections, as the runbook's do, so that a fence,
 * a SIGSTOP and a promotion follow each other within a few milliseconds, faster than a probe
 * period: the interleaving of issue 30's {@code source-sigstop-lag-wait-through-promotion}.
 */
class WritableWatchIT {
  @TempDir
  static Path work;
  private static DatabaseCluster cluster;
  private static DatabaseServer source;
  private static DatabaseServer target;

  @BeforeAll
  static void servers() {
    cluster = DatabaseCluster.start(Flavor.MARIADB, work, 2);
    source = cluster.server(0);
    target = cluster.server(1);
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  /**
   * The source is fenced, then frozen, then the target is made writable, each a few milliseconds
   * after the other: the source's last "writable" answer was asked before its fence, and its next
   * probe hangs on the frozen server. Read-only before the target was writable, the source was
   * never writable beside it. Twenty times, since where the probes stand when it happens is chance:
   * the 100 ms freshness rule the watch had before counted two writable in 4 of 20 rounds here.
   */
  @Test
  void aSourceFencedAndFrozenJustBeforeThePromotionIsNeverCountedBesideTheTarget() throws Exception {
    List<String> overlaps = new ArrayList<>();
    try (Connection toSource = source.adminConnection(); Connection toTarget = target.adminConnection()) {
      for (int round = 0; round < 20; round++) {
        set(toTarget, true);
        set(toSource, false);
        try (WritableWatch watch = WritableWatch.start(sites())) {
          WritableWatch.sleep(300);
          set(toSource, true);
          source.pause();
          try {
            set(toTarget, false);
            // The target's probes see it writable; the source's next probe times out (300 ms).
            WritableWatch.sleep(500);
          } finally {
            source.resume();
          }
          WritableWatch.sleep(200);
          watch.close();
          assertThat(watch.samples()).as("answers in round %d", round).isGreaterThan(10);
          if (watch.most() > 1) {
            overlaps.add("round " + round + ": " + watch.firstOverlap());
          }
        }
      }
    }
    assertThat(overlaps).as("the source was read-only before the target turned writable").isEmpty();
  }

  /** Both writable for 400 ms: the watch says so, and when it started. */
  @Test
  void twoWritableServersAreReported() throws Exception {
    try (Connection toSource = source.adminConnection(); Connection toTarget = target.adminConnection()) {
      set(toTarget, true);
      set(toSource, false);
      try (WritableWatch watch = WritableWatch.start(sites())) {
        WritableWatch.sleep(300);
        set(toTarget, false);
        WritableWatch.sleep(400);
        set(toTarget, true);
        WritableWatch.sleep(200);
        watch.close();
        assertThat(watch.most()).isEqualTo(2);
        assertThat(watch.firstOverlap()).contains("source").contains("target");
      }
    }
  }

  /** A frozen writable server takes no writes while frozen: not counted beside another. */
  @Test
  void aFrozenWritableServerIsNotCountedWhileFrozen() throws Exception {
    try (Connection toSource = source.adminConnection(); Connection toTarget = target.adminConnection()) {
      set(toTarget, true);
      set(toSource, false);
      try (WritableWatch watch = WritableWatch.start(sites())) {
        WritableWatch.sleep(300);
        source.pause();
        try {
          // Past the source's probe timeout before the target turns writable, and read-only
          // again before the source resumes (writable: that would be two).
          WritableWatch.sleep(500);
          set(toTarget, false);
          WritableWatch.sleep(500);
          set(toTarget, true);
        } finally {
          source.resume();
        }
        WritableWatch.sleep(200);
        watch.close();
        assertThat(watch.most()).as("first overlap: %s", watch.firstOverlap()).isEqualTo(1);
      }
    }
  }

  private static Map<String, DatabaseServer> sites() {
    Map<String, DatabaseServer> sites = new LinkedHashMap<>();
    sites.put("source", source);
    sites.put("target", target);
    return sites;
  }

  private static void set(Connection c, boolean readOnly) throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute("SET GLOBAL read_only = " + (readOnly ? 1 : 0));
    }
  }
}
