package io.shipstream.failover.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The records of the wire against every released answer: each golden file is read by HEAD's
 * record for it, and that record written again still has every field the file had (so no field a
 * released reader needs is lost on the way through HEAD); a field HEAD does not know is ignored.
 * The processes' own writers and readers are checked against the same files in their modules
 * ({@code SidecarWireCompatibilityTest}, {@code ActiveSiteWireCompatibilityTest},
 * {@code SidecarClientWireCompatibilityTest}).
 */
class WireCompatibilityTest {
  private static final Instant OBSERVED = Instant.parse("2026-12-02T10:00:00.250Z");

  @Test
  void everyGoldenFileOfEveryReleaseIsListed() throws IOException {
    for (String release : Golden.RELEASES) {
      Path dir = Path.of("src", "test", "resources", "wire", release);
      Set<String> files;
      try (Stream<Path> listing = Files.list(dir)) {
        files = listing.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".json"))
            .collect(Collectors.toCollection(TreeSet::new));
      }
      assertThat(files).as(release).isEqualTo(new TreeSet<>(Golden.FILES.keySet()));
    }
  }

  @Test
  void headsRecordsReadEveryGoldenAnswerAndKeepEveryField() {
    for (String release : Golden.RELEASES) {
      for (Map.Entry<String, Class<?>> file : Golden.FILES.entrySet()) {
        Object record = Wire.read(Golden.bytes(release, file.getKey()), file.getValue());
        assertThat(Golden.missing(Golden.tree(release, file.getKey()), Wire.tree(record)))
            .as("fields of %s/%s that %s drops", release, file.getKey(), file.getValue().getSimpleName())
            .isEmpty();
      }
    }
  }

  /** The watcher writes these through the factories; each shape is the released one, byte for byte. */
  @Test
  void theActiveSiteFactoriesWriteTheReleasedShapes() {
    assertThat(Wire.write(ActiveSiteAnswer.active("iad", List.of("dfw"), OBSERVED).withTiming(20_000, 5_000)))
        .isEqualTo(new String(Golden.bytes("0.1.0", "active-site.json")));
    assertThat(Wire.write(ActiveSiteAnswer.active("iad", List.of("dfw"), OBSERVED).withTiming(20_000, 5_000)
        .markedFresh())).isEqualTo(new String(Golden.bytes("0.1.0", "active-site-fresh.json")));
    assertThat(Wire.write(ActiveSiteAnswer.neverActive(List.of(), OBSERVED).withTiming(20_000, 5_000)))
        .isEqualTo(new String(Golden.bytes("0.1.0", "active-site-never-active.json")));
    assertThat(Wire.write(ActiveSiteAnswer.deleted(Instant.parse("2026-12-02T09:59:00Z"), OBSERVED)))
        .isEqualTo(new String(Golden.bytes("0.1.0", "active-site-deleted.json")));
    assertThat(Wire.write(ActiveSiteAnswer.active("iad", null, OBSERVED)))
        .as("no fenced site, no timing: both left out")
        .isEqualTo("{\"activeSite\":\"iad\",\"observedAt\":\"" + OBSERVED + "\"}");
  }

  @Test
  void readersIgnoreFieldsTheyDoNotKnowAtEveryLevel() {
    for (String release : Golden.RELEASES) {
      for (Map.Entry<String, Class<?>> file : Golden.FILES.entrySet()) {
        JsonNode golden = Golden.tree(release, file.getKey());
        JsonNode extended = withUnknownFields(golden.deepCopy());
        assertThat(Wire.read(extended, file.getValue())).as("%s/%s with unknown fields", release, file.getKey())
            .isEqualTo(Wire.read(golden, file.getValue()));
      }
    }
  }

  @Test
  void aKnownFieldOfTheWrongTypeIsRefusedByName() {
    assertThatThrownBy(() -> Wire.read("{\"activeSite\":5,\"observedAt\":\"2026-12-02T10:00:00Z\"}", PeerView.class))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("activeSite is not text");
    assertThatThrownBy(() -> Wire.read("{\"activeSite\":\"iad\",\"fencedSites\":\"dr\"}", PeerView.class))
        .hasMessage("fencedSites is not an array");
    assertThatThrownBy(() -> Wire.read("{\"activeSite\":null,\"neverActive\":\"true\"}", ActiveSiteAnswer.class))
        .hasMessage("neverActive is not true or false");
    assertThatThrownBy(() -> Wire.read("{\"lastFence\":{\"at\":1}}", SidecarStatusAnswer.class))
        .hasMessage("lastFence.at is not text");
    assertThatThrownBy(() -> Wire.read("[]", PeerView.class)).hasMessage("expected a JSON object");
    assertThatThrownBy(() -> Wire.read("not json", PeerView.class)).hasMessage("not JSON");
  }

  /** A timing that is not positive whole milliseconds is no timing, not an unreadable answer. */
  @Test
  void aTimingThatIsNotWholeMillisecondsIsNone() {
    for (String value : new String[] {"\"20s\"", "0", "-5", "2.5", "{}", "[1]", "null", "99999999999999999999"}) {
      ActiveSiteAnswer answer = Wire.read("{\"activeSite\":\"iad\",\"observedAt\":\"2026-12-02T10:00:00Z\","
          + "\"leaseTimeoutMillis\":" + value + ",\"peerCheckIntervalMillis\":5000}", ActiveSiteAnswer.class);
      assertThat(answer.leaseTimeoutMillis()).as(value).isNull();
      assertThat(answer.peerCheckIntervalMillis()).as("the field after " + value).isEqualTo(5_000L);
    }
  }

  /** An unknown field beside every known one, in every object of the tree. */
  private static JsonNode withUnknownFields(JsonNode node) {
    if (node.isObject()) {
      ObjectNode object = (ObjectNode) node;
      object.fieldNames().forEachRemaining(name -> withUnknownFields(object.get(name)));
      object.putObject("fieldOfALaterRelease").put("nested", 1).putArray("list").add("x");
    } else if (node.isArray()) {
      node.forEach(WireCompatibilityTest::withUnknownFields);
    }
    return node;
  }
}
