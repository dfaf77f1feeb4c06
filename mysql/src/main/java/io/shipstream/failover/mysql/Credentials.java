package io.shipstream.failover.mysql;

import java.util.Objects;

/**
 * The logins for one group's servers: the operator's admin account, and the account replicas use
 * to log in to their source (the same one when the Secret does not name a separate one).
 * {@link #toString} never prints a password, so a record in a log line or exception is harmless.
 */
public record Credentials(String username, String password, String replicationUsername, String replicationPassword) {

  public Credentials {
    Objects.requireNonNull(username, "username");
    Objects.requireNonNull(password, "password");
    if (replicationUsername == null || replicationUsername.isBlank()) {
      replicationUsername = username;
      replicationPassword = password;
    } else if (replicationPassword == null) {
      replicationPassword = "";
    }
  }

  /** Admin and replication logins are the same account. */
  public static Credentials of(String username, String password) {
    return new Credentials(username, password, null, null);
  }

  @Override
  public String toString() {
    return "Credentials[username=" + username + ", replicationUsername=" + replicationUsername + ", passwords=***]";
  }
}
