package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.gtid.GtidSet;

/**
 * What to do with an old primary that comes back after a failover. It is fenced first in any case
 * (the sidecar does it; the matrix reports it as split brain if it does not). Then: if everything
 * it holds is in the new primary's history it can follow the new primary as a replica
 * (RecoveryComplete); otherwise it holds transactions nobody else has, so it stays read-only and
 * out of routing with those transactions in {@code status.sites[].divergentGtid} (RecoveryBlocked)
 * until a human decides what they are worth.
 */
public final class Recovery {
  private Recovery() {}

  /** The outcome of {@link #decide}. */
  public sealed interface Decision permits Rejoin, Blocked {
    String reason();
  }

  /** Re-point the old primary at the new one as a replica. */
  public record Rejoin(String reason) implements Decision {}

  /** Keep it read-only and out of routing; {@code divergentGtid} goes to status. */
  public record Blocked(String divergentGtid, long count, String reason) implements Decision {}

  /**
   * Decides by {@link GtidHistory#includes}: the returning server's executed set against the new
   * primary's current one (for MariaDB the writer of each domain's newest GTID is compared too, so
   * an old primary's unreplicated last writes are caught even after the new primary has written
   * past their seqnos).
   *
   * @throws IllegalArgumentException if a set cannot be parsed or the flavors are mixed
   */
  public static Decision decide(String returningOldPrimaryGtid, String newPrimaryGtid) {
    return decide(GtidSet.parse(returningOldPrimaryGtid), GtidSet.parse(newPrimaryGtid));
  }

  public static Decision decide(GtidSet returningOldPrimary, GtidSet newPrimary) {
    GtidSet divergent = GtidHistory.missing(newPrimary, returningOldPrimary);
    if (divergent.isEmpty()) {
      return new Rejoin("every transaction of the old primary is on the new primary: it can rejoin as a replica");
    }
    return new Blocked(divergent.toString(), divergent.count(), "the old primary holds " + divergent.count()
        + " transaction(s) the new primary never received (" + divergent + "): kept read-only and out of routing");
  }
}
