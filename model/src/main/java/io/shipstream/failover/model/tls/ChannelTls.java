package io.shipstream.failover.model.tls;

/**
 * The TLS of one replication channel, as the replica's server is told it: the mode, and the files
 * it reads (paths as that {@code mysqld} sees them, on its own host; never the product's Secret).
 *
 * <p>Both servers derive the channel's checking from the same three options (MySQL's {@code
 * SOURCE_SSL*}, MariaDB's {@code MASTER_SSL*}): {@code SSL=1} encrypts; a CA file makes the
 * replica check the source's chain; {@code SSL_VERIFY_SERVER_CERT=1} checks its name as well. So
 * {@code required} sends no CA (a CA alone would already verify), {@code verify-ca} the CA,
 * {@code verify-identity} the CA and the name check.
 *
 * @param caFile the CA the source's certificate must chain to; required from verify-ca on
 * @param certFile the replica's client certificate, or null
 * @param keyFile its key, or null
 */
public record ChannelTls(TlsMode mode, String caFile, String certFile, String keyFile) {
  public static final ChannelTls NONE = new ChannelTls(TlsMode.DISABLED, null, null, null);

  public ChannelTls {
    if (mode == null) {
      mode = TlsMode.DISABLED;
    }
  }

  /** The CA file to name in the CHANGE statement, or null where the mode must not name one. */
  public String caFileForMode() {
    return mode.verifiesCa() ? caFile : null;
  }

  /**
   * Whether a channel the server reports back with these settings is at least as strong as this:
   * encrypted when asked, a CA when verifying, the name check when verifying identity.
   */
  public boolean satisfiedBy(boolean sslAllowed, String reportedCaFile, boolean verifyServerCert) {
    if (!mode.encrypted()) {
      return true;
    }
    if (!sslAllowed) {
      return false;
    }
    if (mode.verifiesCa() && (reportedCaFile == null || reportedCaFile.isBlank())) {
      return false;
    }
    return !mode.verifiesIdentity() || verifyServerCert;
  }
}
