package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.gtid.GtidSet;
import io.shipstream.failover.model.gtid.GtidUnion;

/**
 * How far an emergency candidate is behind the failed primary, in transactions it had not yet
 * <em>received</em>: the failed primary's last known executed set minus everything the candidate
 * holds, executed or waiting in its relay log. A candidate that received everything but applies
 * slowly is not behind: the promotion applies its relay log first. Seconds behind the source say
 * nothing about this (they measure the apply, and a replica whose IO thread stalled reads 0).
 *
 * <p>Both notations: MySQL sets are united interval by interval ({@code gtid_executed} ∪
 * {@code Retrieved_Gtid_Set}); a MariaDB {@code Gtid_IO_Pos} is a position per domain, united with
 * {@code gtid_binlog_state} by keeping each server's highest seqno ({@link GtidUnion}), so the
 * domain's position is the further of the two. The difference is {@link GtidHistory#missing}, as for the transactions lost.
 */
public final class PromotionLag {
  private PromotionLag() {}

  /**
   * The transactions of {@code primaryLastKnown} that the candidate neither executed nor received.
   *
   * @param primaryLastKnown the failed primary's last known executed set
   * @param executed the candidate's executed set at its last healthy poll
   * @param received what its IO thread had received then; null or blank when it is no replica or unknown
   * @throws IllegalArgumentException when a text is not a GTID set or the flavors are mixed
   */
  public static GtidSet notReceived(String primaryLastKnown, String executed, String received) {
    GtidSet holds = GtidUnion.of(executed, received);
    return GtidHistory.missing(holds, GtidSet.parse(primaryLastKnown));
  }
}
