package io.shipstream.failover.activities.sidecar;

import io.shipstream.failover.activities.mysql.Heartbeat;
import io.shipstream.failover.kube.SidecarCredentials;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.runtime.ControlPlaneTls;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.workflows.activities.SidecarActivities;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks an old primary's sidecar to confirm that its server takes no writes. The first request is
 * {@code POST /tick}, so a sidecar that has not ticked since the naming does not make the failover
 * wait for its next scheduled tick; then {@code GET /status} every {@link #POLL_INTERVAL}, with a
 * fresh tick asked for every {@link #TICK_INTERVAL} (the sidecar rate-limits them anyway). Both
 * carry the group's shared token: a sidecar's status shows its peers and its lease, and a tick can
 * fence, so neither is open to anyone who can reach the port.
 */
public final class SidecarActivitiesImpl implements SidecarActivities {
  static final Duration POLL_INTERVAL = Duration.ofMillis(200);
  static final Duration TICK_INTERVAL = Duration.ofSeconds(1);
  private static final Logger log = LoggerFactory.getLogger(SidecarActivitiesImpl.class);

  private final SidecarClient client;
  private final Clock clock;
  private final Heartbeat heartbeat;
  private final LeaseRenewers renewers;

  /** @param token the sidecars' shared token; null sends none, and every answer says so */
  public SidecarActivitiesImpl(Clock clock, SharedToken token) {
    this(clock, token, Heartbeat.temporal());
  }

  /**
   * Asks each group's sidecars with that group's credential ({@code credentials}, for the group
   * whose workflow runs the activity; {@code shared} for a group that names none), over https
   * verified with {@code tls}'s CA.
   */
  public SidecarActivitiesImpl(Clock clock, SharedToken shared, SidecarCredentials credentials, ControlPlaneTls tls) {
    this(clock, shared, credentials, tls, WatcherReplicas.UNKNOWN);
  }

  /** As above, reading the watcher's replicas at {@code watchers} for {@link #lastRenewal}. */
  public SidecarActivitiesImpl(Clock clock, SharedToken shared, SidecarCredentials credentials, ControlPlaneTls tls,
      WatcherReplicas watchers) {
    this(clock, new SidecarClient(() -> groupToken(credentials, shared), tls), Heartbeat.temporal(), watchers);
  }

  SidecarActivitiesImpl(Clock clock, SharedToken token, Heartbeat heartbeat) {
    this(clock, token, heartbeat, WatcherReplicas.UNKNOWN);
  }

  SidecarActivitiesImpl(Clock clock, SharedToken token, Heartbeat heartbeat, WatcherReplicas watchers) {
    this(clock, new SidecarClient(token), heartbeat, watchers);
  }

  private SidecarActivitiesImpl(Clock clock, SidecarClient client, Heartbeat heartbeat, WatcherReplicas watchers) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.heartbeat = Objects.requireNonNull(heartbeat, "heartbeat");
    this.client = client;
    this.renewers = new LeaseRenewers(client.statusClient(), watchers, clock, heartbeat);
  }

  /**
   * The credential of the group whose workflow runs this activity: its id is the group's
   * ({@link GroupRef#workflowId}), and the group's spec names the Secret.
   */
  private static SharedToken groupToken(SidecarCredentials credentials, SharedToken shared) {
    String id = io.temporal.activity.Activity.getExecutionContext().getInfo().getWorkflowId();
    GroupRef group = GroupRef.fromWorkflowId(id);
    if (group == null) {
      return shared;
    }
    SidecarCredentials.Credential credential = credentials.ofGroup(group);
    if (credential instanceof SidecarCredentials.Own own) {
      return SharedToken.of(own.value());
    }
    if (credential instanceof SidecarCredentials.Unavailable missing) {
      throw new SidecarCredentials.UnavailableException(missing.reason());
    }
    return shared;
  }

  @Override
  public Confirmation confirmFenced(String sidecarUrl, String site, String activeSite, Instant deadline) {
    URI base = URI.create(sidecarUrl);
    Instant started = clock.instant();
    Snapshot last = null;
    String problem = null;
    Instant nextTick = started;
    while (true) {
      Instant now = clock.instant();
      try {
        if (!now.isBefore(nextTick)) {
          last = client.tick(base);
          nextTick = now.plus(TICK_INTERVAL);
        } else {
          last = client.status(base);
        }
        problem = null;
      } catch (HttpTimeoutException e) {
        problem = "no answer within " + SidecarClient.REQUEST_TIMEOUT.toMillis() + " ms";
      } catch (SidecarClient.Refused e) {
        problem = e.getMessage();
      } catch (SidecarCredentials.UnavailableException e) {
        problem = "the group's sidecar credential cannot be read: " + e.getMessage();
      } catch (IOException | IllegalArgumentException e) {
        problem = SidecarClient.problem(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return unconfirmed(last, "interrupted", started);
      }
      if (last != null && problem == null && last.provesFenced(site, activeSite)) {
        long waited = Duration.between(started, clock.instant()).toMillis();
        log.info("the sidecar of {} confirms it takes no writes (MySQL {}, active site {}) after {} ms", site,
            last.mysql(), last.activeSite(), waited);
        return new Confirmation(true, last, null, waited);
      }
      heartbeat.beat(problem != null ? problem : String.valueOf(last));
      Instant after = clock.instant();
      if (!after.plus(POLL_INTERVAL).isBefore(deadline)) {
        return unconfirmed(last, problem, started);
      }
      try {
        Thread.sleep(POLL_INTERVAL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return unconfirmed(last, "interrupted", started);
      }
    }
  }

  @Override
  public Renewal lastRenewal(RenewalAsk ask) {
    SharedToken token;
    try {
      token = client.token();
    } catch (SidecarCredentials.UnavailableException e) {
      return Renewal.unknown("the group's sidecar credential cannot be read: " + e.getMessage(), 0);
    }
    try {
      Renewal renewal = renewers.lastRenewal(ask, token);
      log.info("the lease of {}'s sidecar: {} ({} renewer(s) read)", ask.oldSite(),
          renewal.anchored() ? "last renewed " + renewal.agoMillis() + " ms ago by " + renewal.basis()
              : "last renewal not known: " + renewal.basis(),
          renewal.renewersRead());
      return renewal;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Renewal.unknown("interrupted", 0);
    }
  }

  private Confirmation unconfirmed(Snapshot last, String problem, Instant started) {
    return new Confirmation(false, last, problem, Duration.between(started, clock.instant()).toMillis());
  }
}
