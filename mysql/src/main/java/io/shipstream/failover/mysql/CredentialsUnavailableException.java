package io.shipstream.failover.mysql;

/** The logins for a group could not be read: the Secret is missing, incomplete or unreadable. */
public class CredentialsUnavailableException extends RuntimeException {
  public CredentialsUnavailableException(String message) {
    super(message);
  }

  public CredentialsUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
