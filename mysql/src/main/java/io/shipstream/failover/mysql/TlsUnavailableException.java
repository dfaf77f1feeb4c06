package io.shipstream.failover.mysql;

/**
 * The group's TLS settings could not be read (its TLS Secret is missing, lacks a key, or holds no
 * certificate): no session is opened on less than the group asks. The servers are not the
 * problem, so the watcher reports it as a TLS error of each site, never as a site lost.
 */
public final class TlsUnavailableException extends CredentialsUnavailableException {
  public TlsUnavailableException(String message) {
    super(message);
  }

  public TlsUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
