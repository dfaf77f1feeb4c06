package io.shipstream.failover.model.topology;

import java.time.Duration;
import java.time.Instant;

/**
 * Whether a primary whose reading says its commits wait for no replica has fallen back, or is
 * being switched on: pure, so every case is a row of a table test.
 *
 * <p>Switching semi-sync on is not atomic. The watcher turns the primary's source side on first,
 * then each acknowledging replica's replica side, restarting its IO thread, which reconnects a
 * moment later. Until one has reconnected, the primary has no semi-synchronous replica and, with
 * {@code preferred} (which does not wait for one), reads exactly as a primary that fell back. That
 * reading is no evidence of a fall-back; the same reading once a replica had time to connect, or
 * once semi-sync was seen on since, is.
 *
 * <pre>
 * | # | the primary's reading | a switch-on pending (a pass turned a source or  | judgement                      |
 * |   |                       |   replica side on, and no reading was on since)  |                                |
 * |---|-----------------------|--------------------------------------------------|--------------------------------|
 * | 1 | not fallen back       | -                                                | NOT_FALLEN_BACK: ends the      |
 * |   |                       |                                                  |   switch-on                    |
 * | 2 | fallen back           | none                                             | FALLEN_BACK: told at once      |
 * | 2b| fallen back, and told | any                                              | FALLEN_BACK: a switch-on does  |
 * |   |   so already          |                                                  |   not hide what was raised     |
 * | 3 | fallen back           | less than {@link #switchOnGrace} ago             | SWITCHING_ON: not told         |
 * | 4 | fallen back           | {@link #switchOnGrace} or more ago               | FALLEN_BACK: no replica came   |
 * </pre>
 *
 * <p>A fall-back of a primary that was on (a replica died, stopped acknowledging) is row 2 and is
 * told at the first pass that reads it, as before; only the switch-on waits.
 */
public final class SemiSyncFallback {
  /** At least this long for the acknowledging replicas' IO threads to reconnect after a switch-on. */
  static final Duration MIN_GRACE = Duration.ofSeconds(5);

  private SemiSyncFallback() {}

  public enum Judgement { NOT_FALLEN_BACK, SWITCHING_ON, FALLEN_BACK }

  /**
   * Whether a server's settings went from {@code before} to {@code after} by turning its source or
   * its replica side on: the changes after which a replica must (re)connect before commits wait.
   */
  public static boolean switchesOn(SemiSyncState before, SemiSyncState after) {
    if (after == null) {
      return false;
    }
    boolean sourceWas = before != null && before.available() && before.sourceEnabled();
    boolean replicaWas = before != null && before.available() && before.replicaEnabled();
    return after.sourceEnabled() && !sourceWas || after.replicaEnabled() && !replicaWas;
  }

  /**
   * How long a switch-on may read as fallen back: two poll intervals (so that a whole pass after
   * the one that switched on reads the replicas connected), never less than {@link #MIN_GRACE}
   * (an IO thread reconnects within a round trip or two, seconds on a loaded machine).
   */
  public static Duration switchOnGrace(Duration pollInterval) {
    Duration twoPolls = pollInterval.multipliedBy(2);
    return twoPolls.compareTo(MIN_GRACE) > 0 ? twoPolls : MIN_GRACE;
  }

  /**
   * The table in the class comment.
   *
   * @param primary the primary's reading in this pass
   * @param switchOnAt when a pass last turned a source or replica side on with no reading on since; null: none
   * @param told whether the fall-back was already raised (a Warning, Degraded) and has not returned since
   */
  public static Judgement judge(SemiSyncState primary, Instant switchOnAt, boolean told, Instant now,
      Duration pollInterval) {
    if (!primary.fallenBack()) {
      return Judgement.NOT_FALLEN_BACK;
    }
    if (!told && switchOnAt != null && now.isBefore(switchOnAt.plus(switchOnGrace(pollInterval)))) {
      return Judgement.SWITCHING_ON;
    }
    return Judgement.FALLEN_BACK;
  }
}
