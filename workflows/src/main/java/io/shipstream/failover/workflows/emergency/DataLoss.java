package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.model.gtid.GtidSet;
import io.shipstream.failover.model.gtid.GtidUnion;
import io.shipstream.failover.model.topology.GtidHistory;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The transactions some surviving or failed server was known to hold that the promoted server
 * does not: the union of the old primary's last known set and every other server's set seen
 * during the failover (by the watcher when it decided, by the workflow since), minus the promoted
 * one, as {@link GtidHistory#missing} counts it. {@code transactions} is null when the loss cannot
 * be known, and {@code unknownBecause} then says why; a loss is never reported as zero for want
 * of data.
 */
record DataLoss(Long transactions, String lostGtid, String unknownBecause) {

  /** {@link #between(String, Collection, String)} with no other server's set. */
  static DataLoss between(String oldPrimaryGtid, String promotedGtid) {
    return between(oldPrimaryGtid, List.of(), promotedGtid);
  }

  /**
   * @param oldPrimaryGtid the old primary's executed set; null when it was never seen, which makes
   *     the loss unknown (an empty string is a server without transactions, a known empty set)
   * @param otherKnown the sets of the other servers, as last seen; nulls are skipped
   * @param promotedGtid the promoted server's executed set, read right after promotion
   */
  static DataLoss between(String oldPrimaryGtid, Collection<String> otherKnown, String promotedGtid) {
    if (oldPrimaryGtid == null) {
      return unknown("the old primary's GTID set was never seen and it could not be read at the fence");
    }
    List<String> known = new ArrayList<>();
    known.add(oldPrimaryGtid);
    known.addAll(otherKnown);
    try {
      GtidSet lost = GtidHistory.missing(GtidSet.parse(promotedGtid), GtidUnion.of(known));
      return new DataLoss(lost.count(), lost.isEmpty() ? null : lost.toString(), null);
    } catch (IllegalArgumentException e) {
      return unknown("cannot compare the known sets " + known + " with the promoted '" + promotedGtid + "': "
          + e.getMessage());
    }
  }

  private static DataLoss unknown(String why) {
    return new DataLoss(null, null, why);
  }

  /**
   * The loss as a claim that names what it was checked against: a count is only as complete as
   * the sets compared, and an old primary that could not be read at the fence may have committed
   * more than anybody saw.
   *
   * @param failed the old primary's site
   * @param readAtFence whether its set was read at the fence (it answered), not only last seen by the watcher
   */
  String claim(String failed, boolean readAtFence) {
    if (!known()) {
      return "transactions lost unknown";
    }
    return readAtFence
        ? transactions + " of the transactions " + failed + " held at its fence and the survivors had seen were lost"
        : transactions + " of the transactions the survivors had seen were lost (" + failed + " could not be read at "
            + "the fence: what it committed after it was last seen is not counted)";
  }

  /**
   * Which sets the count compares ({@code status.emergencyFailover.lossComputedFrom}).
   *
   * @param others how many other servers' sets were added to the old primary's
   */
  static String computedFrom(String failed, boolean readAtFence, int others, String target) {
    return (readAtFence ? failed + "'s GTID set read at its fence"
        : failed + "'s GTID set as last seen before it failed (it could not be read at the fence)")
        + ", with " + others + " set(s) of the other servers as last seen, against " + target
        + "'s set read right after its promotion";
  }

  boolean known() {
    return transactions != null;
  }

  boolean any() {
    return transactions != null && transactions > 0;
  }
}
