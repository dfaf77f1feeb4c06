package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The IT hook passes a group that fits the CRD and fails on one with a field the CRD lacks. */
class StoredGroupsFitTheCrdTest {
  @TempDir
  Path dir;

  @Test
  void failsNamingTheFieldARealApiServerWouldDrop() throws Exception {
    ObjectNode group = (ObjectNode) new ObjectMapper(new YAMLFactory())
        .readTree(Path.of("..", "examples", "orders.yaml").toFile());
    Files.writeString(dir.resolve("good.json"), group.toString());
    assertThatCode(() -> StoredGroupsFitTheCrd.check(dir)).doesNotThrowAnyException();

    ((ObjectNode) group.get("status")).putObject("emergencyFailover").put("phase", "Fencing").put("fencedBy",
        "sidecar");
    Files.writeString(dir.resolve("bad.json"), group.toString());
    assertThatThrownBy(() -> StoredGroupsFitTheCrd.check(dir))
        .hasMessageContaining("bad.json /status/emergencyFailover: property 'fencedBy'")
        .hasMessageNotContaining("good.json");
  }
}
