package io.shipstream.failover.activities.mysql;

import io.shipstream.failover.workflows.activities.MysqlTarget;
import io.shipstream.failover.workflows.contract.FailureTypes;
import io.temporal.failure.ApplicationFailure;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.util.Set;

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

  /** Client-side codes for a lost or refused connection, and ER_CON_COUNT_ERROR (too many connections). */
  private static final Set<Integer> CONNECTION_ERRORS = Set.of(1040, 1152, 1158, 1159, 1160, 1161, 2002, 2003, 2006, 2013);

  private MysqlFailures() {}

  /** Whether the error says the server could not be reached or the connection broke. */
  static boolean isConnectionProblem(SQLException e) {
    String state = e.getSQLState();
    return e instanceof SQLNonTransientConnectionException
        || e instanceof SQLTransientConnectionException
        || e instanceof SQLTimeoutException
        || (state != null && state.startsWith("08"))
        || CONNECTION_ERRORS.contains(e.getErrorCode());
  }

  /** Unreachable (retryable) for connection problems, otherwise MysqlError (retryable). */
  static ApplicationFailure of(String action, MysqlTarget target, SQLException e) {
    if (isConnectionProblem(e)) {
      return unreachable(action, target, e);
    }
    return ApplicationFailure.newFailureWithCause(
        action + " on " + target + " failed: " + describe(e), MYSQL_ERROR, e);
  }

  static ApplicationFailure unreachable(String action, MysqlTarget target, SQLException e) {
    return ApplicationFailure.newFailureWithCause(
        action + ": cannot reach " + target + ": " + describe(e), UNREACHABLE, e);
  }

  static ApplicationFailure credentials(MysqlTarget target, CredentialsUnavailableException e) {
    return ApplicationFailure.newFailureWithCause(
        "no credentials for " + target + ": " + e.getMessage(), CREDENTIALS_UNAVAILABLE, e);
  }

  static String describe(SQLException e) {
    return e.getErrorCode() == 0 ? e.getMessage() : "error " + e.getErrorCode() + ": " + e.getMessage();
  }
}
