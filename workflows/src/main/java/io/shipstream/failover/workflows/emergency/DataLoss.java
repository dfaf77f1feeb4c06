package io.shipstream.failover.workflows.emergency;

import io.shipstream.failover.model.gtid.GtidSet;

/**
 * The transactions the old primary committed that the promoted server does not hold: the old
 * primary's GTID set minus the promoted one. {@code transactions} is null when the loss cannot be
 * known, and {@code unknownBecause} then says why; a loss is never reported as zero for want of
 * data.
 */
record DataLoss(Long transactions, String lostGtid, String unknownBecause) {

  /**
   * @param oldPrimaryGtid the old primary's executed set; null when it was never seen, which makes
   *     the loss unknown (an empty string is a server without transactions, a known empty set)
   * @param promotedGtid the promoted server's executed set, read right after promotion
   */
  static DataLoss between(String oldPrimaryGtid, String promotedGtid) {
    if (oldPrimaryGtid == null) {
      return unknown("the old primary's GTID set was never seen and it could not be read at the fence");
    }
    try {
      GtidSet lost = GtidSet.parse(oldPrimaryGtid).subtract(GtidSet.parse(promotedGtid));
      return new DataLoss(lost.count(), lost.isEmpty() ? null : lost.toString(), null);
    } catch (IllegalArgumentException e) {
      return unknown("cannot compare the old primary's '" + oldPrimaryGtid + "' with the promoted '" + promotedGtid
          + "': " + e.getMessage());
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
