package io.shipstream.failover.mysql;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.util.Set;

/**
 * A server could not be reached, or refused a statement. It carries what the callers decide on (the
 * server's error code, and whether the connection is the problem), so that no code outside this
 * module needs the driver's {@link SQLException}; the activities turn it into Temporal's failure types.
 */
public class MysqlException extends Exception {
  /** Client-side codes for a lost or refused connection, and ER_CON_COUNT_ERROR (too many connections). */
  private static final Set<Integer> CONNECTION_ERRORS = Set.of(1040, 1152, 1158, 1159, 1160, 1161, 2002, 2003, 2006, 2013);

  private final int errorCode;
  private final boolean connectionProblem;

  /** What the driver reported. */
  public MysqlException(SQLException cause) {
    super(cause.getMessage(), cause);
    this.errorCode = cause.getErrorCode();
    this.connectionProblem = isConnectionProblem(cause);
  }

  /** A problem this module found itself (no server error code, not a connection problem). */
  public MysqlException(String message) {
    super(message);
    this.errorCode = 0;
    this.connectionProblem = false;
  }

  /** The server's error number (1205 for a lock wait timeout, ...), or 0 when there is none. */
  public int errorCode() {
    return errorCode;
  }

  /** Whether the server could not be reached or the connection broke, rather than a statement being refused. */
  public boolean connectionProblem() {
    return connectionProblem;
  }

  /** The message with the server's error number, for results, status and logs; never a password. */
  public String describe() {
    return errorCode == 0 ? getMessage() : "error " + errorCode + ": " + getMessage();
  }

  /** Whether the error says the server could not be reached or the connection broke. */
  public static boolean isConnectionProblem(SQLException e) {
    String state = e.getSQLState();
    return e instanceof SQLNonTransientConnectionException
        || e instanceof SQLTransientConnectionException
        || e instanceof SQLTimeoutException
        || (state != null && state.startsWith("08"))
        || CONNECTION_ERRORS.contains(e.getErrorCode());
  }
}
