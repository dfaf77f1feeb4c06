package io.shipstream.failover.activities.sidecar;

import io.shipstream.failover.activities.mysql.Heartbeat;
import io.shipstream.failover.model.topology.LastRenewal;
import io.shipstream.failover.model.topology.LastRenewal.Reading;
import io.shipstream.failover.runtime.SharedToken;
import io.shipstream.failover.wire.AnswersReply;
import io.shipstream.failover.wire.SidecarStatusClient;
import io.shipstream.failover.wire.Wire;
import io.shipstream.failover.workflows.activities.SidecarActivities.Renewal;
import io.shipstream.failover.workflows.activities.SidecarActivities.RenewalAsk;
import java.io.IOException;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Reads every process that renews the old primary's lease, its peers (the other sites' sidecars)
 * and the watcher's replicas, and asks {@link LastRenewal} when it was last renewed. A renewer that
 * cannot be read, or still answers with a view that does not fence the old primary, leaves no
 * anchor; the read is taken again every {@link #INTERVAL} until there is one or the ask's deadline,
 * since the renewers take up the new view only within a tick of the naming.
 *
 * <p>Which processes are every renewer rests on two things said where they are configured: a
 * sidecar's PEER_URLS name only the sidecars of its group's other sites (their {@code
 * spec.sites[].sidecar.url}), and the worker's WATCHER_POD_SELECTOR selects every watcher pod.
 */
final class LeaseRenewers {
  /** Between two reads. */
  static final Duration INTERVAL = Duration.ofMillis(500);
  /** How far the watchers' clocks, which stamp the views, may be from the workflow's. */
  static final Duration SKEW = Duration.ofSeconds(2);

  private final SidecarStatusClient peers;
  private final WatcherReplicas watchers;
  private final Clock clock;
  private final Heartbeat heartbeat;

  LeaseRenewers(SidecarStatusClient peers, WatcherReplicas watchers, Clock clock, Heartbeat heartbeat) {
    this.peers = Objects.requireNonNull(peers, "peers");
    this.watchers = Objects.requireNonNull(watchers, "watchers");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.heartbeat = Objects.requireNonNull(heartbeat, "heartbeat");
  }

  /** As {@code SidecarActivities#lastRenewal}, each request carrying {@code token} (null: none). */
  Renewal lastRenewal(RenewalAsk ask, SharedToken token) throws InterruptedException {
    String authorization = token == null ? null : token.authorization();
    while (true) {
      List<Reading> readings = readAll(ask, authorization);
      LastRenewal.Outcome outcome = LastRenewal.of(ask.oldSite(), ask.target(), ask.namedAt(), SKEW, readings);
      if (outcome instanceof LastRenewal.Anchored anchored) {
        Duration ago = Duration.between(anchored.at(), clock.instant());
        return new Renewal(ago.isNegative() ? 0 : ago.toMillis(), anchored.renewer(), anchored.basis(),
            readings.size());
      }
      String why = ((LastRenewal.Unknown) outcome).why();
      heartbeat.beat(why);
      if (!clock.instant().plus(INTERVAL).isBefore(ask.deadline())) {
        return Renewal.unknown(why, readings.size());
      }
      Thread.sleep(INTERVAL.toMillis());
    }
  }

  private List<Reading> readAll(RenewalAsk ask, String authorization) throws InterruptedException {
    List<Reading> readings = new ArrayList<>();
    String site = encode(ask.oldSite());
    for (String peer : ask.peerUrls()) {
      readings.add(read(peers, "the sidecar at " + peer, peer, "/answers?site=" + site, ask.oldSite(), authorization));
    }
    WatcherReplicas.Listing listing;
    try {
      listing = watchers.list();
    } catch (IOException e) {
      readings.add(Reading.unread("the watcher's replicas", e.getMessage()));
      return readings;
    }
    if (listing.replicas().isEmpty()) {
      readings.add(Reading.unread("the watcher's replicas", "none is listed"));
      return readings;
    }
    SidecarStatusClient client = new SidecarStatusClient(listing.client(), SidecarClient.REQUEST_TIMEOUT);
    String query = "/answers?namespace=" + encode(ask.namespace()) + "&group=" + encode(ask.group()) + "&site=" + site;
    for (WatcherReplicas.Replica replica : listing.replicas()) {
      readings.add(read(client, "watcher " + replica.name(), replica.baseUrl(), query, ask.oldSite(), authorization));
    }
    return readings;
  }

  private Reading read(SidecarStatusClient client, String renewer, String baseUrl, String path, String site,
      String authorization) throws InterruptedException {
    try {
      HttpResponse<String> response = client.send(baseUrl, path, false, authorization);
      Instant receivedAt = clock.instant();
      return reading(renewer, Wire.read(SidecarStatusClient.body(response), AnswersReply.class), site, receivedAt);
    } catch (IOException | RuntimeException e) {
      return Reading.unread(renewer, SidecarClient.problem(e));
    }
  }

  /**
   * A reply as {@link LastRenewal} reads it. What is missing or unreadable counts against an
   * anchor: a missing completeness as incomplete, a view without a readable time as none (one that
   * may renew), an answer without its age as given at the receipt.
   */
  static Reading reading(String renewer, AnswersReply reply, String site, Instant receivedAt) {
    if (reply == null || !site.equals(reply.site())) {
      return Reading.unread(renewer,
          "it answered about site " + (reply == null ? null : reply.site()) + ", not " + site);
    }
    if (reply.upMillis() == null || reply.upMillis() < 0) {
      return Reading.unread(renewer, "its answer does not say how long it has run");
    }
    return new Reading(renewer, null, receivedAt, Duration.ofMillis(reply.upMillis()), view(reply.view()),
        answers(reply.answers()), Boolean.TRUE.equals(reply.answersComplete()), answers(reply.unnamed()),
        Boolean.TRUE.equals(reply.unnamedComplete()));
  }

  private static List<LastRenewal.Answer> answers(List<AnswersReply.Answer> answers) {
    List<LastRenewal.Answer> out = new ArrayList<>();
    for (AnswersReply.Answer a : answers) {
      long ago = a.agoMillis() == null || a.agoMillis() < 0 ? 0 : a.agoMillis();
      out.add(new LastRenewal.Answer(Duration.ofMillis(ago), view(a)));
    }
    return out;
  }

  private static LastRenewal.View view(AnswersReply.Answer a) {
    if (a == null || a.activeSite() == null || a.observedAt() == null) {
      return null;
    }
    try {
      return new LastRenewal.View(a.activeSite(), Instant.parse(a.observedAt()));
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }
}
