package io.shipstream.failover.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.tls.ChannelTls;
import io.shipstream.failover.model.tls.TlsMode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What each flavor's words make of the statements and columns both dialects share, to the letter:
 * the servers' ITs show that they work, this that neither flavor's text drifts.
 */
class DialectStatementsTest {
  private static final ChannelTls VERIFY_IDENTITY = new ChannelTls(TlsMode.VERIFY_IDENTITY, "ca.pem", "c.pem", "k.pem");

  @Test
  void mariaDbPointsAChannelAtItsSourceByTheSlavePosition() {
    assertThat(MariaDbDialect.INSTANCE.changeSourceStatement(ChannelTls.NONE)).isEqualTo(
        "CHANGE MASTER TO MASTER_HOST = ?, MASTER_PORT = ?, MASTER_USER = ?, MASTER_PASSWORD = ?,"
            + " MASTER_USE_GTID = slave_pos, MASTER_CONNECT_RETRY = 2, MASTER_HEARTBEAT_PERIOD = 1");
    assertThat(MariaDbDialect.INSTANCE.changeSourceStatement(VERIFY_IDENTITY)).isEqualTo(
        "CHANGE MASTER TO MASTER_HOST = ?, MASTER_PORT = ?, MASTER_USER = ?, MASTER_PASSWORD = ?,"
            + " MASTER_USE_GTID = slave_pos, MASTER_CONNECT_RETRY = 2, MASTER_HEARTBEAT_PERIOD = 1, MASTER_SSL = 1,"
            + " MASTER_SSL_CA = ?, MASTER_SSL_CERT = ?, MASTER_SSL_KEY = ?, MASTER_SSL_VERIFY_SERVER_CERT = 1");
  }

  @Test
  void mySqlAsksForTheSourcesPublicKeyOnlyWithoutTls() {
    assertThat(MySqlDialect.INSTANCE.changeSourceStatement(ChannelTls.NONE)).isEqualTo(
        "CHANGE REPLICATION SOURCE TO SOURCE_HOST = ?, SOURCE_PORT = ?, SOURCE_USER = ?, SOURCE_PASSWORD = ?,"
            + " SOURCE_AUTO_POSITION = 1, SOURCE_CONNECT_RETRY = 2, GET_SOURCE_PUBLIC_KEY = 1,"
            + " SOURCE_HEARTBEAT_PERIOD = 1");
    assertThat(MySqlDialect.INSTANCE.changeSourceStatement(new ChannelTls(TlsMode.REQUIRED, null, null, null)))
        .isEqualTo("CHANGE REPLICATION SOURCE TO SOURCE_HOST = ?, SOURCE_PORT = ?, SOURCE_USER = ?,"
            + " SOURCE_PASSWORD = ?, SOURCE_AUTO_POSITION = 1, SOURCE_CONNECT_RETRY = 2, GET_SOURCE_PUBLIC_KEY = 0,"
            + " SOURCE_HEARTBEAT_PERIOD = 1, SOURCE_SSL = 1, SOURCE_SSL_CA = ?, SOURCE_SSL_CERT = ?,"
            + " SOURCE_SSL_KEY = ?, SOURCE_SSL_VERIFY_SERVER_CERT = 0");
  }

  @Test
  void eachFlavorsStatusColumnsAndStatementsUseItsOwnWords() {
    assertThat(MariaDbDialect.INSTANCE.replicaStatusQuery()).isEqualTo("SHOW SLAVE STATUS");
    assertThat(MySqlDialect.INSTANCE.replicaStatusQuery()).isEqualTo("SHOW REPLICA STATUS");
    assertThat(MySqlDialect.INSTANCE.stopAndForgetSourceStatements()).isEqualTo("STOP REPLICA; RESET REPLICA ALL");

    ReplicaStatus mariadb = MariaDbDialect.INSTANCE.replicaStatus(List.of(Map.ofEntries(
        Map.entry("Slave_IO_Running", "Connecting"), Map.entry("Slave_SQL_Running", "Yes"),
        Map.entry("Master_Host", "iad"), Map.entry("Master_Port", "3306"), Map.entry("Gtid_IO_Pos", " 0-1-7 "),
        Map.entry("Seconds_Behind_Master", "4"), Map.entry("Relay_Log_File", "relay.000002"),
        Map.entry("Relay_Log_Pos", "512"), Map.entry("Master_Server_Id", "11"), Map.entry("SQL_Delay", "30"))))
        .orElseThrow();
    assertThat(mariadb).isEqualTo(new ReplicaStatus("Connecting", true, "iad", 3306, "0-1-7", 4L, null, null,
        "relay.000002", 512L, "11", 30L));

    String uuid = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
    ReplicaStatus mysql = MySqlDialect.INSTANCE.replicaStatus(List.of(Map.ofEntries(
        Map.entry("Replica_IO_Running", "Yes"), Map.entry("Replica_SQL_Running", "No"),
        Map.entry("Source_Host", "pdx"), Map.entry("Source_Port", "3307"),
        Map.entry("Retrieved_Gtid_Set", uuid + ":1-5,\n" + uuid.replace('3', '4') + ":1-2"),
        Map.entry("Seconds_Behind_Source", "0"), Map.entry("Last_SQL_Error", "duplicate key"),
        Map.entry("Source_UUID", uuid), Map.entry("SQL_Delay", "0")))).orElseThrow();
    assertThat(mysql).isEqualTo(new ReplicaStatus("Yes", false, "pdx", 3307,
        uuid + ":1-5," + uuid.replace('3', '4') + ":1-2", 0L, null, "duplicate key", null, null, uuid, 0L));
    assertThat(MySqlDialect.INSTANCE.replicaStatus(List.of())).isEmpty();
  }
}
