package io.shipstream.failover.mysql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.SQLException;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The flavor read from a server's first packet, on greetings captured from the test servers. */
class GreetingTest {
  /** MySQL 9.7.4 (Debian sid's mysql-server-core), its initial handshake packet, header included. */
  private static final String MYSQL_9_7 = "4b0000000a392e372e342d320009000000430b7f2d183b261a00ffffff0200ffdf15"
      + "000000000000000000004d471913393c17351b7b675b0063616368696e675f736861325f70617373776f726400";
  /** MariaDB 10.11.19 (Debian bookworm), which prefixes its version with 5.5.5- for old clients. */
  private static final String MARIADB_10_11 = "680000000a352e352e352d31302e31312e31392d4d6172696144422d302b64656231"
      + "3275312d6c6f67000500000051464b277d645c2100fef72d0200ff81150000000000001d0000002b5753792c6b575377223e51006d79"
      + "73716c5f6e61746976655f70617373776f726400";

  private static byte[] bytes(String hex) {
    return HexFormat.of().parseHex(hex);
  }

  @Test
  void mysqlGreetingNamesMysql() throws SQLException {
    Greeting g = Greeting.parse(bytes(MYSQL_9_7));
    assertThat(g.protocolVersion()).isEqualTo(10);
    assertThat(g.serverVersion()).isEqualTo("9.7.4-2");
    assertThat(g.flavor()).isEqualTo(ServerFlavor.MYSQL);
  }

  @Test
  void mariadbGreetingNamesMariadb() throws SQLException {
    Greeting g = Greeting.parse(bytes(MARIADB_10_11));
    assertThat(g.serverVersion()).isEqualTo("5.5.5-10.11.19-MariaDB-0+deb12u1-log");
    assertThat(g.flavor()).isEqualTo(ServerFlavor.MARIADB);
  }

  @Test
  void anErrorPacketIsTheServersRefusal() {
    // ER_CON_COUNT_ERROR as a server sends it instead of a greeting: 0xff, 1040 little-endian, the message.
    byte[] message = "Too many connections".getBytes();
    byte[] packet = new byte[4 + 3 + message.length];
    packet[0] = (byte) (3 + message.length);
    packet[4] = (byte) 0xff;
    packet[5] = (byte) (1040 & 0xff);
    packet[6] = (byte) (1040 >> 8);
    System.arraycopy(message, 0, packet, 7, message.length);
    assertThatThrownBy(() -> Greeting.parse(packet))
        .isInstanceOfSatisfying(SQLException.class, e -> {
          assertThat(e.getErrorCode()).isEqualTo(1040);
          assertThat(e.getMessage()).isEqualTo("Too many connections");
          assertThat(new MysqlException(e).connectionProblem()).isTrue();
        });
  }

  @Test
  void aTruncatedOrForeignPacketIsNotAGreeting() {
    byte[] mysql = bytes(MYSQL_9_7);
    assertThatThrownBy(() -> Greeting.parse(Arrays.copyOf(mysql, 20))).hasMessageContaining("announced");
    assertThatThrownBy(() -> Greeting.parse(new byte[] {1, 0, 0, 0})).hasMessageContaining("4 bytes");
    byte[] v9 = mysql.clone();
    v9[4] = 9;
    assertThatThrownBy(() -> Greeting.parse(v9)).hasMessageContaining("protocol version 9");
    // An HTTP server answering on the port (a wrong port in the spec) is no greeting either.
    assertThatThrownBy(() -> Greeting.parse("HTTP/1.1 400 Bad Request\r\n\r\n".getBytes()))
        .isInstanceOf(SQLException.class);
    assertThatThrownBy(() -> Greeting.parse(bytes("060000000a392e372e34"))).hasMessageContaining("not terminated");
  }

  @Test
  void versionStringsAndDeclarations() {
    assertThat(ServerFlavor.ofVersion("8.4.3")).isEqualTo(ServerFlavor.MYSQL);
    assertThat(ServerFlavor.ofVersion("11.4.2-MariaDB-log")).isEqualTo(ServerFlavor.MARIADB);
    assertThat(ServerFlavor.ofSpec(null)).isNull();
    assertThat(ServerFlavor.ofSpec("mysql")).isEqualTo(ServerFlavor.MYSQL);
    assertThat(ServerFlavor.ofSpec("mariadb")).isEqualTo(ServerFlavor.MARIADB);
    assertThatThrownBy(() -> ServerFlavor.ofSpec("percona")).hasMessageContaining("'percona'");
  }

  @Test
  void connectorJGetsTheSameTlsPolicy() {
    assertThat(MysqlConnections.connectorJSslMode(null)).isEqualTo("DISABLED");
    assertThat(MysqlConnections.connectorJSslMode("disable")).isEqualTo("DISABLED");
    assertThat(MysqlConnections.connectorJSslMode("trust")).isEqualTo("REQUIRED");
    assertThat(MysqlConnections.connectorJSslMode("verify-ca")).isEqualTo("VERIFY_CA");
    assertThat(MysqlConnections.connectorJSslMode("verify-full")).isEqualTo("VERIFY_IDENTITY");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> MysqlConnections.connectorJSslMode("preferred"))
        .hasMessageContaining("falls back to plaintext");
  }
}
