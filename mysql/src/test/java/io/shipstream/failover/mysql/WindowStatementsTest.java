package io.shipstream.failover.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.gtid.GtidSet;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The statements the write window's steps send as one exchange, per flavor, as text. */
class WindowStatementsTest {
  @Test
  void theLagGatesWaitInlinesTheSetTheServerWaitsFor() {
    assertThat(MariaDbDialect.INSTANCE.waitQuery(GtidSet.parse("0-1-5,0-2-9,1-1-3"), Duration.ofMillis(1500)))
        .isEqualTo("SELECT MASTER_GTID_WAIT('0-2-9,1-1-3', 1.500) AS waited");
    String uuid = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
    assertThat(MySqlDialect.INSTANCE.waitQuery(GtidSet.parse(uuid + ":1-5"), Duration.ofMillis(1500)))
        .isEqualTo("SELECT WAIT_FOR_EXECUTED_GTID_SET('" + uuid + ":1-5', 1) AS waited");
    assertThat(MariaDbDialect.INSTANCE.waitQuery(GtidSet.parse(""), Duration.ofSeconds(1)))
        .isEqualTo("SELECT 0 AS waited");
  }

  @Test
  void positionsReadTheAppliedAndTheExecutedSetFromOneRow() {
    Map<String, String> mariadb = new HashMap<>();
    mariadb.put("executed", "0-1-7");
    mariadb.put("slave_pos", "0-2-9");
    SqlDialect.Positions p = MariaDbDialect.INSTANCE.positions(mariadb);
    assertThat(p.executed()).isEqualTo("0-1-7");
    assertThat(p.applied().contains(GtidSet.parse("0-2-9"))).isTrue();

    String uuid = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
    SqlDialect.Positions m =
        MySqlDialect.INSTANCE.positions(Map.of("executed", uuid + ":1-5,\n" + uuid.replace('3', '4')
            + ":1-2"));
    assertThat(m.executed()).doesNotContain("\n");
    assertThat(m.applied().contains(GtidSet.parse(uuid + ":5"))).isTrue();
  }

  @Test
  void promotionClearsEveryReadOnlyFlagInOneStatementAndReadsBothBack() {
    assertThat(MySqlDialect.INSTANCE.clearReadOnlyStatement())
        .isEqualTo("SET GLOBAL super_read_only = 0, GLOBAL read_only = 0");
    assertThat(MySqlDialect.INSTANCE.writable(Map.of("read_only", "0", "super_read_only", "1"))).isFalse();
    assertThat(MariaDbDialect.INSTANCE.writable(Map.of("read_only", "0", "super_read_only", "0"))).isTrue();
    assertThat(MariaDbDialect.INSTANCE.stopAndForgetSourceStatements()).isEqualTo("STOP SLAVE; RESET SLAVE ALL");
  }
}
