package io.shipstream.failover.mysql;

import io.shipstream.failover.model.crd.ChannelCheck;
import io.shipstream.failover.model.tls.ChannelTls;
import java.time.Duration;
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
 * @param certFile the replica's client certificate file, or blank
 * @param verifyServerCert whether it checks the source's name too
 * @param ioState Yes, Connecting or No
 * @param lastIoErrno the IO thread's last error number, 0 when none
 * @param lastIoError its message, blank when none
 */
public record ChannelReport(boolean configured, boolean sslAllowed, String caFile, String certFile,
    boolean verifyServerCert, String ioState, int lastIoErrno, String lastIoError) {

  public static final ChannelReport NONE = new ChannelReport(false, false, "", "", false, "No", 0, "");

  static ChannelReport of(List<Map<String, String>> rows, boolean mariadb) {
    String p = mariadb ? "Master_" : "Source_";
    for (Map<String, String> r : rows) {
      if (mariadb && !AbstractSqlDialect.nullToEmpty(r.get("Connection_name")).isEmpty()) {
        continue;
      }
      Integer errno = ReplicaStatus.parseInt(r.get("Last_IO_Errno"));
      return new ChannelReport(true, "Yes".equalsIgnoreCase(AbstractSqlDialect.nullToEmpty(r.get(p + "SSL_Allowed"))),
          AbstractSqlDialect.nullToEmpty(r.get(p + "SSL_CA_File")),
          AbstractSqlDialect.nullToEmpty(r.get(p + "SSL_Cert")),
          "Yes".equalsIgnoreCase(AbstractSqlDialect.nullToEmpty(r.get(p + "SSL_Verify_Server_Cert"))),
          AbstractSqlDialect.nullToEmpty(r.get(mariadb ? "Slave_IO_Running" : "Replica_IO_Running")),
          errno == null ? 0 : errno, AbstractSqlDialect.nullToEmpty(r.get("Last_IO_Error")));
    }
    return NONE;
  }

  /**
   * Reads the default channel of the server of {@code session}, waiting up to {@code connectWait}
   * for an IO thread that is still connecting: a channel just re-pointed may need a moment, and a
   * read-back must never hold up its caller for long. Returns the last report read.
   */
  public static ChannelReport read(MysqlSession session, Duration connectWait) throws MysqlException {
    long deadline = System.nanoTime() + connectWait.toNanos();
    while (true) {
      ChannelReport report = session.dialect().channelReport(session);
      if (!report.configured() || report.ioConnected() || System.nanoTime() >= deadline) {
        return report;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return report;
      }
    }
  }

  /**
   * What the status records of this channel of {@code site}, re-pointed at {@code source}: its TLS,
   * its IO thread, and whether both are as {@code wanted} asks ({@code pointsAtSource}: whether it
   * replicates from that source at all).
   */
  public ChannelCheck check(String site, String source, ChannelTls wanted, boolean pointsAtSource) {
    String mode = wanted.mode().display();
    String problem;
    if (!configured) {
      problem = "no replication channel";
    } else if (!pointsAtSource) {
      problem = "replicates from another source than " + source;
    } else if (!satisfies(wanted)) {
      problem = "weaker than the group's replication TLS " + mode + ": " + describe();
    } else if (!ioConnected()) {
      problem = "IO thread not connected: " + describe();
    } else {
      problem = null;
    }
    return new ChannelCheck(site, source, mode, configured ? sslAllowed : null, blankToNull(caFile),
        blankToNull(certFile), configured ? verifyServerCert : null, ioConnected(), problem == null, problem);
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
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
