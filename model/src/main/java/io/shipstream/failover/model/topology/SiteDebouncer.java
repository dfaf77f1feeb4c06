package io.shipstream.failover.model.topology;

import io.shipstream.failover.model.GroupConfig;
import java.time.Duration;
import java.util.Objects;

/**
 * Turns the raw polls of one site into a debounced {@link SiteState}. Immutable: {@link #observe}
 * returns the next debouncer, so the watcher keeps one value per site and replaces it on every poll.
 *
 * <p>The rules, and why:
 * <ul>
 *   <li><b>READ_ONLY is believed at once.</b> A site that turned read-only is safe whatever happens
 *       next, and a fenced primary must be seen as such immediately.</li>
 *   <li><b>UNREACHABLE after {@code failureThreshold} failed polls in a row.</b> One lost poll is a
 *       network blip, not a reason to fail over. Until then the previous state stands.</li>
 *   <li><b>WRITABLE after {@code recoveryThreshold} writable polls in a row</b> when coming from
 *       READ_ONLY or UNREACHABLE, so a flapping old primary is not trusted by one answer. Until then
 *       the previous state stands (the matrix still refuses to fail over from a site that answers
 *       again, see {@link TopologyMatrix}).</li>
 *   <li><b>The first verdict of a fresh watcher is trusted.</b> From UNKNOWN, a writable poll gives
 *       WRITABLE at once: a watcher that just started (or took over the lease) must know the current
 *       primary without waiting, and nothing is lost by it, since a second writable site would be a
 *       real split brain that the matrix reports either way. From UNKNOWN, unreachable polls still
 *       need {@code failureThreshold}.</li>
 * </ul>
 *
 * <p>{@link #nextPollDelay} backs off polling a dead site: doubling from the poll that declared it
 * unreachable, up to {@link #MAX_BACKOFF_FACTOR} times {@code pollInterval}, back to normal on the
 * first answer.
 *
 * @param state the debounced state
 * @param unreachableStreak failed polls in a row, 0 once the site answers
 * @param writableStreak writable polls in a row, 0 after any other answer
 * @param latest the most recent probe; null before the first
 * @param lastReachable the most recent probe that got an answer; null if the site never answered
 */
public record SiteDebouncer(String site, int failureThreshold, int recoveryThreshold, SiteState state,
    int unreachableStreak, int writableStreak, Probe latest, Probe lastReachable) {
  /** The longest poll delay of a dead site, as a multiple of {@code pollInterval}. */
  public static final int MAX_BACKOFF_FACTOR = 8;

  /** Thresholds below 1 are refused. */
  public SiteDebouncer {
    Objects.requireNonNull(site, "site");
    Objects.requireNonNull(state, "state");
    if (failureThreshold < 1 || recoveryThreshold < 1) {
      throw new IllegalArgumentException("thresholds must be at least 1, got failureThreshold=" + failureThreshold
          + ", recoveryThreshold=" + recoveryThreshold);
    }
  }

  /** A debouncer for a site not polled yet (state UNKNOWN). Thresholds below 1 are refused. */
  public static SiteDebouncer start(String site, int failureThreshold, int recoveryThreshold) {
    return new SiteDebouncer(site, failureThreshold, recoveryThreshold, SiteState.UNKNOWN, 0, 0, null, null);
  }

  /** A debouncer with the group's {@code failureThreshold} and {@code recoveryThreshold}. */
  public static SiteDebouncer start(String site, GroupConfig config) {
    return start(site, config.failureThreshold(), config.recoveryThreshold());
  }

  /**
   * The debouncer after one more poll.
   *
   * @throws IllegalArgumentException if the probe is of another site (a wiring mistake in the caller)
   */
  public SiteDebouncer observe(Probe probe) {
    if (!site.equals(probe.site())) {
      throw new IllegalArgumentException("probe of site '" + probe.site() + "' fed to the debouncer of '" + site + "'");
    }
    return switch (probe.observed()) {
      case UNREACHABLE -> {
        int failed = saturatedIncrement(unreachableStreak);
        SiteState next = failed >= failureThreshold ? SiteState.UNREACHABLE : state;
        yield new SiteDebouncer(site, failureThreshold, recoveryThreshold, next, failed, 0, probe, lastReachable);
      }
      case READ_ONLY -> new SiteDebouncer(site, failureThreshold, recoveryThreshold, SiteState.READ_ONLY, 0, 0,
          probe, probe);
      default -> {
        int writable = saturatedIncrement(writableStreak);
        boolean trusted = state == SiteState.WRITABLE || state == SiteState.UNKNOWN || writable >= recoveryThreshold;
        yield new SiteDebouncer(site, failureThreshold, recoveryThreshold, trusted ? SiteState.WRITABLE : state, 0,
            writable, probe, probe);
      }
    };
  }

  /** What {@link TopologyMatrix.Input} wants for this site. */
  public SiteObservation observation() {
    return new SiteObservation(state, latest, lastReachable);
  }

  /**
   * How long to wait before polling this site again. {@code pollInterval} while the site answers or
   * is still being debounced; once it is UNREACHABLE, twice that after the declaring poll, then four
   * times, then {@link #MAX_BACKOFF_FACTOR} times, so a dead site does not cost a connection timeout
   * every interval. Any answer resets the streak and with it the delay.
   */
  public Duration nextPollDelay(Duration pollInterval) {
    if (state != SiteState.UNREACHABLE || unreachableStreak < failureThreshold) {
      return pollInterval;
    }
    int doublings =
        Math.min(unreachableStreak - failureThreshold + 1, Integer.numberOfTrailingZeros(MAX_BACKOFF_FACTOR));
    return pollInterval.multipliedBy(1L << doublings);
  }

  private static int saturatedIncrement(int n) {
    return n == Integer.MAX_VALUE ? n : n + 1;
  }

  @Override
  public String toString() {
    return "SiteDebouncer[" + site + " " + state + ", failed " + unreachableStreak + ", writable " + writableStreak
        + "]";
  }
}
