package io.shipstream.failover.watcher.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.watcher.topology.SidecarStatusReader.Fence;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** One Warning Event per sidecar fence, however often its /status is read. */
class SidecarFenceEventsTest {
  private static final Instant NOW = Instant.parse("2025-03-01T10:00:00Z");
  private static final GroupRef ORDERS = new GroupRef("shop", "orders");

  private final List<String> events = new CopyOnWriteArrayList<>();
  private final SidecarFenceEvents fences = new SidecarFenceEvents(
      (group, type, reason, message) -> events.add(type + " " + reason + ": " + message),
      Clock.fixed(NOW, ZoneOffset.UTC));

  @Test
  void eachFenceIsReportedOnceWithItsRuleAndReason() {
    Fence first = new Fence(NOW.minusSeconds(1), "rule1", "the active site is iad");
    fences.seen(ORDERS, "pdx", Optional.empty());
    fences.seen(ORDERS, "pdx", Optional.of(first));
    fences.seen(ORDERS, "pdx", Optional.of(first));
    fences.seen(ORDERS, "pdx", Optional.of(new Fence(NOW.plusSeconds(5), "stop", "stopped the server's process 7")));

    assertThat(events).containsExactly(
        "Warning SiteFencedBySidecar: its sidecar fenced the server of site 'pdx' (rule1) at 2025-03-01T09:59:59Z: "
            + "the active site is iad",
        "Warning SiteFencedBySidecar: its sidecar stopped the server of site 'pdx' at 2025-03-01T10:00:05Z: "
            + "stopped the server's process 7");
  }

  @Test
  void aFenceFromBeforeThisWatcherLedIsRememberedNotRepeated() {
    fences.seen(ORDERS, "pdx", Optional.of(new Fence(NOW.minus(SidecarFenceEvents.RECENT).minusSeconds(1), "rule2",
        "no answer")));
    assertThat(events).isEmpty();

    fences.seen(ORDERS, "pdx", Optional.of(new Fence(NOW, "rule1", "the active site is iad")));
    assertThat(events).singleElement().asString().contains("(rule1)");
  }
}
