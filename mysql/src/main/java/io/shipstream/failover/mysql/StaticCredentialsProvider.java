package io.shipstream.failover.mysql;

import io.shipstream.failover.model.GroupRef;

/** The same logins for every group and Secret: for tests and the local playground. */
public final class StaticCredentialsProvider implements CredentialsProvider {
  private final Credentials credentials;

  public StaticCredentialsProvider(Credentials credentials) {
    this.credentials = credentials;
  }

  @Override
  public Credentials credentials(GroupRef group, String secretName) {
    return credentials;
  }
}
