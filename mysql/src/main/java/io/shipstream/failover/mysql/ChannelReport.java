package io.shipstream.failover.mysql;

import io.shipstream.failover.model.tls.ChannelTls;
import java.util.List;
import java.util.Map;

/**
 * A replication channel's TLS as its server reports it (SHOW REPLICA STATUS' {@code Source_SSL_*}
 * on MySQL, SHOW SLAVE STATUS' {@code Master_SSL_*} on MariaDB) and whether its IO thread is
 * connected. With the source requiring secure transport, a connected IO thread on a channel that
 * reports SSL allowed proves the channel is encrypted: the source refuses any other.
 *
 * @param configured whether the server has a channel at all
 * @param sslAllowed {@code SSL=1} on the channel
 * @param caFile the CA file the channel checks the source's certificate against, or blank
 * @param verifyServerCert whether it checks the source's name too
 * @param ioState Yes, Connecting or No
 * @param lastIoErrno the IO thread's last error number, 0 when none
 * @param lastIoError its message, blank when none
 */
public record ChannelReport(boolean configured, boolean sslAllowed, String caFile, boolean verifyServerCert,
    String ioState, int lastIoErrno, String lastIoError) {

  public static final ChannelReport NONE = new ChannelReport(false, false, "", false, "No", 0, "");

  static ChannelReport of(List<Map<String, String>> rows, boolean mariadb) {
    String p = mariadb ? "Master_" : "Source_";
    for (Map<String, String> r : rows) {
      if (mariadb && !MariaDbDialect.nullToEmpty(r.get("Connection_name")).isEmpty()) {
        continue;
      }
      Integer errno = ReplicaStatus.parseInt(r.get("Last_IO_Errno"));
      return new ChannelReport(true, "Yes".equalsIgnoreCase(MariaDbDialect.nullToEmpty(r.get(p + "SSL_Allowed"))),
          MariaDbDialect.nullToEmpty(r.get(p + "SSL_CA_File")),
          "Yes".equalsIgnoreCase(MariaDbDialect.nullToEmpty(r.get(p + "SSL_Verify_Server_Cert"))),
          MariaDbDialect.nullToEmpty(r.get(mariadb ? "Slave_IO_Running" : "Replica_IO_Running")),
          errno == null ? 0 : errno, MariaDbDialect.nullToEmpty(r.get("Last_IO_Error")));
    }
    return NONE;
  }

  public boolean ioConnected() {
    return "Yes".equalsIgnoreCase(ioState);
  }

  /** Whether the channel is at least as strong as {@code wanted} asks (see {@link ChannelTls#satisfiedBy}). */
  public boolean satisfies(ChannelTls wanted) {
    return wanted.satisfiedBy(sslAllowed, caFile, verifyServerCert);
  }

  /** For status, Events and logs: "TLS verify-ca (CA /etc/ca.pem), IO connected". */
  public String describe() {
    if (!configured) {
      return "no replication channel";
    }
    String tls = !sslAllowed ? "plaintext" : "TLS" + (caFile.isBlank() ? " without CA check"
        : " (CA " + caFile + (verifyServerCert ? ", name checked)" : ")"));
    String io = ioConnected() ? "IO connected" : "IO " + ioState + (lastIoError.isBlank() ? "" : ": " + lastIoError);
    return tls + ", " + io;
  }
}
