package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.crd.EmergencyFailoverStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.model.gtid.GtidSet;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What to do with an old primary that comes back after a failover. It is fenced first in any case
 * (the sidecar does it; the matrix reports it as split brain if it does not). Then: if everything
 * it holds is in the new primary's history it can follow the new primary as a replica
 * (RecoveryComplete); otherwise it holds transactions nobody else has, so it stays read-only and
 * out of routing with those transactions in {@code status.sites[].divergentGtid} (RecoveryBlocked)
 * until a human decides what they are worth.
 *
 * <p>Which server is an old primary left behind ({@link #leftBehind}): the source of the group's
 * last failover, emergency or planned, once another site is active. A planned failover's source
 * killed while it ran is one as much as an emergency's failed primary: the run's own rejoin found
 * it dead (RejoinFailed), and nothing else would ever point it at the new primary.
 *
 * <p>Whose replication it is ({@link #needsSource}): the recovery gives a source only to a server
 * that has none configured, as a primary left behind has none (a promotion resets it). A server
 * whose replication is configured was pointed somewhere by the failover, by the recovery itself or
 * by a human, and the configuration is kept by the server itself across restarts of the server
 * and of the watcher, leader changes and spec edits: a thread stopped there without an error was
 * stopped by a human ({@code STOP SLAVE}, {@code STOP REPLICA}, one thread or both), so it is left
 * stopped and reported ({@link #stoppedByHand}), never started again behind the human's back.
 *
 * <pre>
 * | the returning server (read-only, the failover settled)   | the recovery                         |
 * |----------------------------------------------------------|--------------------------------------|
 * | replicates (both threads run)                            | nothing                              |
 * | no replication configured                                | decide: Rejoin or Blocked            |
 * | configured, a thread stopped on an error                 | nothing (a replication problem)      |
 * | configured, a thread stopped without an error            | nothing; Degraded/ReplicationStopped |
 * </pre>
 */
public final class Recovery {
  private Recovery() {}

  /**
   * The old primary the group's last failover left behind.
   *
   * @param site the failover's source: the emergency's failed site, the planned failover's source
   * @param failoverStart the failover's {@code startTime}: what the recovery does, it does once per failover
   * @param settled whether that failover succeeded and its target is the active site and the last
   *     failover's target: only then may the old primary be pointed at it (it is fenced in any case)
   */
  public record LeftBehind(String site, String failoverStart, boolean settled) {}

  /**
   * The old primary left behind by the newer of the status's two failovers (by {@code startTime};
   * one without a parsable time is the older), if it is not the active site nor the last
   * failover's target; empty otherwise, or before any site is active.
   */
  public static Optional<LeftBehind> leftBehind(MysqlFailoverGroupStatus status) {
    if (status == null || status.activeSite() == null) {
      return Optional.empty();
    }
    EmergencyFailoverStatus emergency = status.emergencyFailover();
    PlannedFailoverStatus planned = status.plannedFailover();
    String site;
    String start;
    String phase;
    String target;
    boolean emergencyNewer = emergency != null && (planned == null || planned.sourcePrimary() == null
        || !isAfter(planned.startTime(), emergency.startTime()));
    if (emergencyNewer) {
      site = emergency.failedSite();
      start = emergency.startTime();
      phase = emergency.phase();
      target = emergency.target();
    } else if (planned != null) {
      site = planned.sourcePrimary();
      start = planned.startTime();
      phase = planned.phase();
      target = planned.target();
    } else {
      return Optional.empty();
    }
    String active = status.activeSite();
    if (site == null || site.equals(active) || site.equals(status.lastFailoverTarget())) {
      return Optional.empty();
    }
    boolean settled = "Succeeded".equals(phase) && active.equals(target) && active.equals(status.lastFailoverTarget());
    return Optional.of(new LeftBehind(site, start, settled));
  }

  private static boolean isAfter(String a, String b) {
    Instant x = instant(a);
    Instant y = instant(b);
    return x != null && (y == null || x.isAfter(y));
  }

  private static Instant instant(String time) {
    if (time == null || time.isBlank()) {
      return null;
    }
    try {
      return OffsetDateTime.parse(time).toInstant();
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /**
   * Whether the returning old primary's replication is the recovery's to set up: it does not
   * replicate and has no replication configured. A configured one is left as it is (see the class
   * comment): starting it again would undo a human's {@code STOP SLAVE}.
   */
  public static boolean needsSource(Probe now) {
    return now.reachable() && !now.replicating() && now.sourceIoState() == null;
  }

  /**
   * The sites other than the active one whose replication a human stopped: configured, reachable
   * and read-only, with the IO thread stopped ("No") or the SQL thread stopped, and no error on the
   * stopped thread (a thread stopped on an error is the server's doing, reported as impaired). By
   * site name, each with the threads stopped ("IO", "SQL" or "IO and SQL").
   */
  public static Map<String, String> stoppedByHand(Map<String, SiteObservation> observations, String activeSite) {
    Map<String, String> out = new TreeMap<>();
    observations.forEach((site, o) -> {
      Probe p = o == null ? null : o.latest();
      if (p == null || !p.reachable() || !p.readOnly() || p.sourceIoState() == null
          || Objects.equals(site, activeSite)) {
        return;
      }
      boolean io = "No".equalsIgnoreCase(p.sourceIoState()) && blank(p.sourceIoError());
      boolean sql = Boolean.FALSE.equals(p.sourceSqlRunning()) && blank(p.sourceSqlError());
      boolean ioFailed = "No".equalsIgnoreCase(p.sourceIoState()) && !blank(p.sourceIoError());
      boolean sqlFailed = Boolean.FALSE.equals(p.sourceSqlRunning()) && !blank(p.sourceSqlError());
      if ((io || sql) && !ioFailed && !sqlFailed) {
        out.put(site, io && sql ? "IO and SQL" : io ? "IO" : "SQL");
      }
    });
    return out;
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }

  /** The Degraded message for {@link #stoppedByHand}: stable while the same threads stay stopped. */
  public static String stoppedByHandMessage(Map<String, String> stopped) {
    StringBuilder m = new StringBuilder();
    stopped.forEach((site, threads) -> m.append(m.length() == 0 ? "" : "; ").append("site '").append(site)
        .append("': replication ").append(threads).append(" thread").append(threads.contains(" and ") ? "s" : "")
        .append(
            " stopped without an error, not by the failover: left stopped (START SLAVE or START REPLICA to resume)"));
    return m.toString();
  }

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
