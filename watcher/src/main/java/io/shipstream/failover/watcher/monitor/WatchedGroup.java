package io.shipstream.failover.watcher.monitor;

import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.SiteStatus;
import io.shipstream.failover.model.topology.PrimaryConfirmation;
import io.shipstream.failover.watcher.topology.GroupMemory;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One watched group as the monitor keeps it between polls: its polls, the replicas' latest answer
 * about its primary, what was last written to its status, and what the pass's steps keep about it
 * ({@link #memory}). Made when the group's polls start and dropped when they stop ({@link
 * TopologyMonitor}): what it holds is forgotten with it.
 */
final class WatchedGroup {
  final GroupPolls polls;
  /** The spec {@link #polls} was resolved from: the last one accepted. */
  final MysqlFailoverGroupSpec spec;
  /**
   * Why the resource's current spec was refused while this group was monitored; null while the
   * spec monitored with is the resource's. A refused edit changes nothing: the group stays
   * monitored, and failed over if need be, with {@link #spec}.
   */
  volatile String rejectedSpec;
  /** What the pass's steps keep about the group between its passes. */
  final GroupMemory memory = new GroupMemory();
  final AtomicBoolean evaluationQueued = new AtomicBoolean();
  final AtomicBoolean stopped = new AtomicBoolean();
  List<SiteStatus> written;
  Instant writtenAt = Instant.EPOCH;
  /** A write of status.sites was held back while a failover's workflow owned the status: due at once after it. */
  boolean held;
  /** Since when the status has shown a failover run, and when (and what) Temporal last said of it. */
  Instant runShownSince;
  Instant runAskedAt;
  boolean runAsked;
  /** Holistic detection: the replicas' latest answer about the primary, while its polls fail. */
  volatile Confirmation confirmation;
  /** When the first failing poll of the current run of failures of the primary began; null while it answers. */
  volatile Instant primaryLostAt;
  /** Per replica site, its reads with unchanged progress, and when it was read before the latest. */
  final Map<String, PrimaryConfirmation.Sampled> samples = new ConcurrentHashMap<>();
  final Map<String, Instant> previousRead = new ConcurrentHashMap<>();
  /** Per site, its next poll while it waits for its turn: the monitor's pollNow moves it forward. */
  final Map<String, ScheduledFuture<?>> nextPoll = new ConcurrentHashMap<>();

  /** The replicas' answer about {@code primary} after its poll taken at {@code probeAt} failed. */
  record Confirmation(String primary, Instant probeAt, PrimaryConfirmation.Result result) {}

  WatchedGroup(GroupPolls polls, MysqlFailoverGroupSpec spec, List<SiteStatus> written) {
    this.polls = polls;
    this.spec = spec;
    this.written = written;
  }

  /** The primary answers: the replicas' answers about it are forgotten. */
  void forgetEpisode() {
    primaryLostAt = null;
    confirmation = null;
    samples.clear();
    previousRead.clear();
  }
}
