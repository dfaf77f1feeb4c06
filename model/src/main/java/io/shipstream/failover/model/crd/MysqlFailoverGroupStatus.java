package io.shipstream.failover.model.crd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.function.Consumer;

/**
 * What the controller observed and did. Written only through the status subresource. Every
 * field is optional: a fresh resource has no status at all.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record MysqlFailoverGroupStatus(
    String activeSite,
    String lastFailover,
    String lastFailoverTarget,
    String promotionGtidExecuted,
    List<SiteStatus> sites,
    PlannedFailoverStatus plannedFailover,
    WorkflowRef workflow,
    List<Condition> conditions,
    Long observedGeneration,
    EmergencyFailoverStatus emergencyFailover,
    SemiSyncStatus semiSync,
    List<String> fencedSites,
    @JsonPropertyDescription("Transactions the group is known to have lost: an old primary an emergency failover "
        + "left behind came back holding them, and the new primary never received them. One entry per failover and "
        + "site, the newest last; the last ten are kept.")
    List<LostTransactions> lostTransactions,
    @JsonPropertyDescription("When the last failover's promotion took effect (RFC 3339): the anti-flap cooldown "
        + "runs from here. Unlike lastFailover, a failover rolled back before its promotion took effect leaves it "
        + "alone. Absent in a status written before it existed: the cooldown then runs from lastFailover when that "
        + "record carries promotionGtidExecuted (a promotion's).")
    String lastPromotion,
    @JsonPropertyDescription("The group's last ten finished failovers, newest first, each written by its workflow "
        + "when it ended: kubectl failover history prints them beside the Events.")
    List<FailoverHistoryEntry> failoverHistory,
    @JsonPropertyDescription("The sites that could take over now, as a planned target or the emergency candidate "
        + "(sites[].readiness), comma-separated in spec order; \"none\" when no site could: the group has lost its "
        + "disaster recovery. Written by the watcher with sites.")
    String readySites,
    @JsonPropertyDescription("The verdict of the last dry run (bloodraven.shipstream.io/dry-run): what a switchover "
        + "to a site, or an emergency failover now, would do, found by reading only. Nothing acts on it.")
    DryRunStatus dryRun) {

  /** A status without a dry run's verdict. */
  public MysqlFailoverGroupStatus(String activeSite, String lastFailover, String lastFailoverTarget,
      String promotionGtidExecuted, List<SiteStatus> sites, PlannedFailoverStatus plannedFailover, WorkflowRef workflow,
      List<Condition> conditions, Long observedGeneration, EmergencyFailoverStatus emergencyFailover,
      SemiSyncStatus semiSync, List<String> fencedSites, List<LostTransactions> lostTransactions,
      String lastPromotion, List<FailoverHistoryEntry> failoverHistory, String readySites) {
    this(activeSite, lastFailover, lastFailoverTarget, promotionGtidExecuted, sites, plannedFailover, workflow,
        conditions, observedGeneration, emergencyFailover, semiSync, fencedSites, lostTransactions, lastPromotion,
        failoverHistory, readySites, null);
  }

  /** A status without the sites ready now. */
  public MysqlFailoverGroupStatus(String activeSite, String lastFailover, String lastFailoverTarget,
      String promotionGtidExecuted, List<SiteStatus> sites, PlannedFailoverStatus plannedFailover, WorkflowRef workflow,
      List<Condition> conditions, Long observedGeneration, EmergencyFailoverStatus emergencyFailover,
      SemiSyncStatus semiSync, List<String> fencedSites, List<LostTransactions> lostTransactions,
      String lastPromotion, List<FailoverHistoryEntry> failoverHistory) {
    this(activeSite, lastFailover, lastFailoverTarget, promotionGtidExecuted, sites, plannedFailover, workflow,
        conditions, observedGeneration, emergencyFailover, semiSync, fencedSites, lostTransactions, lastPromotion,
        failoverHistory, null);
  }

  /** {@code readySites} as written for {@code sites}: the names of those ready now, or "none". */
  public static String readySites(List<SiteStatus> sites) {
    List<String> ready = sites == null ? List.of()
        : sites.stream().filter(s -> s != null && s.readyNow()).map(SiteStatus::name).toList();
    return ready.isEmpty() ? "none" : String.join(",", ready);
  }

  /** How many entries {@code failoverHistory} keeps: the oldest go first. */
  public static final int FAILOVER_HISTORY_KEPT = 10;

  /** A status without the failover history. */
  public MysqlFailoverGroupStatus(String activeSite, String lastFailover, String lastFailoverTarget,
      String promotionGtidExecuted, List<SiteStatus> sites, PlannedFailoverStatus plannedFailover, WorkflowRef workflow,
      List<Condition> conditions, Long observedGeneration, EmergencyFailoverStatus emergencyFailover,
      SemiSyncStatus semiSync, List<String> fencedSites, List<LostTransactions> lostTransactions,
      String lastPromotion) {
    this(activeSite, lastFailover, lastFailoverTarget, promotionGtidExecuted, sites, plannedFailover, workflow,
        conditions, observedGeneration, emergencyFailover, semiSync, fencedSites, lostTransactions, lastPromotion,
        null);
  }

  /** How many entries {@code lostTransactions} keeps: the oldest go first. */
  public static final int LOST_TRANSACTIONS_KEPT = 10;

  /** A status without the time of the last promotion (the cooldown falls back to {@code lastFailover}). */
  public MysqlFailoverGroupStatus(String activeSite, String lastFailover, String lastFailoverTarget,
      String promotionGtidExecuted, List<SiteStatus> sites, PlannedFailoverStatus plannedFailover, WorkflowRef workflow,
      List<Condition> conditions, Long observedGeneration, EmergencyFailoverStatus emergencyFailover,
      SemiSyncStatus semiSync, List<String> fencedSites, List<LostTransactions> lostTransactions) {
    this(activeSite, lastFailover, lastFailoverTarget, promotionGtidExecuted, sites, plannedFailover, workflow,
        conditions, observedGeneration, emergencyFailover, semiSync, fencedSites, lostTransactions, null);
  }

  /**
   * Where the anti-flap cooldown starts: {@code lastPromotion}, the last promotion that took effect;
   * null when there was none. A status written before that field existed has only {@code
   * lastFailover}, which every failover that named a target active wrote, rolled back or not. Its
   * record is a promotion's when it carries the promotion point ({@code promotionGtidExecuted},
   * written only after the promotion; naming a target, or the source again, removes it), so the
   * cooldown then runs from {@code lastFailover}. The same rule reads a status written since: a
   * group whose failovers were all rolled back has neither field, and no cooldown.
   */
  public String cooldownSince() {
    if (lastPromotion != null) {
      return lastPromotion;
    }
    return promotionGtidExecuted != null ? lastFailover : null;
  }

  /** A status without lost transactions. */
  public MysqlFailoverGroupStatus(String activeSite, String lastFailover, String lastFailoverTarget,
      String promotionGtidExecuted, List<SiteStatus> sites, PlannedFailoverStatus plannedFailover, WorkflowRef workflow,
      List<Condition> conditions, Long observedGeneration, EmergencyFailoverStatus emergencyFailover,
      SemiSyncStatus semiSync, List<String> fencedSites) {
    this(activeSite, lastFailover, lastFailoverTarget, promotionGtidExecuted, sites, plannedFailover, workflow,
        conditions, observedGeneration, emergencyFailover, semiSync, fencedSites, null);
  }

  /**
   * A status without fenced sites. {@code fencedSites}: the sites a DBA fenced with the
   * {@code bloodraven.shipstream.io/fenced-sites} annotation, as the watcher last accepted it
   * (model {@code FencedSites}); null or empty: none.
   */
  public MysqlFailoverGroupStatus(String activeSite, String lastFailover, String lastFailoverTarget,
      String promotionGtidExecuted, List<SiteStatus> sites, PlannedFailoverStatus plannedFailover, WorkflowRef workflow,
      List<Condition> conditions, Long observedGeneration, EmergencyFailoverStatus emergencyFailover,
      SemiSyncStatus semiSync) {
    this(activeSite, lastFailover, lastFailoverTarget, promotionGtidExecuted, sites, plannedFailover, workflow,
        conditions, observedGeneration, emergencyFailover, semiSync, null);
  }

  /** A status without the semi-synchronous reading. */
  public MysqlFailoverGroupStatus(String activeSite, String lastFailover, String lastFailoverTarget,
      String promotionGtidExecuted, List<SiteStatus> sites, PlannedFailoverStatus plannedFailover, WorkflowRef workflow,
      List<Condition> conditions, Long observedGeneration, EmergencyFailoverStatus emergencyFailover) {
    this(activeSite, lastFailover, lastFailoverTarget, promotionGtidExecuted, sites, plannedFailover, workflow,
        conditions, observedGeneration, emergencyFailover, null);
  }

  public static MysqlFailoverGroupStatus empty() {
    return new MysqlFailoverGroupStatus(null, null, null, null, null, null, null, null, null, null, null, null);
  }

  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record SiteStatus(
      String name,
      String state,
      String lastSeen,
      Boolean replicating,
      String gtidExecuted,
      Long secondsBehindSource,
      String divergentGtid,
      @JsonPropertyDescription("Whether the site could take over now, as the watcher computes it on every poll "
          + "(model SiteReadiness): as a planned switchover's target and as the site an emergency failover would "
          + "promote, and why not.")
      Readiness readiness) {

    /** A site's status without its readiness. */
    public SiteStatus(String name, String state, String lastSeen, Boolean replicating, String gtidExecuted,
        Long secondsBehindSource, String divergentGtid) {
      this(name, state, lastSeen, replicating, gtidExecuted, secondsBehindSource, divergentGtid, null);
    }

    /** The same site with its readiness. */
    public SiteStatus withReadiness(Readiness r) {
      return new SiteStatus(name, state, lastSeen, replicating, gtidExecuted, secondsBehindSource, divergentGtid, r);
    }

    /** Whether the site could take over now by either path. */
    public boolean readyNow() {
      return readiness != null
          && (Boolean.TRUE.equals(readiness.planned()) || Boolean.TRUE.equals(readiness.emergency()));
    }
  }

  /**
   * {@code status.sites[].readiness}: whether the site could take over now.
   *
   * @param planned whether a planned switchover to it would be accepted and not wait out maxLagWait
   * @param plannedReason why not, as a code (ReplicationStopped, Lagging, Fenced, ...); absent when ready
   * @param emergency whether an emergency failover would promote it were the active site lost now
   *     (rank 1), or were those ranked ahead of it lost too
   * @param emergencyReason why not, as a code; absent when ready
   * @param emergencyRank 1 for the site the emergency path would promote now; absent when not ready
   * @param message the same in sentences
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Readiness(Boolean planned, String plannedReason, Boolean emergency, String emergencyReason,
      Integer emergencyRank, String message) {}

  /**
   * The group's durability now, as the primary reports it (written by the watcher while
   * {@code spec.semiSync.enabled}; once disabled, while it switches every site off, then removed).
   *
   * @param primary the site whose server was read
   * @param dataDurability preferred or required, as the spec says (absent while switching off)
   * @param enabled whether commits wait for acknowledgements now (source side on and active)
   * @param waitCount how many acknowledgements each commit waits for (MariaDB: 1)
   * @param clients the semi-synchronous replicas connected
   * @param fallenBack whether the primary has fallen back to asynchronous replication
   * @param message the same in a sentence
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record SemiSyncStatus(String primary, String dataDurability, Boolean enabled, Integer waitCount,
      Integer clients, Boolean fallenBack, String message) {}

  /**
   * {@code status.lostTransactions[]}: transactions the group lost, confirmed when the old primary
   * an emergency failover left behind came back holding them (its GTID set read while it was
   * read-only, compared with the active primary's): what the failover's own count could not see.
   *
   * @param site the returning old primary, which still holds them (read-only, unrouted)
   * @param failover the {@code startTime} of the emergency failover that left it behind
   * @param activeSite the primary that never received them
   * @param gtid the transactions, as a GTID set
   * @param count how many
   * @param detectedAt when the watcher found them (RFC 3339)
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record LostTransactions(String site, String failover, String activeSite, String gtid, Long count,
      String detectedAt) {}

  /**
   * {@code status.failoverHistory[]}: one finished failover, written by its workflow with its
   * terminal phase.
   *
   * @param workflowId the group's failover workflow id (one per group)
   * @param runId the run, which tells the failovers of one group apart
   * @param kind planned or emergency
   * @param target the site it promoted, or was to promote
   * @param result Succeeded or Failed
   * @param reason why it failed, as in plannedFailover.reason; absent when it succeeded
   * @param startTime when it started (RFC 3339)
   * @param durationSeconds how long it ran
   * @param writeWindowSeconds how long writes stopped ({@link WriteWindow}); absent when no target became writable
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record FailoverHistoryEntry(String workflowId, String runId, String kind, String target, String result,
      String reason, String startTime, Double durationSeconds, Double writeWindowSeconds) {

    /** An entry without the write window. */
    public FailoverHistoryEntry(String workflowId, String runId, String kind, String target, String result,
        String reason, String startTime, Double durationSeconds) {
      this(workflowId, runId, kind, target, result, reason, startTime, durationSeconds, null);
    }

    /**
     * {@code history} with {@code entry} first: an entry of the same run is replaced (a retried
     * write), and only the newest {@link #FAILOVER_HISTORY_KEPT} are kept.
     */
    public static List<FailoverHistoryEntry> prepended(List<FailoverHistoryEntry> history, FailoverHistoryEntry entry) {
      List<FailoverHistoryEntry> out = new java.util.ArrayList<>();
      out.add(entry);
      if (history != null) {
        history.stream().filter(e -> e != null && !java.util.Objects.equals(e.runId(), entry.runId()))
            .forEach(out::add);
      }
      return List.copyOf(out.subList(0, Math.min(out.size(), FAILOVER_HISTORY_KEPT)));
    }
  }

  /** The Temporal workflow of the current or last failover, so a user can find its history. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record WorkflowRef(String type, String workflowId, String runId) {}

  public MysqlFailoverGroupStatus withPlannedFailover(PlannedFailoverStatus planned) {
    return with(c -> c.plannedFailover = planned);
  }

  public MysqlFailoverGroupStatus withWorkflow(WorkflowRef ref) {
    return with(c -> c.workflow = ref);
  }

  /**
   * The failover record as {@code recordFailover} writes it: a record with the promotion point is
   * one of a promotion that took effect, so it also moves {@code lastPromotion}.
   */
  public MysqlFailoverGroupStatus withFailover(String site, String at, String promotionGtid) {
    return with(c -> {
      c.activeSite = site;
      c.lastFailover = at;
      c.lastFailoverTarget = site;
      c.promotionGtidExecuted = promotionGtid;
      c.lastPromotion = promotionGtid != null ? at : lastPromotion;
    });
  }

  /** The time the last promotion took effect ({@code lastPromotion}), where the cooldown starts. */
  public MysqlFailoverGroupStatus withLastPromotion(String at) {
    return with(c -> c.lastPromotion = at);
  }

  public MysqlFailoverGroupStatus withActiveSite(String site) {
    return with(c -> c.activeSite = site);
  }

  public MysqlFailoverGroupStatus withConditions(List<Condition> newConditions, Long generation) {
    return with(c -> {
      c.conditions = newConditions;
      c.observedGeneration = generation;
    });
  }

  public MysqlFailoverGroupStatus withEmergencyFailover(EmergencyFailoverStatus emergency) {
    return with(c -> c.emergencyFailover = emergency);
  }

  /** The transactions the group is known to have lost ({@link LostTransactions}). */
  public MysqlFailoverGroupStatus withLostTransactions(List<LostTransactions> lost) {
    return with(c -> c.lostTransactions = lost);
  }

  /** The sites a DBA fenced, as the watcher accepted them. */
  public MysqlFailoverGroupStatus withFencedSites(List<String> fenced) {
    return with(c -> c.fencedSites = fenced);
  }

  /** The group's last finished failovers, newest first ({@link FailoverHistoryEntry}). */
  public MysqlFailoverGroupStatus withFailoverHistory(List<FailoverHistoryEntry> history) {
    return with(c -> c.failoverHistory = history);
  }

  /** The verdict of the last dry run ({@link DryRunStatus}). */
  public MysqlFailoverGroupStatus withDryRun(DryRunStatus run) {
    return with(c -> c.dryRun = run);
  }

  /** This status with what {@code change} sets in a copy of its fields: every {@code with} method's one way. */
  private MysqlFailoverGroupStatus with(Consumer<Fields> change) {
    Fields fields = new Fields(this);
    change.accept(fields);
    return fields.status();
  }

  /** A status's fields, to change some before they make a status again ({@link #with}). */
  private static final class Fields {
    String activeSite;
    String lastFailover;
    String lastFailoverTarget;
    String promotionGtidExecuted;
    List<SiteStatus> sites;
    PlannedFailoverStatus plannedFailover;
    WorkflowRef workflow;
    List<Condition> conditions;
    Long observedGeneration;
    EmergencyFailoverStatus emergencyFailover;
    SemiSyncStatus semiSync;
    List<String> fencedSites;
    List<LostTransactions> lostTransactions;
    String lastPromotion;
    List<FailoverHistoryEntry> failoverHistory;
    String readySites;
    DryRunStatus dryRun;

    Fields(MysqlFailoverGroupStatus status) {
      activeSite = status.activeSite;
      lastFailover = status.lastFailover;
      lastFailoverTarget = status.lastFailoverTarget;
      promotionGtidExecuted = status.promotionGtidExecuted;
      sites = status.sites;
      plannedFailover = status.plannedFailover;
      workflow = status.workflow;
      conditions = status.conditions;
      observedGeneration = status.observedGeneration;
      emergencyFailover = status.emergencyFailover;
      semiSync = status.semiSync;
      fencedSites = status.fencedSites;
      lostTransactions = status.lostTransactions;
      lastPromotion = status.lastPromotion;
      failoverHistory = status.failoverHistory;
      readySites = status.readySites;
      dryRun = status.dryRun;
    }

    MysqlFailoverGroupStatus status() {
      return new MysqlFailoverGroupStatus(activeSite, lastFailover, lastFailoverTarget, promotionGtidExecuted, sites,
          plannedFailover, workflow, conditions, observedGeneration, emergencyFailover, semiSync, fencedSites,
          lostTransactions, lastPromotion, failoverHistory, readySites, dryRun);
    }
  }
}
