package io.shipstream.failover.model;

/**
 * Why a failover ended the way it did. The names are the reasons of the planned-failover page and
 * double as Temporal failure types, so the UI, the status and the Events all say the same word.
 *
 * <p>How a run that ended {@code Failed} is counted: the {@code result} label of {@code
 * bloodraven_planned_failovers_total} and {@code bloodraven_failovers_total} (emergency). The
 * alerts {@code BloodravenPlannedFailoverFailed} and {@code BloodravenEmergencyFailoverFailed} fire
 * on {@code failed_timeout} and {@code failed_other} only: a {@code rejected} or {@code cancelled}
 * run changed nothing and pages nobody. {@code FailoverKind.result} in the workflows applies this
 * table, and a test there holds the two equal.
 *
 * <pre>
 * | reason                   | planned        | emergency      |
 * |--------------------------|----------------|----------------|
 * | InvalidAnnotation        | rejected       | failed_other   |
 * | UnknownSite              | rejected       | rejected       |
 * | AlreadyActive            | rejected       | failed_other   |
 * | TargetUnhealthy          | rejected       | rejected       |
 * | NoActivePrimary          | rejected       | failed_other   |
 * | CooldownActive           | rejected       | failed_other   |
 * | Cancelled                | failed_other   | cancelled      |
 * | ConcurrentOperation      | rejected       | failed_other   |
 * | LagTimeout               | failed_timeout | failed_other   |
 * | SourceCrashed            | failed_other   | failed_other   |
 * | ExecuteFailed            | failed_other   | failed_other   |
 * | DragonflySyncTimeout     | failed_other   | failed_other   |
 * | DragonflyPromotionFailed | failed_other   | failed_other   |
 * | DnsFlipFailed            | failed_other   | failed_other   |
 * | InvalidSpec              | rejected       | rejected       |
 * | Paused                   | failed_other   | failed_other   |
 * | PreFailoverHookVetoed    | rejected       | failed_other   |
 * | InvalidSchedule          | rejected       | failed_other   |
 * | TargetFenced             | rejected       | failed_other   |
 * | PrimaryAnswered          | failed_other   | rejected       |
 * | TargetNotCandidate       | rejected       | rejected       |
 * </pre>
 *
 * <p>Not every reason ends every runbook: an emergency request the group has moved past when it
 * starts (the status names another site active: {@code AlreadyActive}, {@code
 * ConcurrentOperation}) ends without touching anything, its status included, and is not counted;
 * a planned request the watcher refuses itself, before any workflow starts (the group paused, a
 * schedule out of range, a request beside a running emergency failover), is counted by the watcher
 * in the same counter as {@code rejected}; {@code PrimaryAnswered} ends only an emergency failover.
 */
public enum Reason {
  InvalidAnnotation,
  UnknownSite,
  AlreadyActive,
  TargetUnhealthy,
  NoActivePrimary,
  CooldownActive,
  Cancelled,
  ConcurrentOperation,
  LagTimeout,
  SourceCrashed,
  ExecuteFailed,
  DragonflySyncTimeout,
  DragonflyPromotionFailed,
  DnsFlipFailed,
  InvalidSpec,
  /** The group's automation is paused (bloodraven.shipstream.io/paused=true): planned failovers are refused. */
  Paused,
  /** The planned pre-failover hook did not answer 2xx within its timeout: nothing was fenced. */
  PreFailoverHookVetoed,
  /** A scheduled switchover's time ({@code at=}) is not in the future, or too far ahead: nothing was done. */
  InvalidSchedule,
  /** The planned failover's target is fenced (bloodraven.shipstream.io/fenced-sites): it is never promoted. */
  TargetFenced,
  /**
   * The emergency failover's failed primary answered when it was checked right before its fence,
   * while the status still named it active: it is not dead (it restarted, or only the watcher's
   * view of it was stale), so nothing was fenced or promoted and no cooldown starts.
   */
  PrimaryAnswered,
  /**
   * The target's role (dr-only or read-only) says it may never be primary: refused before anything
   * is fenced, as a request that can never succeed, not as a server in trouble.
   */
  TargetNotCandidate
}
