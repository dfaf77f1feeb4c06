package io.shipstream.failover.mysql;

import io.shipstream.failover.model.GroupRef;

/**
 * Where the activities get the logins for a group's servers. They are looked up by the activity
 * at run time, never passed in, so they never enter a workflow's history.
 */
@FunctionalInterface
public interface CredentialsProvider {

  /**
   * The logins stored under {@code secretName} in the group's namespace.
   *
   * @throws CredentialsUnavailableException when they cannot be read, saying why (never with a value)
   */
  Credentials credentials(GroupRef group, String secretName);
}
