package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.SemiSyncConfig;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.SemiSyncStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The semi-synchronous settings every site's server should have, and what the primary's reading
 * says about the group's durability: pure, so every case is a row of a table test.
 *
 * <pre>
 * | site                           | source side | replica side          | wait count (MySQL)                        |
 * |--------------------------------|-------------|-----------------------|-------------------------------------------|
 * | the active site (the primary)  | on, AFTER_  | on if it acknowledges | required: minSyncReplicas                 |
 * |                                | SYNC, timeout| (so it acks once     | preferred: min(minSyncReplicas, healthy   |
 * |                                |             |  demoted)             |   acknowledging replicas), never below 1  |
 * | a replica that acknowledges    | off         | on                    | -                                         |
 * | a replica that does not        | off         | off                   | -                                         |
 * | semiSync disabled, and the     | off         | off                   | -   (the primary first: its commits stop  |
 * | watcher had it on (its status) |             |                       |  waiting before any replica stops acking) |
 * | semiSync disabled, never on    | nothing is read or written: the servers' settings are left alone          |
 * </pre>
 *
 * <p>Switched off, every site is, not only those the watcher remembers setting: a failover while
 * semi-sync was on gave the new primary its source side, and a primary left with it on after the
 * user turned semi-sync off waits for acknowledgements from replicas that no longer send them
 * ({@code required}: the whole timeout on every commit). {@code status.semiSync}, written only
 * while the watcher keeps semi-sync, is what says it had it on; it is removed once every site
 * read both sides off ({@link #whileSwitchingOff}), and the servers are left alone from then on.
 *
 * <p>A replica acknowledges when {@code ackFrom} is {@code all}, or when it is a primary-candidate
 * (the default). A replica is healthy when its latest poll answered and showed both replication
 * threads running. MariaDB has no wait count: it waits for one acknowledgement.
 *
 * <p>The primary's wait without replicas ({@code rpl_semi_sync_source_wait_no_replica} /
 * {@code rpl_semi_sync_master_wait_no_slave}) is off for {@code preferred}: when no
 * semi-synchronous replica is connected (the last one died; a new primary after an emergency
 * failover of a group with two primary-candidates, until the old one rejoins) the server turns
 * asynchronous at once instead of making a commit wait out the whole timeout for an
 * acknowledgement nobody can send, and the group shows it as fallen back. On for {@code required}:
 * it would rather wait.
 */
public final class SemiSyncPlan {
  private SemiSyncPlan() {}

  /**
   * Every site's settings while {@code activeSite} is the primary; empty when semi-sync is disabled
   * or no site is active.
   *
   * @param healthyReplicas the sites whose servers replicate now
   * @param mariaDb whether the servers are MariaDB (no wait count)
   */
  public static Map<String, SemiSyncSettings> desired(GroupConfig config, String activeSite,
      Set<String> healthyReplicas,
      boolean mariaDb) {
    return desired(config, activeSite, healthyReplicas, mariaDb, null);
  }

  /**
   * As above; {@code shown} is {@code status.semiSync} as last written: when semi-sync is disabled
   * and it is there, the watcher had semi-sync on and every site gets both sides off, the active
   * site first (in the map's order), whether or not one is active.
   */
  public static Map<String, SemiSyncSettings> desired(GroupConfig config, String activeSite,
      Set<String> healthyReplicas,
      boolean mariaDb, SemiSyncStatus shown) {
    SemiSyncConfig semi = config.semiSync();
    Map<String, SemiSyncSettings> out = new LinkedHashMap<>();
    if (!semi.enabled()) {
      if (shown != null) {
        // The primary's source side before any replica's replica side: turned off the other way
        // round, the primary's commits would wait for acknowledgements that no longer come.
        config.site(activeSite == null ? "" : activeSite).ifPresent(s -> out.put(s.name(), SemiSyncSettings.OFF));
        config.sites().forEach(s -> out.putIfAbsent(s.name(), SemiSyncSettings.OFF));
      }
      return out;
    }
    if (activeSite == null || config.site(activeSite).isEmpty()) {
      return out;
    }
    long healthyAckers = config.sites().stream()
        .filter(s -> !s.name().equals(activeSite) && semi.acknowledges(s) && healthyReplicas.contains(s.name()))
        .count();
    for (SiteSpec site : config.sites()) {
      if (site.name().equals(activeSite)) {
        out.put(site.name(), primary(semi, semi.acknowledges(site), healthyAckers, mariaDb));
      } else {
        out.put(site.name(), new SemiSyncSettings(false, semi.acknowledges(site), null, null));
      }
    }
    return out;
  }

  /**
   * The settings a promotion gives its target before it becomes writable, so that its first
   * commits are semi-synchronous; null when semi-sync is disabled (the promotion leaves them alone).
   * The replicas' health is not known there: {@code preferred} starts at one acknowledgement and
   * the watcher raises it as replicas are seen healthy, {@code required} starts pinned.
   */
  public static SemiSyncSettings atPromotion(GroupConfig config, String target) {
    SemiSyncConfig semi = config.semiSync();
    if (!semi.enabled()) {
      return null;
    }
    boolean acks = config.site(target).map(semi::acknowledges).orElse(true);
    // MariaDB ignores the wait count: the workflow does not know the flavor, and need not.
    return primary(semi, acks, semi.durability() == SemiSyncConfig.Durability.required ? semi.minSyncReplicas() : 1,
        false);
  }

  private static SemiSyncSettings primary(SemiSyncConfig semi, boolean acknowledges, long healthyAckers,
      boolean mariaDb) {
    Integer waitCount = null;
    if (!mariaDb) {
      waitCount = semi.durability() == SemiSyncConfig.Durability.required ? semi.minSyncReplicas()
          : (int) Math.max(1, Math.min(semi.minSyncReplicas(), healthyAckers));
    }
    // Preferred: with no semi-synchronous replica connected (the only one died, or a new primary
    // whose old one has not rejoined yet) the source turns asynchronous at once instead of making
    // a commit wait out the whole timeout for an acknowledgement nobody can send. Required waits.
    return new SemiSyncSettings(true, acknowledges, waitCount, semi.timeout().toMillis(),
        semi.durability() == SemiSyncConfig.Durability.required);
  }

  /**
   * {@code status.semiSync} while semi-sync is switched off, from this pass's readings (a site
   * missing: not answering, or it refused): null once every site reads both sides off (or has no
   * semi-sync at all), which removes the status and ends the switch-off; else what is still on.
   */
  public static SemiSyncStatus whileSwitchingOff(GroupConfig config, String activeSite,
      Map<String, SemiSyncState> readings) {
    java.util.List<String> left = new java.util.ArrayList<>();
    for (SiteSpec site : config.sites()) {
      SemiSyncState s = readings.get(site.name());
      if (s == null) {
        left.add(site.name() + " (not read)");
      } else if (!SemiSyncSettings.OFF.satisfiedBy(s)) {
        left.add(site.name() + " (" + (s.sourceEnabled() ? "source side" : "") + (s.sourceEnabled()
            && s.replicaEnabled() ? " and " : "") + (s.replicaEnabled() ? "replica side" : "") + " on)");
      }
    }
    if (left.isEmpty()) {
      return null;
    }
    SemiSyncState primary = activeSite == null ? null : readings.get(activeSite);
    boolean waits = primary != null && primary.sourceEnabled() && primary.sourceActive();
    return new SemiSyncStatus(activeSite, null, primary == null ? null : waits, null,
        primary == null ? null : primary.clients(), false,
        "switching off (spec.semiSync is disabled): not yet off on " + String.join(", ", left));
  }

  /**
   * The group's durability as {@code status.semiSync} shows it, from the primary's reading: null
   * when semi-sync is disabled. {@code primary} null: the primary could not be read this time.
   */
  public static SemiSyncStatus status(GroupConfig config, String activeSite, SemiSyncState primary) {
    return status(config, activeSite, primary, false);
  }

  /**
   * As above; {@code switchingOn}: {@link SemiSyncFallback} judged the primary's reading a switch-on
   * in progress, which the status shows as such and not as a fall-back.
   */
  public static SemiSyncStatus status(GroupConfig config, String activeSite, SemiSyncState primary,
      boolean switchingOn) {
    SemiSyncConfig semi = config.semiSync();
    if (!semi.enabled() || activeSite == null) {
      return null;
    }
    String durability = semi.durability().name();
    if (primary == null) {
      return new SemiSyncStatus(activeSite, durability, null, null, null, null, "the primary could not be read");
    }
    if (!primary.available()) {
      return new SemiSyncStatus(activeSite, durability, false, null, null, null,
          "the primary has no semi-synchronous replication (MySQL: the plugins are not installed)");
    }
    boolean on = primary.sourceEnabled() && primary.sourceActive() && !primary.noReplicaToWaitFor();
    Integer waitCount =
        primary.waitCount() == null && primary.sourceEnabled() ? Integer.valueOf(1) : primary.waitCount();
    if (switchingOn && primary.fallenBack()) {
      return new SemiSyncStatus(activeSite, durability, false, waitCount, primary.clients(), false, "switching on: "
          + "the primary's source side is on and its commits wait once an acknowledging replica has reconnected "
          + "(" + primary.clients() + " connected so far)");
    }
    String message = !primary.sourceEnabled() ? "the primary's commits do not wait for any replica (source side off)"
        : primary.noReplicaToWaitFor() ? "asynchronous: no semi-synchronous replica is connected, and "
            + "preferred does not wait for one; semi-sync again once one connects"
            : primary.fallenBack() ? "fallen back to asynchronous replication: no acknowledgement came within "
                + primary.timeoutMillis() + " ms (" + primary.clients() + " semi-synchronous replica(s) connected); "
                + "commits no longer wait until a replica catches up"
                : "every commit waits for " + (primary.waitCount() == null ? 1 : primary.waitCount())
                    + " replica acknowledgement(s) (" + primary.clients() + " connected)";
    return new SemiSyncStatus(activeSite, durability, on, waitCount, primary.clients(), primary.fallenBack(), message);
  }
}
