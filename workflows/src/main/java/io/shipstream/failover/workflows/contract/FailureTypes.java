package io.shipstream.failover.workflows.contract;

/**
 * The types of the application failures the activities throw, which the workflows match on and
 * which the Temporal UI shows: one place for the words both sides must agree on. A type that names
 * a {@link io.shipstream.failover.model.Reason} is spelt as that reason, so the UI, the status and
 * the Events say the same word. Retryable or not is decided where a failure is thrown, and again by
 * the workflow's retry options ({@code setDoNotRetry}), which name these constants too.
 */
public final class FailureTypes {
  private FailureTypes() {}

  // --- MySQL -------------------------------------------------------------------------------------

  /** Cannot connect, or the connection broke: retryable. */
  public static final String UNREACHABLE = "Unreachable";
  /** The target did not execute the wanted GTID set by the deadline: not retryable. {@code Reason.LagTimeout}. */
  public static final String LAG_TIMEOUT = "LagTimeout";
  /** The server refused to become a writable primary: not retryable. */
  public static final String PROMOTE_FAILED = "PromoteFailed";
  /** Replication to the new source does not run, with the server's own error: not retryable. */
  public static final String REPLICATION_FAILED = "ReplicationFailed";
  /** A GTID set argument cannot be parsed or does not match the server's flavor: not retryable. */
  public static final String INVALID_GTID_SET = "InvalidGtidSet";
  /** The group's Secret is missing or incomplete: retryable, it may be being created. */
  public static final String CREDENTIALS_UNAVAILABLE = "CredentialsUnavailable";
  /** The server answered with an error to a statement: retryable. */
  public static final String MYSQL_ERROR = "MysqlError";

  // --- Kubernetes --------------------------------------------------------------------------------

  /** The MysqlFailoverGroup does not exist: not retryable. */
  public static final String GROUP_NOT_FOUND = "GroupNotFound";
  /** An Event whose type is neither Normal nor Warning: not retryable. */
  public static final String INVALID_EVENT_TYPE = "InvalidEventType";
  /** A time that is not RFC 3339: not retryable. */
  public static final String INVALID_TIME = "InvalidTime";
  /** A site the spec does not know: not retryable. {@code Reason.UnknownSite}. */
  public static final String UNKNOWN_SITE = "UnknownSite";

  // --- The session store -------------------------------------------------------------------------

  /**
   * The replica did not reach the master's offset by the deadline: not retryable.
   * {@code Reason.DragonflySyncTimeout}.
   */
  public static final String DRAGONFLY_SYNC_TIMEOUT = "DragonflySyncTimeout";
  /** The store could not be made master: not retryable. {@code Reason.DragonflyPromotionFailed}. */
  public static final String DRAGONFLY_PROMOTION_FAILED = "DragonflyPromotionFailed";
  /** The store asked for its offset is not a master: not retryable. */
  public static final String STORE_NOT_MASTER = "StoreNotMaster";
  /** The store cannot be reached: retryable. */
  public static final String STORE_UNAVAILABLE = "StoreUnavailable";

  // --- Hooks ---------------------------------------------------------------------------------------

  /** The hook answered something other than 2xx: retryable within the hook's timeout. */
  public static final String HOOK_REFUSED = "HookRefused";
  /** The hook did not answer (refused connection, timeout, bad address): retryable within its timeout. */
  public static final String HOOK_UNREACHABLE = "HookUnreachable";

  /** Every type above, for the check that no other production code spells one. */
  public static final java.util.List<String> ALL = java.util.List.of(UNREACHABLE, LAG_TIMEOUT, PROMOTE_FAILED,
      REPLICATION_FAILED, INVALID_GTID_SET, CREDENTIALS_UNAVAILABLE, MYSQL_ERROR, GROUP_NOT_FOUND, INVALID_EVENT_TYPE,
      INVALID_TIME, UNKNOWN_SITE, DRAGONFLY_SYNC_TIMEOUT, DRAGONFLY_PROMOTION_FAILED, STORE_NOT_MASTER,
      STORE_UNAVAILABLE, HOOK_REFUSED, HOOK_UNREACHABLE);
}
