package io.shipstream.failover.model.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/**
 * What the controller observed and did. Written only through the status subresource. Every
 * field is optional: a fresh resource has no status at all.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
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
    EmergencyFailoverStatus emergencyFailover) {

  public static MysqlFailoverGroupStatus empty() {
    return new MysqlFailoverGroupStatus(null, null, null, null, null, null, null, null, null, null);
  }

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record SiteStatus(
      String name,
      String state,
      String lastSeen,
      Boolean replicating,
      String gtidExecuted,
      Long secondsBehindSource,
      String divergentGtid) {}

  /** The Temporal workflow of the current or last failover, so a user can find its history. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record WorkflowRef(String type, String workflowId, String runId) {}

  public MysqlFailoverGroupStatus withPlannedFailover(PlannedFailoverStatus planned) {
    return new MysqlFailoverGroupStatus(activeSite, lastFailover, lastFailoverTarget, promotionGtidExecuted,
        sites, planned, workflow, conditions, observedGeneration, emergencyFailover);
  }

  public MysqlFailoverGroupStatus withWorkflow(WorkflowRef ref) {
    return new MysqlFailoverGroupStatus(activeSite, lastFailover, lastFailoverTarget, promotionGtidExecuted,
        sites, plannedFailover, ref, conditions, observedGeneration, emergencyFailover);
  }

  public MysqlFailoverGroupStatus withFailover(String site, String at, String promotionGtid) {
    return new MysqlFailoverGroupStatus(site, at, site, promotionGtid,
        sites, plannedFailover, workflow, conditions, observedGeneration, emergencyFailover);
  }

  public MysqlFailoverGroupStatus withActiveSite(String site) {
    return new MysqlFailoverGroupStatus(site, lastFailover, lastFailoverTarget, promotionGtidExecuted,
        sites, plannedFailover, workflow, conditions, observedGeneration, emergencyFailover);
  }

  public MysqlFailoverGroupStatus withConditions(List<Condition> newConditions, Long generation) {
    return new MysqlFailoverGroupStatus(activeSite, lastFailover, lastFailoverTarget, promotionGtidExecuted,
        sites, plannedFailover, workflow, newConditions, generation, emergencyFailover);
  }

  public MysqlFailoverGroupStatus withEmergencyFailover(EmergencyFailoverStatus emergency) {
    return new MysqlFailoverGroupStatus(activeSite, lastFailover, lastFailoverTarget, promotionGtidExecuted,
        sites, plannedFailover, workflow, conditions, observedGeneration, emergency);
  }
}
