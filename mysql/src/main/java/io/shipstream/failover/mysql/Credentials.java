package io.shipstream.failover.mysql;

import io.shipstream.failover.model.tls.TlsConfig;
import java.util.Objects;

/**
 * The logins for one group's servers: the operator's admin account, and the account replicas use
 * to log in to their source (the same one when the Secret does not name a separate one); with the
 * group's TLS, which is part of logging in: how the product's own sessions are encrypted ({@code
 * sessionTls}) and what every channel it points gets ({@code tls}, see {@link
 * TlsConfig#channelFor}). {@link #toString} never prints a password or a key, so a record in a log
 * line or exception is harmless.
 */
public record Credentials(String username, String password, String replicationUsername, String replicationPassword,
    SessionTls sessionTls, TlsConfig tls) {

  public Credentials {
    Objects.requireNonNull(username, "username");
    Objects.requireNonNull(password, "password");
    if (replicationUsername == null || replicationUsername.isBlank()) {
      replicationUsername = username;
      replicationPassword = password;
    } else if (replicationPassword == null) {
      replicationPassword = "";
    }
    sessionTls = sessionTls == null ? SessionTls.NONE : sessionTls;
    tls = tls == null ? TlsConfig.NONE : tls;
  }

  /** Without TLS. */
  public Credentials(String username, String password, String replicationUsername, String replicationPassword) {
    this(username, password, replicationUsername, replicationPassword, null, null);
  }

  /** Admin and replication logins are the same account. */
  public static Credentials of(String username, String password) {
    return new Credentials(username, password, null, null);
  }

  /** The same logins with the group's TLS. */
  public Credentials withTls(SessionTls sessionTls, TlsConfig tls) {
    return new Credentials(username, password, replicationUsername, replicationPassword, sessionTls, tls);
  }

  @Override
  public String toString() {
    return "Credentials[username=" + username + ", replicationUsername=" + replicationUsername + ", passwords=***, tls="
        + sessionTls.mode().display() + "/" + tls.replicationMode().display() + "]";
  }
}
