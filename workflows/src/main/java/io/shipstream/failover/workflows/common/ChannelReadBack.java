package io.shipstream.failover.workflows.common;

import io.shipstream.failover.model.crd.ChannelCheck;
import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.shipstream.failover.workflows.activities.MysqlTarget;
import io.shipstream.failover.workflows.contract.Events;
import io.temporal.failure.ActivityFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.Promise;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The proof a failover leaves of the channels it re-pointed: each one is read back from its replica
 * ({@link MysqlActivities#readChannel}: TLS settings, IO thread connected) as soon as its
 * re-pointing succeeded, beside the rest of the run, and {@link #record}ed once the run succeeded,
 * in {@code status.<kind>Failover.channels} and one Event. With the source requiring secure
 * transport, an SSL channel whose IO thread connected is encrypted. None of it can undo the
 * promotion or delay Succeeded: a channel that is weaker, not connected or unreadable is a Warning
 * naming its site. Workflow code: the reads are activities, started in the runbook's order.
 */
public final class ChannelReadBack {
  private final FailoverRun run;
  private final MysqlTarget newPrimary;
  private final Map<String, Promise<ChannelCheck>> reads = new LinkedHashMap<>();

  public ChannelReadBack(FailoverRun run, MysqlTarget newPrimary) {
    this.run = run;
    this.newPrimary = newPrimary;
  }

  /** Starts reading back the channel of {@code replica}, just pointed at the new primary. */
  public void start(MysqlTarget replica) {
    if (!reads.containsKey(replica.site())) {
      reads.put(replica.site(), Async.function(run.quickMysql::readChannel, replica, newPrimary));
    }
  }

  /**
   * Waits for the reads (each bounded by the activity's few seconds), puts them in the status and
   * writes the Event: Normal when every channel is as the group asks and connected, Warning naming
   * the sites otherwise. Nothing when the run re-pointed no channel.
   */
  public void record() {
    if (reads.isEmpty()) {
      return;
    }
    List<ChannelCheck> checks = new ArrayList<>();
    reads.forEach((site, read) -> checks.add(settle(site, read)));
    run.progress.channels = List.copyOf(checks);
    run.publishStatus();
    List<String> problems = problems(checks);
    if (problems.isEmpty()) {
      run.event(Events.CHANNELS_VERIFIED, verified(checks));
    } else {
      run.event(Events.CHANNELS_UNVERIFIED, String.join("; ", problems));
    }
  }

  private ChannelCheck settle(String site, Promise<ChannelCheck> read) {
    try {
      return read.get();
    } catch (ActivityFailure e) {
      return ChannelCheck.unreadable(site, newPrimary.site(), null, Failures.rootMessage(e));
    }
  }

  /** "site: why" of every channel not as the group asks, in the order read. */
  static List<String> problems(List<ChannelCheck> checks) {
    return checks.stream().filter(c -> !Boolean.TRUE.equals(c.asGroupAsks()))
        .map(c -> "site '" + c.site() + "' replicating from '" + c.source() + "': " + c.problem()).toList();
  }

  /** The Normal Event's message: each channel's TLS, all connected. */
  static String verified(List<ChannelCheck> checks) {
    List<String> each = new ArrayList<>();
    for (ChannelCheck c : checks) {
      String tls = !Boolean.TRUE.equals(c.ssl()) ? "plaintext" : "TLS" + (c.caFile() == null ? ""
          : " (CA " + c.caFile() + (Boolean.TRUE.equals(c.verifyServerCert()) ? ", name checked)" : ")"));
      each.add(c.site() + " from " + c.source() + ": " + tls + ", IO connected");
    }
    return "every re-pointed channel is as the group asks (" + (checks.isEmpty() ? "" : checks.get(0).mode())
        + ") and connected: " + String.join("; ", each);
  }
}
