package io.shipstream.failover.workflows;

import io.shipstream.failover.model.GroupRef;

/**
 * The one-line summaries the Temporal UI shows for a failover workflow (its static summary, set
 * by whoever starts it), so a list of runs reads as "which group, from where to where" without
 * opening one. Plain text: the UI renders it as Markdown, and none of these strings needs markup.
 */
public final class FailoverSummaries {
  private FailoverSummaries() {}

  /**
   * A planned failover as the watcher starts it: the source is whichever site is active when the
   * workflow validates the request, so the start names it as such.
   */
  public static String planned(GroupRef group, String target) {
    return "planned failover " + group + ": active site → " + (target == null || target.isBlank() ? "?" : target);
  }

  /** An emergency failover: the failed site and the candidate the topology monitor chose. */
  public static String emergency(GroupRef group, String failedSite, String candidate) {
    return "emergency failover " + group + ": " + failedSite + " → " + candidate;
  }
}
