package io.shipstream.failover.model;

import java.util.List;

/**
 * Every {@code bloodraven.shipstream.io/} key the product reads or writes on Kubernetes objects,
 * declared once: the annotations by which a human (or the watcher) asks for something, and the
 * finalizer. The classes that parse a value name their key from here ({@code
 * MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION}, {@code PauseAnnotation.ANNOTATION}, ...), and
 * {@code docs/reference/annotations.md} is generated from {@link #ALL}.
 */
public final class Annotations {
  private Annotations() {}

  public static final String PREFIX = "bloodraven.shipstream.io/";

  public static final String PLANNED_FAILOVER = PREFIX + "planned-failover";
  public static final String DRY_RUN = PREFIX + "dry-run";
  public static final String PAUSED = PREFIX + "paused";
  public static final String FENCED_SITES = PREFIX + "fenced-sites";
  public static final String PROMOTE_ANYWAY = PREFIX + "promote-anyway";
  public static final String ADOPT = PREFIX + "adopt";
  public static final String FINALIZER = PREFIX + "finalizer";

  /**
   * One key.
   *
   * @param name the key
   * @param kind "annotation" or "finalizer"
   * @param on the object it is set on
   * @param grammar its value, as the parser accepts it; anything else is refused, never guessed
   * @param effect what it does
   * @param writers who sets it and who removes it
   */
  public record Entry(String name, String kind, String on, String grammar, String effect, String writers) {}

  public static final List<Entry> ALL = List.of(
      new Entry(PLANNED_FAILOVER, "annotation", "MysqlFailoverGroup",
          "`<site>[:maxLagWait=<duration>][:at=<RFC 3339 time>]`, options in any order",
          "Requests a planned switchover to `<site>`: the watcher starts the PlannedFailover workflow, which fences"
              + " the source, waits for the target to catch up (at most `maxLagWait`, default"
              + " `spec.plannedFailover.maxLagWait`) and promotes it. With `at=` the request waits (phase Scheduled)"
              + " until that time, at most 90 days ahead. Removing the annotation, or setting another value,"
              + " withdraws the request (a running failover is cancelled and rolled back before Promoting).",
          "An operator (`kubectl annotate`, `kubectl failover`); the watcher when a node of the active site is"
              + " cordoned and `spec.plannedFailover.onActiveNodeDrain` is `switchover`. Removed by the workflow"
              + " when it ends, and by the watcher when it refuses the request, only while it still holds the value"
              + " served."),
      new Entry(DRY_RUN, "annotation", "MysqlFailoverGroup", "`<site>` or `emergency`",
          "Asks what a switchover to `<site>` would do now, or which site an emergency failover would promote if"
              + " the active site died now and what it would lose. Nothing is changed: the verdict goes to"
              + " `status.dryRun` and a DryRunCompleted Event.",
          "An operator. Removed by the dry-run workflow once its verdict is recorded, unless it changed meanwhile."),
      new Entry(PAUSED, "annotation", "MysqlFailoverGroup", "`true` or `false`",
          "`true` pauses the group's automation: it is observed and reported as usual, but the watcher starts no"
              + " failover, fences nothing on its own (a fenced-sites fence still applies), adopts nothing, repairs"
              + " no routing and applies no semi-sync setting;"
              + " each action it would have taken is reported once (ActionHeld), and planned requests are refused"
              + " (Paused). A failover already running goes on; the sidecars keep fencing. Any other value is"
              + " refused (PauseRejected) and the group is not paused.",
          "An operator; never removed by the product."),
      new Entry(FENCED_SITES, "annotation", "MysqlFailoverGroup",
          "comma-separated site names of the spec, each at most once; empty fences nothing",
          "Holds the named sites read-only (by the watcher and their sidecars), takes them out of the replicas"
              + " Service and out of every failover's candidates. Fencing the active site stops the group's writes"
              + " on purpose; unfencing it makes it writable again. An invalid value changes nothing"
              + " (FenceRejected); the accepted sites are recorded in `status.fencedSites`.",
          "An operator; never removed by the product."),
      new Entry(PROMOTE_ANYWAY, "annotation", "MysqlFailoverGroup", "`<site>`",
          "Lets the watcher promote `<site>` in an emergency failover although it is further behind the failed"
              + " primary than `spec.emergencyFailover.maxLagOnPromotion` allows; only the candidate the block"
              + " names, only while the block stands (PromotedOverLagLimit). An invalid value is kept and reported"
              + " (PromoteAnywayRejected); with nothing to override it is removed.",
          "An operator. Removed by the watcher once acted on, or when there is nothing to override."),
      new Entry(ADOPT, "annotation", "MysqlFailoverGroup", "`<site>`",
          "Names the primary of a group that has never recorded an active site and whose primary the watcher"
              + " cannot tell on its own (AdoptionBlocked): the watcher records `<site>` as `status.activeSite`"
              + " (GroupAdopted) if it is a site of the group that may be primary and its server answers; otherwise"
              + " the group stays unadopted (AdoptionBlocked, InvalidAnnotation). Not read once the group is"
              + " adopted.",
          "An operator; never removed by the product."),
      new Entry(FINALIZER, "finalizer", "MysqlFailoverGroup",
          "(a finalizer, no value)",
          "Lets the watcher clean up when the group is deleted: it cancels a planned failover before Promoting or"
              + " waits for a running one, removes the group's node taints, leaves the routing in place and writes"
              + " a tombstone for the sidecars (GroupDeletionWaiting, GroupDeletionBlocked, GroupFinalized).",
          "The watcher, on every group it manages; removed by the watcher when the cleanup is done."));
}
