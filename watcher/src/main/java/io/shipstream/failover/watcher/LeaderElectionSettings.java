package io.shipstream.failover.watcher;

import java.time.Duration;

/**
 * How the watcher replicas pick the one that acts on annotations: a {@code coordination.k8s.io}
 * Lease held by {@code identity}. The defaults (15s/10s/2s) let a standby take over about 15
 * seconds after a leader dies without a word, and at once after one that shuts down cleanly,
 * since a clean shutdown releases the Lease.
 *
 * @param enabled false runs a single replica that always acts (two of them would both act)
 * @param leaseNamespace null: the namespace of the Kubernetes client (in a pod, its own)
 * @param identity the holder name written to the Lease: the pod name
 * @param leaseDuration how long a standby waits after the last renewal before taking over
 * @param renewDeadline how long the leader keeps trying to renew before it stops acting
 * @param retryPeriod how often candidates try to acquire, and the leader renews
 */
public record LeaderElectionSettings(
    boolean enabled,
    String leaseName,
    String leaseNamespace,
    String identity,
    Duration leaseDuration,
    Duration renewDeadline,
    Duration retryPeriod) {

  public static final String DEFAULT_LEASE_NAME = "failover-watcher";

  /**
   * The three durations must nest: the leader must give up (renewDeadline) before a standby may
   * take over (leaseDuration), or both would act for a moment; and a renewal must be retried at
   * least once within the deadline.
   *
   * @return the problem, or null when they nest
   */
  static String checkTimings(Duration leaseDuration, Duration renewDeadline, Duration retryPeriod) {
    if (renewDeadline.compareTo(leaseDuration) >= 0) {
      return "LEASE_RENEW_DEADLINE (" + renewDeadline.toMillis() + "ms) must be shorter than LEASE_DURATION ("
          + leaseDuration.toMillis() + "ms): the leader must stop acting before a standby may take over";
    }
    // fabric8 adds up to 1.2 x retryPeriod of jitter to each try and refuses a deadline that
    // would not fit one jittered retry (retryPeriod x 2.2).
    if (retryPeriod.isZero() || retryPeriod.multipliedBy(22).dividedBy(10).compareTo(renewDeadline) >= 0) {
      return "LEASE_RETRY_PERIOD (" + retryPeriod.toMillis()
          + "ms) must be more than zero and under LEASE_RENEW_DEADLINE / 2.2 ("
          + renewDeadline.toMillis() + "ms): a renewal must be retried within the deadline, jitter included";
    }
    return null;
  }

  /** The same settings with shorter or longer timings; tests use a few hundred milliseconds. */
  public LeaderElectionSettings withTimings(Duration lease, Duration renew, Duration retry) {
    String problem = checkTimings(lease, renew, retry);
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
    return new LeaderElectionSettings(enabled, leaseName, leaseNamespace, identity, lease, renew, retry);
  }

  public LeaderElectionSettings withIdentity(String newIdentity) {
    return new LeaderElectionSettings(enabled, leaseName, leaseNamespace, newIdentity, leaseDuration, renewDeadline,
        retryPeriod);
  }

  public LeaderElectionSettings withEnabled(boolean on) {
    return new LeaderElectionSettings(on, leaseName, leaseNamespace, identity, leaseDuration, renewDeadline,
        retryPeriod);
  }
}
