package io.shipstream.failover.workflows.contract;

import static io.shipstream.failover.workflows.contract.EventType.Normal;
import static io.shipstream.failover.workflows.contract.EventType.Warning;

/**
 * Every Kubernetes Event the product writes on a MysqlFailoverGroup, declared once: its type, its
 * reason (what {@code kubectl get events} shows and what alerts match) and the shape of its message.
 * The failover workflows and the watcher emit them by name; no other production code spells a
 * reason. The shape is the message's form for a reader of this list, not a format string: the
 * runbooks build the message from what they found.
 */
public enum Events {
  // --- Planned failover (workflow) ---------------------------------------------------------------
  PLANNED_FAILOVER_STARTED(Normal, "PlannedFailoverStarted", "planned failover requested: <annotation>"),
  PLANNED_FAILOVER_DEFERRED(Normal, "PlannedFailoverDeferred", "failover cooldown active: deferred until <time>"),
  PLANNED_FAILOVER_DRAINING(Normal, "PlannedFailoverDraining",
      "source <site> fenced at <gtid>; draining <n> sessions"),
  PLANNED_FAILOVER_LAG_OK(Normal, "PlannedFailoverLagOK", "<target> holds every transaction of <source> (<gtid>)"),
  PLANNED_FAILOVER_COMPLETED(Normal, "PlannedFailoverCompleted",
      "promoted <target>, <n> transactions lost (<source>'s GTID set at its fence against <target>'s)[; <notes>]"),
  /** Also written by the watcher for a request it refuses before any workflow runs. */
  PLANNED_FAILOVER_REJECTED(Warning, "PlannedFailoverRejected", "<Reason>: <why>"),
  PLANNED_FAILOVER_SKIPPED(Warning, "PlannedFailoverSkipped",
      "AlreadyActive: site '<target>' is already the active site"),
  PLANNED_FAILOVER_FAILED(Warning, "PlannedFailoverFailed",
      "<Reason>: <why>; rolled back: ... | ROLLBACK FAILED ..."),

  // --- Emergency failover (workflow) -------------------------------------------------------------
  FAILOVER_STARTED(Normal, "FailoverStarted", "emergency failover from <failed> to <target>: <trigger>"),
  FAILOVER_EXECUTED(Normal, "FailoverExecuted",
      "promoted <target> after <failed> failed, <n> of the transactions <failed> held at its fence and the survivors "
          + "had seen were lost | <n> of the transactions the survivors had seen were lost (<failed> could not be "
          + "read ...) | transactions lost unknown[; ...]"),
  FAILOVER_FAILED(Warning, "FailoverFailed", "<Reason>: <why>"),
  /**
   * The emergency failover ended with nothing done because its premise no longer held: {@code
   * PrimaryAnswered}, the failed primary answered right before its fence. Counted as rejected.
   */
  FAILOVER_REJECTED(Warning, "FailoverRejected", "PrimaryAnswered: <failed> answered (...) right before its fence "
      + "while the status names it active: it is not dead, so nothing was fenced or promoted and no cooldown starts"),
  OLD_PRIMARY_NOT_FENCED(Warning, "OldPrimaryNotFenced", "could not fence <failed>, gave up: <error>; ..."),
  OLD_PRIMARY_FENCE_CONFIRMED(Normal, "OldPrimaryFenceConfirmed", "<failed> ... takes no writes: <proof>"),
  OLD_PRIMARY_NOT_GUARDED(Warning, "OldPrimaryNotGuarded", "<failed> has no sidecar ...: <target> is made writable"),
  OLD_PRIMARY_LEASE_WAIT(Warning, "OldPrimaryLeaseWait",
      "waiting <s> s (until <time>) for <failed>'s lease to expire[ and a hung sidecar to be restarted]: <why>; "
          + "the wait is <bound>"),
  OLD_PRIMARY_LEASE_EXPIRED(Warning, "OldPrimaryLeaseExpired", "<failed>'s lease expired: its sidecar has fenced it"),
  CANDIDATE_CAUGHT_UP(Normal, "CandidateCaughtUp", "caught <target> up with <n> transaction(s) <gtid> from <donor>"),
  CATCH_UP_SKIPPED(Warning, "CatchUpSkipped", "<target> not compared or caught up: <why>"),
  CATCH_UP_FAILED(Warning, "CatchUpFailed", "<target> lacks <n> transaction(s) <gtid> that <donor> holds; <why>"),
  DATA_LOSS_DETECTED(Warning, "DataLossDetected", "<n> transactions committed on <failed> are not on <target>: <gtid>"),
  DATA_LOSS_UNKNOWN(Warning, "DataLossUnknown", "transactions lost unknown: <why>"),
  FAILOVER_RECORD_INCOMPLETE(Warning, "FailoverRecordIncomplete", "promotionGtidExecuted not recorded: <error>"),

  // --- Both runbooks, after the promotion --------------------------------------------------------
  ROUTING_UPDATE_FAILED(Warning, "RoutingUpdateFailed", "could not label <target> primary: <error>"),
  DNS_FLIP_FAILED(Warning, "DnsFlipFailed", "DNS flip to <ip> failed: <error>"),
  TAINT_UPDATE_FAILED(Warning, "TaintUpdateFailed", "node taints not updated: <error>"),
  REJOIN_FAILED(Warning, "RejoinFailed", "<site> not re-pointed at <primary>; it stays read-only: <error>"),
  STATUS_UPDATE_FAILED(Warning, "StatusUpdateFailed", "could not record the promotion point <gtid>: <error>"),
  REPLICA_NOT_REPOINTED(Warning, "ReplicaNotRepointed", "<site> was not re-pointed at the new primary <target>: ..."),
  /** Every channel the run re-pointed, read back once it succeeded (status.<kind>Failover.channels). */
  CHANNELS_VERIFIED(Normal, "ReplicationChannelsVerified",
      "every re-pointed channel is as the group asks (<mode>) and connected: <site> from <primary>: TLS (CA <file>, "
          + "name checked), IO connected[; ...]"),
  CHANNELS_UNVERIFIED(Warning, "ReplicationChannelsUnverified",
      "site '<site>' replicating from '<primary>': weaker than the group's replication TLS <mode> ... | IO thread not "
          + "connected ... | not read: <error>[; ...]"),

  // --- The session store -------------------------------------------------------------------------
  DRAGONFLY_SYNC_TIMEOUT(Warning, "DragonflySyncTimeout", "the session store of <target> did not catch up ..."),
  DRAGONFLY_PROMOTION_STARTED(Normal, "DragonflyPromotionStarted", "promoting the <store> ..."),
  DRAGONFLY_PROMOTION_COMPLETED(Normal, "DragonflyPromotionCompleted",
      "the <store> is the session store master (<method>) ..."),
  DRAGONFLY_PROMOTION_FAILED(Warning, "DragonflyPromotionFailed", "promotion of the <store> failed: <error>"),
  DRAGONFLY_ROUTING_UPDATE_FAILED(Warning, "DragonflyRoutingUpdateFailed", "the <store> is not labelled ...: <error>"),
  DRAGONFLY_REJOIN_FAILED(Warning, "DragonflyRejoinFailed", "the old master <store> is not a replica of the <store>"),
  DRAGONFLY_CLIENT_KILL_FAILED(Warning, "DragonflyClientKillFailed",
      "clients of the old master <store> not disconnected"),

  // --- The watcher -------------------------------------------------------------------------------
  GROUP_ADOPTED(Normal, "GroupAdopted", "<site> is the active site: <why>"),
  ADOPTION_BLOCKED(Warning, "AdoptionBlocked", "<cause>: <why>; nothing is fenced, promoted or relabelled ..."),
  INVALID_SPEC(Warning, "InvalidSpec", "<problem>[; <problem>...]"),
  TLS_ERROR(Warning, "TlsError", "site '<site>': TLS: <why>; ... nothing is fenced or failed over ..."),
  ROUTING_REPAIRED(Normal, "RoutingRepaired", "<repair>[; <repair>...]"),
  ROUTING_INCOMPLETE(Warning, "RoutingIncomplete", "<problem>[; <problem>...]"),
  RECOVERY_COMPLETE(Normal, "RecoveryComplete", "site '<site>' replicates from the active site '<active>': <why>"),
  RECOVERY_BLOCKED(Warning, "RecoveryBlocked", "site '<site>': <why>"),
  /**
   * A replica's replication thread was stopped without an error, by a human: left stopped, the group
   * Degraded with this reason; once per change of what is stopped, not once per pass.
   */
  REPLICATION_STOPPED(Warning, "ReplicationStopped",
      "site '<site>': replication <IO|SQL|IO and SQL> thread(s) stopped without an error, not by the failover: left stopped ..."),
  /** A sidecar fenced (or stopped) its server, as its /status says: once per fence. */
  SITE_FENCED_BY_SIDECAR(Warning, "SiteFencedBySidecar",
      "its sidecar fenced the server of site '<site>' (<rule>) | stopped the server of site '<site>' at <time>: <why>"),
  /**
   * The old primary an emergency failover left behind came back with transactions the new primary
   * never received: lost, recorded in status.lostTransactions (once per failover and site).
   */
  TRANSACTIONS_LOST(Warning, "TransactionsLost",
      "site '<site>' came back holding <n> transaction(s) <gtid> that the active site '<active>' never received ..."),
  SERVER_STARTS_WRITABLE(Warning, "ServerStartsWritable",
      "The MySQL server of site '<site>' is configured to start writable ..."),
  SERVER_STARTS_READ_ONLY(Normal, "ServerStartsReadOnly",
      "The MySQL server of site '<site>' is configured to start read-only again."),
  SIDECAR_NOT_GUARDED(Warning, "SidecarNotGuarded",
      "the sidecar of site <site> is not restarted should it hang: <why>; ..."),
  SIDECAR_TLS_ERROR(Warning, "SidecarTlsError",
      "the sidecar of site <site> cannot be read over HTTPS: <TlsProblem>: <why>; ..."),
  SIDECAR_CREDENTIAL_PROBLEM(Warning, "SidecarCredentialProblem",
      "the sidecar of site <site> refused this group's credential, or the credential's Secret cannot be read ..."),
  SHARED_SIDECAR_TOKEN(Warning, "SharedSidecarToken",
      "the group names no spec.sidecar.tokenSecretRef: its sidecars use the install's shared token ..."),
  EMERGENCY_FAILOVER_STARTED(Warning, "EmergencyFailoverStarted", "<the topology matrix's reason>"),
  NON_PROMOTABLE_SITE_FENCED(Warning, "NonPromotableSiteFenced", "<the topology matrix's reason>"),
  SPLIT_BRAIN_DETECTED(Warning, "SplitBrainDetected", "<the topology matrix's reason>"),
  TOTAL_LOSS_DETECTED(Warning, "TotalLossDetected", "<the topology matrix's reason>"),
  FAILOVER_BLOCKED(Warning, "FailoverBlocked", "<cause>: <the topology matrix's reason>"),
  NO_PRIMARY_DETECTED(Warning, "NoPrimaryDetected", "<the topology matrix's reason>"),
  /** When the group's SearchAttributesRegistered condition turns False (or its list of missing names changes). */
  SEARCH_ATTRIBUTES_MISSING(Warning, "SearchAttributesMissing",
      "the Temporal namespace lacks the search attributes [<name>...]: failovers start and run without them ..."),
  /** When that condition turns True again. */
  SEARCH_ATTRIBUTES_PRESENT(Normal, "SearchAttributesPresent",
      "the Temporal namespace has every search attribute the failovers set"),
  /**
   * When the watcher starts an emergency failover of a candidate over
   * spec.emergencyFailover.maxLagOnPromotion because the promote-anyway annotation names it.
   */
  PROMOTED_OVER_LAG_LIMIT(Warning, "PromotedOverLagLimit",
      "promoting <site> over the lag limit as <annotation>=<site> requests: it had not received <n> transaction(s) "
          + "of <failed> (<gtid>), limit <limit>; they are lost unless another survivor holds them; request removed"),
  /** A promote-anyway annotation that is invalid (kept, once per value) or has nothing to override (removed). */
  PROMOTE_ANYWAY_REJECTED(Warning, "PromoteAnywayRejected", "<why>; nothing was changed ..."),
  /**
   * The watcher cannot reach the active primary but a replica still receives from it (holistic
   * detection, model PrimaryConfirmation row c2): no failover, no fence. Also the reason of the
   * Degraded condition meanwhile.
   */
  PRIMARY_UNREACHABLE_FROM_WATCHER(Warning, "PrimaryUnreachableFromWatcher",
      "the watcher cannot reach the active site '<site>' but its replicas still receive from it (<views>): ..."),
  /** When the watcher reaches that primary again. */
  PRIMARY_REACHABLE_FROM_WATCHER(Normal, "PrimaryReachableFromWatcher",
      "the watcher reaches the active site '<site>' again"),
  /** The watcher changed a server's semi-synchronous settings to what spec.semiSync says. */
  SEMI_SYNC_APPLIED(Normal, "SemiSyncApplied", "site '<site>': <setting>=<value>[, ...]"),
  SEMI_SYNC_NOT_APPLIED(Warning, "SemiSyncNotApplied", "site '<site>': <error>"),
  /** The primary's source side is enabled but inactive: commits no longer wait for any replica. */
  SEMI_SYNC_FALLEN_BACK(Warning, "SemiSyncFallenBack",
      "<site> fell back to asynchronous replication: no acknowledgement within <timeout> ms ..."),
  SEMI_SYNC_RESTORED(Normal, "SemiSyncRestored", "<site>: every commit waits for <n> replica acknowledgement(s) again"),
  /** A DBA paused the group's automation (bloodraven.shipstream.io/paused=true), and resumed it. */
  AUTOMATION_PAUSED(Normal, "AutomationPaused", "the group is paused (...): it is observed and reported, but ..."),
  AUTOMATION_RESUMED(Normal, "AutomationResumed", "the group's automation acts again"),
  /** What a paused group would have done: once per situation. */
  ACTION_HELD(Warning, "ActionHeld", "paused: would <start an emergency failover from f to c | fence [sites] ...>"),
  /** A pause annotation other than true or false: the group is not paused. */
  PAUSE_REJECTED(Warning, "PauseRejected", "the bloodraven.shipstream.io/paused annotation is '<value>': expected ..."),

  // --- Hooks (both runbooks) -----------------------------------------------------------------------
  /** A hook of spec.hooks answered 2xx. */
  HOOK_CALLED(Normal, "HookCalled", "<kind> <pre|post>-failover hook <url> answered <status>"),
  /**
   * A hook that cannot stop the failover failed: an emergency pre-hook, or any post-hook. A planned
   * pre-hook's failure is the failover's own: PlannedFailoverRejected with PreFailoverHookVetoed.
   */
  HOOK_FAILED(Warning, "HookFailed", "<kind> <pre|post>-failover hook <url> failed: <why>; the failover goes on "
      + "| its outcome stands"),

  // --- Switchover before the active site's node is drained (the watcher) ------------------------------
  /** spec.plannedFailover.onActiveNodeDrain=switchover: the watcher set the planned-failover annotation. */
  DRAIN_SWITCHOVER_REQUESTED(Normal, "DrainSwitchoverRequested",
      "node <node> of the active site <site> is cordoned: switching over to <target> (...)"),
  /** The same, when no site can take over: nothing is requested, once per cordon episode. */
  DRAIN_SWITCHOVER_IMPOSSIBLE(Warning, "DrainSwitchoverImpossible",
      "node <node> of the active site <site> is cordoned, but no site can take over: <why per site>; ..."),

  // --- The lease fence of the active primary (the watcher) --------------------------------------------
  /**
   * The active site's sidecar fenced its primary when it heard from nobody (rule 2); contact came
   * back before anyone failed over, and the watcher made the primary writable again.
   */
  LEASE_FENCE_LIFTED(Normal, "LeaseFenceLifted", "the sidecar of '<site>' fenced it when it heard from neither the "
      + "watcher nor any peer for longer than its lease; contact is back, no failover ran, ...: it takes writes again"),
  /** The same lift failed; tried again at the next evaluation, one Event per distinct failure. */
  LEASE_FENCE_LIFT_FAILED(Warning, "LeaseFenceLiftFailed", "could not lift the lease fence of '<site>': <why>"),

  // --- Scheduled switchover (the planned runbook) -------------------------------------------------------
  /** A planned request with at=<time> waits for it (phase Scheduled); validated when the time comes. */
  PLANNED_FAILOVER_SCHEDULED(Normal, "PlannedFailoverScheduled", "switchover to <target> scheduled at <time>"),

  // --- Fence / unfence a site (bloodraven.shipstream.io/fenced-sites, the watcher) ---------------------
  /** A DBA fenced a site: held read-only, out of the replicas Service, never a candidate. */
  SITE_FENCED(Normal, "SiteFenced", "site <site> is fenced (...): held read-only by the watcher and the sidecars, ..."),
  /** A DBA unfenced a site; the active site is made writable again first. */
  SITE_UNFENCED(Normal, "SiteUnfenced",
      "site <site> is unfenced: <a candidate again | the active site takes writes again>"),
  /** A fenced-sites annotation naming an unknown site or malformed: nothing changed. */
  FENCE_REJECTED(Warning, "FenceRejected", "the bloodraven.shipstream.io/fenced-sites annotation is '<value>': <why>; "
      + "nothing was changed ..."),

  // --- Dry run (bloodraven.shipstream.io/dry-run, its own workflow) ------------------------------------
  /** A dry run's verdict: what a switchover, or an emergency failover now, would do; nothing was changed. */
  DRY_RUN_COMPLETED(Normal, "DryRunCompleted", "dry run <site | emergency>: <Ready | WouldWait | Refused | "
      + "WouldPromote | Blocked>[ <Reason>]: <why>; nothing was changed"),

  // --- Deleting a group (the watcher's finalizer) -------------------------------------------------------
  /** The group is being deleted while a failover runs: cancelled (before Promoting) or waited for. */
  GROUP_DELETION_WAITING(Normal, "GroupDeletionWaiting", "the group is being deleted: <asked the failover <run> "
      + "(<phase>) to cancel and roll back | waiting for the failover <run> (<phase>) to end>; ..."),
  /** The finalizer cannot finish: the finalizer stays, and it tries again. Once per distinct cause. */
  GROUP_DELETION_BLOCKED(Warning, "GroupDeletionBlocked", "the group's finalizer cannot finish: <why>; the group "
      + "stays until it can (tried again every <s> s at most)"),
  /** Just before the finalizer lets the group go. */
  GROUP_FINALIZED(Normal, "GroupFinalized", "taint <key> removed from [<node>...]; routing left in place, no longer "
      + "owned by the group: [<kind> <name>...]; tombstone <configmap> written for the sidecars");

  /**
   * The words a failed failover's message ends with when its rollback failed and a person must act;
   * the watcher's {@code bloodraven_manual_recovery_required} series (and its alert) look for them.
   */
  public static final String MANUAL_RECOVERY_REQUIRED = "manual recovery required";

  private final EventType type;
  private final String reason;
  private final String shape;

  Events(EventType type, String reason, String shape) {
    this.type = type;
    this.reason = reason;
    this.shape = shape;
  }

  public EventType type() {
    return type;
  }

  public String reason() {
    return reason;
  }

  /** The message's form, for a reader; see the class comment. */
  public String shape() {
    return shape;
  }
}
