package io.shipstream.failover.watcher.activesite;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.runtime.AnswerLog;
import io.shipstream.failover.wire.AnswersReply;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;

/**
 * What this watcher answered each group's sidecars on {@code /active-site} lately: one {@link
 * AnswerLog} per group, written by {@link ActiveSiteHandler} for every 200 it gives and read by its
 * {@code /answers}. Every log counts its up time from this object's creation, which comes before
 * the watcher serves its first answer, so a group's log made at its first answer (or never, for a
 * group not answered yet) still bounds every answer this process gave: a log's own creation would
 * claim that nothing came before it. Thread-safe.
 *
 * <p>Memory: a group's log holds at most {@link AnswerLog#MAX_ASKERS} named askers and the
 * unnamed ones, {@link AnswerLog#PER_ASKER} answers each. A log is made only for a group that was
 * answered 200, which is a group in the watched cache asked with its own credential, or a deleted
 * group with a tombstone: no caller makes logs for names of its choosing. Logs are kept until the
 * process ends, a deleted group's too: a log dropped and begun again would report the process's up
 * time over answers it no longer holds, and a group created again under that name would be read as
 * never having renewed a lease its sidecars may still hold.
 */
public final class AnswerLogs {
  private final LongSupplier nanos;
  private final long startedNanos;
  private final ConcurrentMap<GroupRef, AnswerLog> logs = new ConcurrentHashMap<>();

  /** By {@link System#nanoTime}, up from now: make it before anything is answered. */
  public AnswerLogs() {
    this(System::nanoTime);
  }

  /** With {@code nanos} as the monotonic clock (tests), up from now. */
  public AnswerLogs(LongSupplier nanos) {
    this.nanos = Objects.requireNonNull(nanos, "nanos");
    this.startedNanos = nanos.getAsLong();
  }

  /** Records that {@code group}'s sidecar {@code asker} (null: unnamed) was answered now, as {@link AnswerLog#answered}. */
  public void answered(GroupRef group, String asker, String activeSite, Instant observedAt) {
    logs.computeIfAbsent(group, g -> new AnswerLog(nanos, startedNanos)).answered(asker, activeSite, observedAt);
  }

  /**
   * {@code group}'s answers to {@code site} and to unnamed askers, as {@link AnswerLog#read}; empty
   * and complete, with this process's up time, for a group answered nothing yet.
   */
  public AnswersReply read(GroupRef group, String site, String viewActiveSite, Instant viewObservedAt) {
    AnswerLog log = logs.get(group);
    return (log != null ? log : new AnswerLog(nanos, startedNanos)).read(site, viewActiveSite, viewObservedAt);
  }
}
