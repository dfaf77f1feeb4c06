package io.shipstream.failover.workflows.activities;

import io.shipstream.failover.model.GroupRef;

/**
 * One site's MySQL as the activities reach it. Credentials are not here on purpose: they are read
 * by the activity from the group's Secret, so they never enter the workflow history.
 */
public record MysqlTarget(GroupRef group, String site, String host, int port, String credentialsSecret) {
  @Override
  public String toString() {
    return site + " (" + host + ":" + port + ")";
  }
}
