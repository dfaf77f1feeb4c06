package io.shipstream.failover.model;

/**
 * Why a failover ended the way it did. The names are the reasons of the planned-failover page and
 * double as Temporal failure types, so the UI, the status and the Events all say the same word.
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
  TargetFenced
}
