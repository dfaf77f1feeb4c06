package io.shipstream.failover.activities.mysql;

import io.shipstream.failover.mysql.CredentialsUnavailableException;
import io.shipstream.failover.mysql.GtidWaitTimeoutException;
import io.shipstream.failover.mysql.IncomparableGtidSetsException;
import io.shipstream.failover.mysql.MysqlException;
import io.shipstream.failover.mysql.ReplicationFailedException;
import io.shipstream.failover.mysql.ReplicationNotConnectedException;
import io.shipstream.failover.workflows.activities.MysqlTarget;
import io.shipstream.failover.workflows.contract.FailureTypes;
import io.temporal.failure.ApplicationFailure;

/**
 * The failure types the MySQL activities throw, so a workflow can tell them apart; the words are
 * the contract's ({@link FailureTypes}). Retryable ones
 * are for conditions that pass (a server restarting, a network blip); the others need a decision.
 */
public final class MysqlFailures {
  /** Cannot connect, or the connection broke: retryable. */
  public static final String UNREACHABLE = FailureTypes.UNREACHABLE;
  /** The target did not execute the wanted GTID set by the deadline: not retryable. */
  public static final String LAG_TIMEOUT = FailureTypes.LAG_TIMEOUT;
  /** The server refused to become a writable primary: not retryable. */
  public static final String PROMOTE_FAILED = FailureTypes.PROMOTE_FAILED;
  /** Replication to the new source does not run, with the server's own error: not retryable. */
  public static final String REPLICATION_FAILED = FailureTypes.REPLICATION_FAILED;
  /** A GTID set argument cannot be parsed or does not match the server's flavor: not retryable. */
  public static final String INVALID_GTID_SET = FailureTypes.INVALID_GTID_SET;
  /** The group's Secret is missing or incomplete: retryable, it may be being created. */
  public static final String CREDENTIALS_UNAVAILABLE = FailureTypes.CREDENTIALS_UNAVAILABLE;
  /** The server answered with an error to a statement: retryable. */
  public static final String MYSQL_ERROR = FailureTypes.MYSQL_ERROR;

  private MysqlFailures() {}

  /** Unreachable (retryable) for connection problems, otherwise MysqlError (retryable). */
  static ApplicationFailure of(String action, MysqlTarget target, MysqlException e) {
    if (e.connectionProblem()) {
      return unreachable(action, target, e);
    }
    if (e.tlsProblem() || e instanceof io.shipstream.failover.mysql.ChannelTlsRefusedException) {
      // Not retried: a certificate or a channel weaker than the group asks does not mend itself,
      // and the step is never done over a weaker connection instead.
      return ApplicationFailure.newNonRetryableFailureWithCause(action + " on " + target + " failed: TLS: "
          + e.tlsReason().map(reason -> reason.describe(e.describe())).orElseGet(e::describe), MYSQL_ERROR, e);
    }
    return ApplicationFailure.newFailureWithCause(
        action + " on " + target + " failed: " + e.describe(), MYSQL_ERROR, e);
  }

  static ApplicationFailure unreachable(String action, MysqlTarget target, MysqlException e) {
    return ApplicationFailure.newFailureWithCause(
        action + ": cannot reach " + target + ": " + e.describe(), UNREACHABLE, e);
  }

  /** LagTimeout, not retryable, with the number of transactions still missing as its detail. */
  static ApplicationFailure lagTimeout(GtidWaitTimeoutException e) {
    return ApplicationFailure.newNonRetryableFailure(e.getMessage(), LAG_TIMEOUT, e.missing());
  }

  /** ReplicationFailed, not retryable: a thread stopped by an error does not recover by itself. */
  static ApplicationFailure replicationFailed(ReplicationFailedException e) {
    return ApplicationFailure.newNonRetryableFailure(e.getMessage(), REPLICATION_FAILED);
  }

  /** Unreachable, retryable: the source may be coming up. */
  static ApplicationFailure notConnected(ReplicationNotConnectedException e) {
    return ApplicationFailure.newFailure(e.getMessage(), UNREACHABLE);
  }

  /** InvalidGtidSet, not retryable: a set of the other flavor is the caller's mistake. */
  static ApplicationFailure invalidGtidSet(IncomparableGtidSetsException e) {
    return ApplicationFailure.newNonRetryableFailureWithCause(e.getMessage(), INVALID_GTID_SET, e.getCause());
  }

  static ApplicationFailure credentials(MysqlTarget target, CredentialsUnavailableException e) {
    return ApplicationFailure.newFailureWithCause(
        "no credentials for " + target + ": " + e.getMessage(), CREDENTIALS_UNAVAILABLE, e);
  }
}
