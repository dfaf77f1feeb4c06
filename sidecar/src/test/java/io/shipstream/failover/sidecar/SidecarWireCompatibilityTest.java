package io.shipstream.failover.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.shipstream.failover.sidecar.FencingDecision.Action;
import io.shipstream.failover.sidecar.FencingDecision.Boot;
import io.shipstream.failover.sidecar.FencingDecision.MysqlState;
import io.shipstream.failover.wire.Golden;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The sidecar's own writers and readers against every released answer ({@link Golden}): what it
 * answers on {@code /status}, {@code /tick} and {@code /peer/active-site} carries every field a
 * released worker, watcher or peer reads, and it reads every released watcher's and peer's answer.
 * This is what lets a sidecar of release N run beside a watcher, worker or peers of release N+1
 * and the reverse.
 */
class SidecarWireCompatibilityTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant AT = Instant.parse("2026-12-02T10:00:00.250Z");
  private static final ActiveSiteView VIEW = new ActiveSiteView("iad", AT, List.of("dfw"));

  @Test
  void itsStatusCarriesEveryFieldOfEveryReleasedStatus() throws Exception {
    for (String release : Golden.RELEASES) {
      assertThat(Golden.missing(Golden.tree(release, "sidecar-status.json"), JSON.readTree(everyFieldSet().toJson())))
          .as(release + " status fields HEAD's sidecar no longer writes").isEmpty();
      assertThat(Golden.missing(Golden.tree(release, "sidecar-status-booting.json"), JSON.readTree(booting().toJson())))
          .as(release + " fields of a booting sidecar's status HEAD no longer writes").isEmpty();
    }
  }

  @Test
  void itsPeerViewCarriesEveryFieldOfEveryReleasedPeerView() throws Exception {
    for (String release : Golden.RELEASES) {
      assertThat(Golden.missing(Golden.tree(release, "peer-active-site.json"), JSON.readTree(VIEW.toJson())))
          .as(release).isEmpty();
    }
  }

  @Test
  void itReadsEveryReleasedPeerView() {
    for (String release : Golden.RELEASES) {
      assertThat(ActiveSiteView.parse(Golden.bytes(release, "peer-active-site.json"))).as(release).isEqualTo(VIEW);
    }
  }

  @Test
  void itReadsEveryShapeOfEveryReleasedWatcherAnswer() {
    Timing timing = new Timing(Duration.ofSeconds(20), Duration.ofSeconds(5));
    for (String release : Golden.RELEASES) {
      WatcherAnswer active = WatcherAnswer.parse(Golden.bytes(release, "active-site.json"));
      assertThat(active).as(release).isEqualTo(new WatcherAnswer(Optional.of(VIEW), false, Optional.of(timing), false));

      WatcherAnswer fresh = WatcherAnswer.parse(Golden.bytes(release, "active-site-fresh.json"));
      assertThat(fresh).as(release).isEqualTo(new WatcherAnswer(Optional.of(VIEW), false, Optional.of(timing), true));

      WatcherAnswer never = WatcherAnswer.parse(Golden.bytes(release, "active-site-never-active.json"));
      assertThat(never).as(release).isEqualTo(new WatcherAnswer(Optional.empty(), true, Optional.of(timing), false));

      WatcherAnswer deleted = WatcherAnswer.parse(Golden.bytes(release, "active-site-deleted.json"));
      assertThat(deleted).as(release).isEqualTo(new WatcherAnswer(Optional.empty(), false, Optional.empty(), false,
          Optional.of(Instant.parse("2026-12-02T09:59:00Z")), Duration.ZERO));
    }
  }

  @Test
  void aWatcherAnswerWithFieldsOfALaterReleaseIsReadTheSame() throws Exception {
    for (String release : Golden.RELEASES) {
      for (String file : List.of("active-site.json", "active-site-fresh.json", "active-site-never-active.json",
          "active-site-deleted.json")) {
        JsonNode later = Golden.tree(release, file).deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) later).put("leaseRenewalHint", "soon").putObject("region")
            .put("name", "us-east");
        assertThat(WatcherAnswer.parse(JSON.writeValueAsBytes(later))).as(release + "/" + file)
            .isEqualTo(WatcherAnswer.parse(Golden.bytes(release, file)));
      }
    }
  }

  /** A status with every optional field set, as after a fence of a deleted group's sidecar. */
  private static SidecarStatus everyFieldSet() {
    return new SidecarStatus("dfw", "shop", "orders", Optional.of(VIEW), "watcher", false, Optional.of(AT),
        List.of(new SidecarStatus.Link("iad-sidecar:8080", Optional.of(AT), null),
            new SidecarStatus.Link("ord-sidecar:8080", Optional.empty(), "HttpConnectTimeoutException: timed out")),
        AT.plusSeconds(20), Duration.ofSeconds(20), Duration.ofSeconds(5), MysqlState.READ_ONLY, "mysql",
        Optional.of(true), Optional.of(4242L), Boot.DONE, Action.FENCE_OPERATOR, Optional.of(AT.minusSeconds(2)), 1234,
        Optional.of("operator"), true, Optional.of(AT), Duration.ofSeconds(30), Optional.of(Duration.ofMillis(850)),
        Optional.of(new SidecarStatus.LastFence(AT.minusSeconds(2), "operator", "a DBA fenced dfw")),
        Optional.of(AT.minusSeconds(1)));
  }

  /** A status before the first tick: nothing optional known. */
  private static SidecarStatus booting() {
    return new SidecarStatus("iad", "shop", "orders", Optional.empty(), "none", true, Optional.empty(), List.of(),
        AT.plusSeconds(20), Duration.ofSeconds(20), Duration.ofSeconds(5), MysqlState.WRITABLE, "mariadb",
        Optional.empty(), Optional.empty(), Boot.PENDING, Action.NONE, Optional.empty(), 0, Optional.empty(), true,
        Optional.empty(), Duration.ofSeconds(30), Optional.empty(), Optional.empty(), Optional.empty());
  }
}
