package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.gtid.GtidSet;
import java.time.Duration;
import java.util.Optional;

/**
 * A switchover target's replication lag now, judged against the {@code maxLagWait} its lag gate
 * would have: the gate runs inside the write window (after the source's fence), so every second the
 * target is behind is a second the writes would stop.
 *
 * <pre>
 * | target's lag now                     | warning                                                   |
 * |--------------------------------------|-----------------------------------------------------------|
 * | seconds unknown, or 0                | none (transactions behind are reported, not warned about) |
 * | 1 s <= seconds < maxLagWait          | the lag gate would hold writes for about that long        |
 * | seconds >= maxLagWait                | the lag gate would likely time out (LagTimeout), rolled   |
 * |                                      |   back after the writes stopped that long                 |
 * </pre>
 *
 * @param transactions what the source executed that the target has not, in transactions; null when a set
 *     is missing or unreadable
 * @param seconds the lag the target reports; null when it does not say (not replicating)
 * @param warning the table's warning, if any
 */
public record LagAgainstWait(Long transactions, Long seconds, Optional<String> warning) {

  public static LagAgainstWait judge(String sourceGtid, String targetGtid, Long secondsBehind, Duration maxLagWait) {
    Long behind;
    try {
      behind = sourceGtid == null || targetGtid == null ? null
          : GtidSet.parse(sourceGtid).subtract(GtidSet.parse(targetGtid)).count();
    } catch (IllegalArgumentException e) {
      behind = null;
    }
    String what = "target lags " + (secondsBehind == null ? "?" : secondsBehind) + " s"
        + (behind == null ? "" : " (" + behind + " transactions)") + " against maxLagWait " + maxLagWait.toSeconds()
        + " s";
    Optional<String> warning = Optional.empty();
    if (secondsBehind != null && secondsBehind >= maxLagWait.toSeconds()) {
      warning = Optional.of(what + ": the lag gate would likely time out (LagTimeout) and roll back, after writes "
          + "stopped for maxLagWait");
    } else if (secondsBehind != null && secondsBehind >= 1) {
      warning = Optional.of(what + ": the lag gate would hold writes for about " + secondsBehind + " s");
    }
    return new LagAgainstWait(behind, secondsBehind, warning);
  }
}
