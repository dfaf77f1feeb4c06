package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.model.gtid.GtidSet;
import io.shipstream.failover.model.topology.GtidHistory;
import io.shipstream.failover.model.gtid.GtidUnion;
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

  boolean known() {
    return transactions != null;
  }

  boolean any() {
    return transactions != null && transactions > 0;
  }
}
