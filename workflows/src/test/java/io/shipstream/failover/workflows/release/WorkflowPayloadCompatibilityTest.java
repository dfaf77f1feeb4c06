package io.shipstream.failover.workflows.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.DynamicContainer.dynamicContainer;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import io.shipstream.failover.wire.Golden;
import io.shipstream.failover.workflows.PayloadConverter;
import io.shipstream.failover.workflows.PlannedFailoverWorkflow;
import io.shipstream.failover.workflows.activities.MysqlActivities;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.common.converter.EncodingKeys;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * What replay does not cover: the payloads that cross between processes of different releases in a
 * rolling upgrade (a watcher of one release starts, signals and queries the workflows a worker of
 * another runs; an activity may run on another worker than the workflow task that scheduled it).
 * Every release's golden payloads ({@code histories/<version>/payloads/}, {@link ReleasePayloads})
 * decode with HEAD's types through the worker's and the watcher's data converter, and HEAD encodes
 * what it decoded again with every field the release wrote, unless {@value ReleasePayloads#DROPPED}
 * says why one is dropped. That HEAD still registers every type name of a release is {@link
 * ReleasedHistoriesReplayTest}'s check ({@code types.txt}); that the files are the release's, byte
 * for byte, is its manifest and release-commit check, which covers {@code payloads/} too.
 */
class WorkflowPayloadCompatibilityTest {
  @TempDir
  Path tmp;

  @TestFactory
  Stream<DynamicNode> everyReleasesPayloadsDecodeWithHeadsTypes() throws IOException {
    List<Path> releases = ReleasedHistories.releaseDirs(ReleasedHistories.root());
    if (releases.isEmpty()) {
      return Stream.of(dynamicTest("no release yet", () -> Assumptions.abort(
          "no release directory under " + ReleasedHistories.root() + ": nothing is released yet")));
    }
    Map<String, List<String>> dropped =
        ReleasePayloads.dropped(ReleasedHistories.root().resolve(ReleasePayloads.DROPPED));
    SortedMap<String, Method> head = ReleasePayloads.head();
    List<DynamicNode> nodes = new ArrayList<>();
    for (Path release : releases) {
      String version = release.getFileName().toString();
      Path dir = release.resolve(ReleasePayloads.DIR);
      List<DynamicNode> checks = new ArrayList<>();
      checks.add(dynamicTest("has its payloads", () -> assertThat(Files.isDirectory(dir)
          ? ReleasePayloads.files(dir) : List.of()).as("%s/%s (scripts/cut-release-histories writes them)", version,
              ReleasePayloads.DIR)
          .isNotEmpty()));
      if (Files.isDirectory(dir)) {
        for (Path file : ReleasePayloads.files(dir)) {
          String name = file.getFileName().toString();
          List<String> marked = dropped.getOrDefault(version + "/" + name, List.of());
          checks.add(dynamicTest("decodes " + name, () -> assertThat(ReleasePayloads.problems(file, head, marked))
              .as("%s/%s/%s read by HEAD", version, ReleasePayloads.DIR, name).isEmpty()));
        }
      }
      nodes.add(dynamicContainer(version, checks));
    }
    return nodes.stream();
  }

  /** The released fields marked as dropped name files of releases that exist: a typo marks nothing. */
  @Test
  void everyDroppedFieldNamesAReleasedPayload() throws IOException {
    for (String key : ReleasePayloads.dropped(ReleasedHistories.root().resolve(ReleasePayloads.DROPPED)).keySet()) {
      String[] parts = key.split("/", 2);
      assertThat(ReleasedHistories.root().resolve(parts[0]).resolve(ReleasePayloads.DIR).resolve(parts[1]))
          .as("%s names %s", ReleasePayloads.DROPPED, key).isRegularFile();
    }
  }

  /**
   * What the next release's files will be, in every build: HEAD records a payload of every slot it
   * registers (so a payload type the recorder cannot build fails now, not at release time), reads
   * each back losing nothing, and each holds every field of its type.
   */
  @Test
  void headRecordsEverySlotAndReadsItBack() throws IOException {
    SortedMap<String, Method> head = ReleasePayloads.head();
    List<Path> written = ReleasePayloads.write(tmp, head);
    assertThat(written).hasSize(ReleasePayloads.slots(head).size());
    assertThat(tmp.resolve("workflow-PlannedFailover.arg0.json")).content()
        .contains("\"group\":{\"namespace\":").contains("\"annotation\":");
    assertThat(tmp).isDirectoryContaining("glob:**/workflow-EmergencyFailover.arg0.json")
        .isDirectoryContaining("glob:**/workflow-EmergencyFailover.result.json")
        .isDirectoryContaining("glob:**/workflow-DryRun.arg0.json")
        .isDirectoryContaining("glob:**/signal-PlannedFailover-cancel.arg0.json")
        .isDirectoryContaining("glob:**/signal-PlannedFailover-sourceDied.arg0.json")
        .isDirectoryContaining("glob:**/query-EmergencyFailover-status.result.json")
        .isDirectoryContaining("glob:**/activity-Fence.arg0.json")
        .isDirectoryContaining("glob:**/activity-Fence.result.json")
        .isDirectoryContaining("glob:**/activity-SidecarConfirmFenced.arg3.json")
        .isDirectoryNotContaining("glob:**/activity-Unfence.result.json");
    for (Path file : written) {
      assertThat(ReleasePayloads.problems(file, head, List.of())).as("%s", file.getFileName()).isEmpty();
    }
    // Every field set, nested ones too: the emergency request's spec reaches a site's endpoint.
    assertThat(ReleasePayloads.fieldPaths(Files.readAllBytes(tmp.resolve("workflow-EmergencyFailover.arg0.json"))))
        .contains("spec.sites[].mysql.host", "spec.sites[].mysql.port", "forcedPromotion", "siteGtids", "detectedAt",
            "primaryLastPolledAt");
    assertThatThrownBy(() -> ReleasePayloads.write(tmp, head)).as("a payloads directory is written once")
        .hasMessageContaining("never re-recorded");
  }

  /**
   * Readers ignore unknown fields: every payload HEAD registers, with a field no release wrote added
   * to it and to each record nested in it, decodes through the data converter to what it decodes to
   * without them. A later release's writer may add fields; this release reads on.
   */
  @Test
  void theDataConverterIgnoresAFieldOfALaterRelease() throws IOException {
    int records = 0;
    for (ReleasePayloads.Slot slot : ReleasePayloads.slots(ReleasePayloads.head())) {
      byte[] data = ReleasePayloads.encode(slot);
      Object decoded = ReleasePayloads.decodeWithUnknownFields(data, slot);
      assertThat(new String(ReleasePayloads.encodeValue(decoded))).as("%s with unknown fields", slot.file())
          .isEqualTo(new String(data));
      if (slot.rawType().isRecord()) {
        records++;
        assertThat(Golden.fieldPaths(ReleasePayloads.withUnknownFields(new ObjectMapper().readTree(data),
            slot.type())))
            .as("%s had a field added", slot.file()).contains(ReleasePayloads.UNKNOWN);
      }
    }
    assertThat(records).as("record payloads checked").isGreaterThan(20);
  }

  /**
   * Why the worker and the watcher do not use the SDK's default converter: it fails on a field it
   * does not know, so a field added to any payload record would fail every reader of the release
   * before it. Both build their client with {@link PayloadConverter#clientOptions}.
   */
  @Test
  void theSdksDefaultConverterWouldRefuseAFieldOfALaterReleaseOursIgnoresIt() throws IOException {
    ReleasePayloads.Slot start = ReleasePayloads.slots(ReleasePayloads.head()).stream()
        .filter(s -> s.file().equals("workflow-PlannedFailover.arg0.json")).findFirst().orElseThrow();
    ObjectMapper json = new ObjectMapper();
    byte[] later =
        json.writeValueAsBytes(ReleasePayloads.withUnknownFields(json.readTree(ReleasePayloads.encode(start)),
            start.type()));
    Payload payload = Payload.newBuilder().putMetadata(EncodingKeys.METADATA_ENCODING_KEY,
        ByteString.copyFromUtf8("json/plain")).setData(ByteString.copyFrom(later)).build();
    assertThatThrownBy(() -> DefaultDataConverter.STANDARD_INSTANCE.fromPayload(payload, start.rawType(), start.type()))
        .hasMessageContaining("Unrecognized field \"" + ReleasePayloads.UNKNOWN + "\"");
    assertThat(PayloadConverter.INSTANCE.fromPayload(payload, start.rawType(), start.type()))
        .isInstanceOf(PlannedFailoverWorkflow.Request.class);
    assertThat(PayloadConverter.clientOptions("default").build().getDataConverter())
        .isSameAs(PayloadConverter.INSTANCE);
    assertThat(ReleasePayloads.CONVERTER).isSameAs(PayloadConverter.INSTANCE);
  }

  // --- the check catches what it is there for ----------------------------------------------------

  /** A released writer's record, and HEAD's: HEAD dropped {@code proof}, and an argument. */
  record FencedV1(String site, String gtid, Proof proof) {}

  record Proof(String by, long at) {}

  record FencedV2(String site, String gtid) {}

  interface Released {
    FencedV1 fence(FencedV1 request, String reason);
  }

  interface Head {
    FencedV2 fence(FencedV2 request);
  }

  private static SortedMap<String, Method> only(Class<?> iface) {
    SortedMap<String, Method> methods = new TreeMap<>();
    methods.put("activity TestFence", iface.getDeclaredMethods()[0]);
    return methods;
  }

  @Test
  void aFieldHeadsTypeNoLongerHasIsLostUnlessMarked() throws IOException {
    List<Path> released = ReleasePayloads.write(tmp, only(Released.class));
    assertThat(released).extracting(p -> p.getFileName().toString()).containsExactly(
        "activity-TestFence.arg0.json", "activity-TestFence.arg1.json", "activity-TestFence.result.json");
    Path argument = tmp.resolve("activity-TestFence.arg0.json");
    assertThat(ReleasePayloads.problems(argument, only(Released.class), List.of())).isEmpty();
    assertThat(ReleasePayloads.problems(argument, only(Head.class), List.of())).containsExactly(
        lost("arg0", "proof"), lost("arg0", "proof.at"), lost("arg0", "proof.by"));
    assertThat(ReleasePayloads.problems(tmp.resolve("activity-TestFence.result.json"), only(Head.class),
        List.of("proof", "proof.at", "proof.by"))).as("marked as dropped, with its reason").isEmpty();
    assertThat(ReleasePayloads.problems(argument, only(Released.class), List.of("gtid"))).containsExactly(
        "activity-TestFence.arg0.json: dropped-payload-fields.txt names gtid, which HEAD does not lose: remove that"
            + " line");
    assertThat(ReleasePayloads.problems(tmp.resolve("activity-TestFence.arg1.json"), only(Head.class), List.of()))
        .containsExactly("activity-TestFence.arg1.json: HEAD's activity TestFence takes 1 argument(s): argument 1 a"
            + " caller of the release sends is dropped");
  }

  private static String lost(String slot, String path) {
    return "activity-TestFence." + slot + ".json: HEAD's " + FencedV2.class.getTypeName() + " loses " + path
        + " (decoded, then encoded again without it): a reader of the release needs it; keep the field, or name it"
        + " in dropped-payload-fields.txt with why dropping it is safe";
  }

  /** A field renamed in HEAD's type: HEAD decodes the old payload (it ignores the old name) and loses it. */
  @Test
  void aRenamedFieldIsCaughtAsLost() throws IOException {
    SortedMap<String, Method> head = ReleasePayloads.head();
    List<Path> written = ReleasePayloads.write(tmp, head);
    Path request = written.stream().filter(p -> p.getFileName().toString().equals("workflow-PlannedFailover.arg0.json"))
        .findFirst().orElseThrow();
    // As if 0.1.0 had called the field annotationValue, and HEAD annotation.
    Files.writeString(request, Files.readString(request).replace("\"annotation\":", "\"annotationValue\":"));
    assertThat(ReleasePayloads.problems(request, head, List.of())).singleElement().asString()
        .startsWith("workflow-PlannedFailover.arg0.json: HEAD's "
            + "io.shipstream.failover.workflows.PlannedFailoverWorkflow$Request loses annotationValue ");
  }

  @Test
  void aPayloadHeadCannotDecodeOrASlotItNoLongerHasIsNamed() throws IOException {
    SortedMap<String, Method> head = ReleasePayloads.head();
    Path fence = Files.writeString(tmp.resolve("activity-Fence.result.json"), "{\"appConnections\":\"many\"}");
    assertThat(ReleasePayloads.problems(fence, head, List.of())).singleElement().asString()
        .startsWith("activity-Fence.result.json: HEAD's " + MysqlActivities.FenceResult.class.getTypeName()
            + " does not decode it: ");
    Path unfence = Files.writeString(tmp.resolve("activity-Unfence.result.json"), "{}");
    assertThat(ReleasePayloads.problems(unfence, head, List.of())).containsExactly("activity-Unfence.result.json:"
        + " HEAD's activity Unfence returns nothing: a caller of the release reads a result");
    Path gone = Files.writeString(tmp.resolve("activity-MysqlGone.arg0.json"), "{}");
    assertThat(ReleasePayloads.problems(gone, head, List.of())).containsExactly("activity-MysqlGone.arg0.json: HEAD"
        + " registers no activity MysqlGone (types.txt's check names it too): nothing decodes what a caller of the"
        + " release sends");
  }

  @Test
  void aDroppedFieldNeedsItsReason() throws IOException {
    Path file = Files.writeString(tmp.resolve(ReleasePayloads.DROPPED), """
        # a comment
        0.1.0 activity-MysqlFence.result.json fencedAt HEAD reads the time from the status instead
        0.1.0 activity-MysqlFence.result.json appConnections counted by the drain since 0.2.0
        """);
    assertThat(ReleasePayloads.dropped(file)).containsExactly(
        Map.entry("0.1.0/activity-MysqlFence.result.json", List.of("fencedAt", "appConnections")));
    Files.writeString(file, "0.1.0 activity-MysqlFence.result.json fencedAt\n");
    assertThatThrownBy(() -> ReleasePayloads.dropped(file)).hasMessageContaining("why dropping it is safe");
  }
}
