package io.shipstream.failover.model.topology;

import java.util.List;

/**
 * Rows 3-6 of {@link TopologyMatrix}: which of several writable primary-candidates to keep. The
 * user's {@code splitBrainPolicy.sitePriorities} decides first (highest-listed writable site),
 * then the group's own last decision ({@code status.lastFailoverTarget}, if it is writable);
 * otherwise nobody can tell which writes matter more, and a human must. While a failover workflow
 * runs, the workflow owns the topology, so the monitor only alerts.
 */
final class SplitBrainRule {
  private SplitBrainRule() {}

  static Verdict.SplitBrain resolve(TopologyMatrix.Input in, List<String> writable) {
    String both = TopologyMatrix.quoted(writable) + " are all writable";
    if (in.failoverRunning()) {
      return new Verdict.SplitBrain(writable, null, List.of(), both + " while a failover workflow is running: alert only");
    }
    String keep = in.config().sitePriorities().stream().filter(writable::contains).findFirst().orElse(null);
    String why = "it is the highest writable site in splitBrainPolicy.sitePriorities";
    if (keep == null && in.lastFailoverTarget() != null && writable.contains(in.lastFailoverTarget())) {
      keep = in.lastFailoverTarget();
      why = "it is the target of the last failover";
    }
    if (keep == null) {
      return new Verdict.SplitBrain(writable, null, List.of(), both + " and neither splitBrainPolicy.sitePriorities "
          + "nor the last failover names one of them: alert only, a human must choose");
    }
    String kept = keep;
    List<String> fence = writable.stream().filter(s -> !s.equals(kept)).toList();
    return new Verdict.SplitBrain(writable, keep, fence,
        both + ": keeping '" + keep + "' because " + why + ", fencing " + TopologyMatrix.quoted(fence));
  }
}
