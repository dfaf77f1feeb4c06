package io.shipstream.failover.mysql;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.crd.ChannelCheck;
import io.shipstream.failover.model.tls.ChannelTls;
import io.shipstream.failover.model.tls.TlsMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * What a failover records of a channel it re-pointed ({@link ChannelReport#check}): as the group
 * asks only when it points at the new primary, is at least as strong as the mode, and is connected.
 */
class ChannelReportTest {
  private static final String CA = "/etc/mysql/ca.pem";

  @ParameterizedTest(name = "{0}: ssl={1} ca={2} verify={3} io={4} pointsAt={5} -> {6}")
  @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
      # mode          | ssl   | ca | verify | io         | points | as asked | problem starts with
      verify-identity | true  | CA | true   | Yes        | true   | true     | -
      verify-identity | true  | CA | false  | Yes        | true   | false    | weaker than the group's replication TLS verify-identity
      verify-ca       | true  | -  | false  | Yes        | true   | false    | weaker than the group's replication TLS verify-ca
      required        | false | -  | false  | Yes        | true   | false    | weaker than the group's replication TLS required
      required        | true  | -  | false  | Connecting | true   | false    | IO thread not connected
      verify-ca       | true  | CA | false  | Yes        | false  | false    | replicates from another source than pdx
      disabled        | false | -  | false  | Yes        | true   | true     | -
      """)
  void judgesTheChannelAgainstTheGroupsMode(String mode, boolean ssl, String ca, boolean verify, String io,
      boolean pointsAt, boolean asked, String problem) {
    ChannelTls wanted = new ChannelTls(TlsMode.parse(mode, null), CA, null, null);
    ChannelReport report =
        new ChannelReport(true, ssl, ca == null ? "" : CA, "/etc/mysql/client.pem", verify, io, 0, "");

    ChannelCheck check = report.check("iad", "pdx", wanted, pointsAt);

    assertThat(check.asGroupAsks()).isEqualTo(asked);
    assertThat(check.mode()).isEqualTo(mode);
    assertThat(check.ssl()).isEqualTo(ssl);
    assertThat(check.caFile()).isEqualTo(ca == null ? null : CA);
    assertThat(check.certFile()).isEqualTo("/etc/mysql/client.pem");
    assertThat(check.ioConnected()).isEqualTo("Yes".equals(io));
    if (problem == null) {
      assertThat(check.problem()).isNull();
    } else {
      assertThat(check.problem()).startsWith(problem);
    }
  }

  @Test
  void aServerWithoutAChannelIsSaidSo() {
    ChannelCheck check = ChannelReport.NONE.check("iad", "pdx", ChannelTls.NONE, false);
    assertThat(check.asGroupAsks()).isFalse();
    assertThat(check.problem()).isEqualTo("no replication channel");
    assertThat(check.ssl()).isNull();
  }
}
