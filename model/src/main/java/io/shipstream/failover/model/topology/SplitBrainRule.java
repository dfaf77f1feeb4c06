package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.crd.SiteSpec;
import java.util.ArrayList;
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

  /**
   * What happens to the writable sites when the watcher fences none of them (row 6): the sidecar of
   * every writable site that the status does not name active fences it by its rule 1, since the
   * sidecars act on {@code status.activeSite}; a site without a sidecar stays writable until a
   * human chooses. The Event says which, so it never reads "alert only" while a sidecar then
   * fences the site.
   */
  static String sidecarsDo(TopologyMatrix.Input in, List<String> writable) {
    if (in.activeSite() == null) {
      return "alert only, a human must choose (no site is recorded active, so no sidecar fences by rule 1)";
    }
    List<String> guarded = new ArrayList<>();
    List<String> unguarded = new ArrayList<>();
    for (String site : writable) {
      if (site.equals(in.activeSite())) {
        continue;
      }
      boolean sidecar = in.config().site(site).map(SiteSpec::sidecar)
          .map(c -> c.url() != null && !c.url().isBlank()).orElse(false);
      (sidecar ? guarded : unguarded).add(site);
    }
    List<String> said = new ArrayList<>();
    if (!guarded.isEmpty()) {
      said.add("the status names '" + in.activeSite() + "' active, so " + (guarded.size() == 1
          ? "the sidecar of " + TopologyMatrix.quoted(guarded) + " fences it"
          : "the sidecars of " + TopologyMatrix.quoted(guarded) + " fence them")
          + " (rule 1); the watcher fences nothing");
    }
    if (!unguarded.isEmpty()) {
      said.add(TopologyMatrix.quoted(unguarded) + " without a sidecar: alert only, a human must choose");
    }
    return said.isEmpty() ? "alert only, a human must choose" : String.join("; ", said);
  }

  static Verdict.SplitBrain resolve(TopologyMatrix.Input in, List<String> writable) {
    String both = TopologyMatrix.quoted(writable) + " are all writable";
    if (in.failoverRunning()) {
      return new Verdict.SplitBrain(writable, null, List.of(),
          both + " while a failover workflow is running: alert only");
    }
    String keep = in.config().sitePriorities().stream().filter(writable::contains).findFirst().orElse(null);
    String why = "it is the highest writable site in splitBrainPolicy.sitePriorities";
    if (keep == null && in.lastFailoverTarget() != null && writable.contains(in.lastFailoverTarget())) {
      keep = in.lastFailoverTarget();
      why = "it is the target of the last failover";
    }
    if (keep == null) {
      return new Verdict.SplitBrain(writable, null, List.of(), both + " and neither splitBrainPolicy.sitePriorities "
          + "nor the last failover names one of them: " + sidecarsDo(in, writable));
    }
    String kept = keep;
    List<String> fence = writable.stream().filter(s -> !s.equals(kept)).toList();
    return new Verdict.SplitBrain(writable, keep, fence,
        both + ": keeping '" + keep + "' because " + why + ", fencing " + TopologyMatrix.quoted(fence));
  }
}
