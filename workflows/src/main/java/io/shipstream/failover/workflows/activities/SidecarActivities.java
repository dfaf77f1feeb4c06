package io.shipstream.failover.workflows.activities;

import io.temporal.activity.ActivityInterface;
import io.temporal.activity.ActivityMethod;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * What the workflows ask of a site's fencing sidecar over its HTTP endpoints {@code POST /tick}
 * and {@code GET /status}, which answer only holders of the group's shared token (the worker's
 * AUTH_TOKEN_FILE or AUTH_TOKEN). The activity types are prefixed (SidecarConfirmFenced) so that
 * they never clash with MySQL's.
 */
@ActivityInterface(namePrefix = "Sidecar")
public interface SidecarActivities {

  /**
   * Asks the sidecar at {@code sidecarUrl} to run a fencing tick now, then polls its status until
   * a snapshot proves that the server of {@code site} takes no writes while {@code activeSite} is
   * the active site (see {@link Snapshot#provesFenced}), heartbeating as it goes. Returns
   * unconfirmed at the deadline, an absolute time so a retry on another worker does not start the
   * budget over; never throws for a sidecar that cannot be reached or refuses the worker's token:
   * says so in {@link Confirmation#problem}.
   */
  @ActivityMethod
  Confirmation confirmFenced(String sidecarUrl, String site, String activeSite, Instant deadline);

  /**
   * The fields of a sidecar's {@code GET /status} that matter here. {@code leaseTimeoutMillis} and
   * {@code peerCheckIntervalMillis} are the timing the sidecar runs with (null from a sidecar too
   * old to say): one cut off from the watcher since before the spec's lease was shortened still
   * holds the longer lease, and the failover must wait that one out.
   */
  record Snapshot(String site, String activeSite, String mysql, long ticks, Long leaseTimeoutMillis,
      Long peerCheckIntervalMillis) {
    /** A snapshot that does not say which timing its sidecar runs with. */
    public Snapshot(String site, String activeSite, String mysql, long ticks) {
      this(site, activeSite, mysql, ticks, null, null);
    }

    /**
     * The view names the new active site and the local MySQL answered read-only, or its process
     * is dead (STOPPED: the sidecar saw it exit, or killed it because it hung). The view can only
     * name the new site once the failover named it, and a sidecar that knows another site is
     * active fences a writable server on the very tick it learns it (rule 1) and stops a hung one,
     * so such a snapshot is taken after the naming and shows a server that takes no writes.
     * UNREACHABLE and HUNG prove nothing: a frozen server, a stalled disk or a paused VM does not
     * answer, and commits what it holds the moment it resumes.
     */
    public boolean provesFenced(String expectedSite, String newActiveSite) {
      return expectedSite.equals(site) && newActiveSite.equals(activeSite) && PROOFS.contains(mysql);
    }

    /** The server was dead, not read-only: its death, not a fence, is the proof. */
    public boolean provesDead() {
      return "STOPPED".equals(mysql);
    }

    private static final Set<String> PROOFS = Set.of("READ_ONLY", "STARTUP_READ_ONLY", "STOPPED");
  }

  /** Whether the sidecar confirmed; otherwise why not, as last seen. */
  record Confirmation(boolean confirmed, Snapshot last, String problem, long waitedMillis) {}

  /**
   * When the lease of {@code ask.oldSite()}'s sidecar was last renewed, from the answer logs ({@code
   * GET /answers}) of every process that renews it: the sidecars at {@code ask.peerUrls()} and
   * every replica of the watcher the worker can list ({@code LastRenewal} decides from them). Read
   * again every half second until every one answers with a view that fences the old primary, or
   * until {@code ask.deadline()}, an absolute time. Never throws for a renewer that cannot be read:
   * the answer then has no anchor and says why, and the failover keeps its wait counted from the
   * naming.
   */
  @ActivityMethod
  Renewal lastRenewal(RenewalAsk ask);

  /**
   * What {@link #lastRenewal} reads: the group, the old primary's site, the site named active in
   * its place at {@code namedAt} (the workflow's clock), the base URLs of the other sites' sidecars.
   */
  record RenewalAsk(String namespace, String group, String oldSite, String target, Instant namedAt,
      List<String> peerUrls, Instant deadline) {}

  /**
   * The last renewal, as how long before this answer was given ({@code agoMillis}, so no clock but
   * the worker's own measures it), with the renewer that gave it and why; or, {@code agoMillis}
   * null, why none is known ({@code basis}).
   */
  record Renewal(Long agoMillis, String renewer, String basis, int renewersRead) {
    public static Renewal unknown(String why, int renewersRead) {
      return new Renewal(null, null, why, renewersRead);
    }

    public boolean anchored() {
      return agoMillis != null;
    }
  }
}
