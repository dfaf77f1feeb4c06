package io.shipstream.failover.dev.faults;

import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.workflows.activities.KubernetesActivities;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * The activity calls of the planned failover, in the order the runbook makes them, each named
 * the way the suite's table shows it. A boundary matches an activity attempt by its Temporal
 * activity type and, where one type serves several steps (the role label, the failover record),
 * by its arguments.
 */
public enum Boundary {
  LOAD_GROUP("load-group", "LoadGroup", args -> true),
  INSPECT("inspect", "Inspect", args -> true),
  // The status of the drain: the first status write that records the fence. The runbook holds its
  // status writes while the application cannot write (the write window, from the fence to the
  // promotion, 3 s at most), so that write may come in Draining or in a later phase (Resuming).
  STATUS_DRAINING("status-draining", "WritePlannedFailoverStatus", Boundary::recordsTheFence),
  FENCE("fence", "Fence", args -> true),
  UNLABEL_SOURCE("unlabel-source", "SetSiteRole", args -> "replica".equals(args[2])),
  DRAIN("drain", "KillAppConnections", args -> true),
  LAG_WAIT("lag-wait", "WaitForGtidSet", args -> true),
  RECORD_TARGET("record-target", "RecordFailover", args -> args[3] == null),
  PROMOTE("promote", "Promote", args -> true),
  LABEL_TARGET("label-target", "SetSiteRole", args -> "primary".equals(args[2])),
  DNS("dns", "UpdateDns", args -> true),
  TAINTS("taints", "ApplyTaints", args -> true),
  REJOIN("rejoin", "ReplicateFrom", args -> true),
  RECORD_RESUMED("record-resumed", "RecordFailover", args -> args[3] != null),
  STATUS_SUCCEEDED("status-succeeded", "WritePlannedFailoverStatus", args -> phase(args, "Succeeded")),
  // The runbooks batch their Events (EmitEvents).
  EVENT_COMPLETED("event-completed", "EmitEvents", args -> args[1] instanceof java.util.List<?> notes
      && notes.stream().anyMatch(n -> n instanceof KubernetesActivities.EventNote e
          && "PlannedFailoverCompleted".equals(e.reason()))),
  CLEAR_ANNOTATION("clear-annotation", "ClearAnnotation", args -> true);

  private final String label;
  private final String activityType;
  private final Predicate<Object[]> arguments;

  Boundary(String label, String activityType, Predicate<Object[]> arguments) {
    this.label = label;
    this.activityType = activityType;
    this.arguments = arguments;
  }

  public String label() {
    return label;
  }

  public boolean matches(String type, Object[] args) {
    return activityType.equals(type) && arguments.test(args);
  }

  public static Boundary byLabel(String label) {
    return Arrays.stream(values()).filter(b -> b.label.equals(label)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no boundary " + label));
  }

  private static boolean recordsTheFence(Object[] args) {
    return args.length > 1 && args[1] instanceof PlannedFailoverStatus s && s.sourceGtidAtFence() != null
        && !"Succeeded".equals(s.phase()) && !"Failed".equals(s.phase());
  }

  private static boolean phase(Object[] args, String phase) {
    return args.length > 1 && args[1] instanceof PlannedFailoverStatus s && Objects.equals(phase, s.phase());
  }
}
