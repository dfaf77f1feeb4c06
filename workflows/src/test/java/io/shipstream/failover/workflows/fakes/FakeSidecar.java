package io.shipstream.failover.workflows.fakes;

import io.shipstream.failover.workflows.activities.SidecarActivities;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The old primary's sidecar as the workflow sees it through its activity: it confirms the fence
 * after {@link #confirmAfter}, or, with null, never answers and is reported unreachable at the
 * deadline.
 */
public final class FakeSidecar implements SidecarActivities {
  public volatile Duration confirmAfter = Duration.ofMillis(100);
  public volatile String mysqlState = "STOPPED";
  public final List<String> calls = new CopyOnWriteArrayList<>();
  /**
   * With {@code confirmAfter} null: the sidecar answers, but cannot confirm (its server does not
   * answer), reporting that it runs with this lease and a 500 ms interval; null, it never answers.
   */
  public volatile Duration reportedLease;
  /**
   * With {@code confirmAfter} null: the call (1 the first) from which on the sidecar confirms at
   * once, as a sidecar restarted by its liveness probe does after its boot fence; 0, never.
   */
  public volatile int confirmOnCall;
  /** When the confirmation was given, in wall-clock time; null until then. */
  public volatile Instant confirmedAt;

  @Override
  public Confirmation confirmFenced(String sidecarUrl, String site, String activeSite, Instant deadline) {
    calls.add(sidecarUrl + " " + site + " " + activeSite);
    Instant started = Instant.now();
    if (confirmAfter == null && confirmOnCall > 0 && calls.size() >= confirmOnCall) {
      confirmedAt = Instant.now();
      return new Confirmation(true, new Snapshot(site, activeSite, mysqlState, 1), null, 0);
    }
    if (confirmAfter == null) {
      sleepUntil(deadline);
      Duration lease = reportedLease;
      if (lease != null) {
        return new Confirmation(false, new Snapshot(site, activeSite, "UNREACHABLE", 9, lease.toMillis(), 500L), null,
            Duration.between(started, Instant.now()).toMillis());
      }
      return new Confirmation(false, null, "ConnectException: connection refused",
          Duration.between(started, Instant.now()).toMillis());
    }
    sleepUntil(started.plus(confirmAfter));
    confirmedAt = Instant.now();
    return new Confirmation(true, new Snapshot(site, activeSite, mysqlState, 7),
        null, Duration.between(started, confirmedAt).toMillis());
  }

  /** What {@link #lastRenewal} answers: by default that no renewer could be read; null, it fails. */
  public volatile Renewal renewal = Renewal.unknown("this fake reads no renewer", 0);
  /** Every read of the last renewal asked for. */
  public final List<RenewalAsk> renewalAsks = new CopyOnWriteArrayList<>();

  @Override
  public Renewal lastRenewal(RenewalAsk ask) {
    renewalAsks.add(ask);
    Renewal answer = renewal;
    if (answer == null) {
      throw new IllegalStateException("the renewers' logs cannot be read");
    }
    return answer;
  }

  private static void sleepUntil(Instant until) {
    long millis = Duration.between(Instant.now(), until).toMillis();
    if (millis > 0) {
      try {
        Thread.sleep(millis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
