package io.shipstream.failover.workflows.activities;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.time.Instant;

/**
 * What the workflows ask of a site's fencing sidecar over its unauthenticated HTTP endpoints
 * ({@code POST /tick}, {@code GET /status}). The activity types are prefixed (SidecarConfirmFenced)
 * so that they never clash with MySQL's.
 */
@ActivityInterface(namePrefix = "Sidecar")
public interface SidecarActivities {

  /**
   * Asks the sidecar at {@code sidecarUrl} to run a fencing tick now, then polls its status until
   * a snapshot proves that the server of {@code site} takes no writes while {@code activeSite} is
   * the active site (see {@link Snapshot#provesFenced}), heartbeating as it goes. Returns
   * unconfirmed at the deadline, an absolute time so a retry on another worker does not start the
   * budget over; never throws for a sidecar that cannot be reached: says so.
   */
  @ActivityMethod
  Confirmation confirmFenced(String sidecarUrl, String site, String activeSite, Instant deadline);

  /** The fields of a sidecar's {@code GET /status} that matter here. */
  record Snapshot(String site, String activeSite, String mysql, long ticks) {
    /**
     * The view names the new active site and the local MySQL is not writable. The view can only
     * name the new site once the failover named it, and a sidecar that knows another site is
     * active fences a writable server on the very tick it learns it (rule 1), so such a snapshot
     * is taken after the naming and shows a server that stays read-only.
     */
    public boolean provesFenced(String expectedSite, String newActiveSite) {
      return expectedSite.equals(site) && newActiveSite.equals(activeSite)
          && ("READ_ONLY".equals(mysql) || "UNREACHABLE".equals(mysql));
    }
  }

  /** Whether the sidecar confirmed; otherwise why not, as last seen. */
  record Confirmation(boolean confirmed, Snapshot last, String problem, long waitedMillis) {}
}
