package io.shipstream.failover.model.crd;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.Phase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The example a user copies ({@code examples/orders.yaml}) survives the trip through our records. */
class MysqlFailoverGroupYamlTest {

  private static String example() throws IOException {
    try (InputStream in = MysqlFailoverGroupYamlTest.class.getResourceAsStream("/orders.yaml")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** Surefire runs in the module directory; the copy users see is examples/orders.yaml at the root. */
  @Test
  void theExampleUsersSeeIsTheOneTested() throws IOException {
    assertThat(Files.readString(Path.of("..", "examples", "orders.yaml"))).isEqualTo(example());
  }

  @Test
  void readsEveryFieldOfTheExample() throws IOException {
    MysqlFailoverGroup group = Serialization.unmarshal(example(), MysqlFailoverGroup.class);

    assertThat(group.getApiVersion()).isEqualTo(MysqlFailoverGroup.API_VERSION);
    assertThat(group.getMetadata().getNamespace()).isEqualTo("shop");
    MysqlFailoverGroupSpec spec = group.getSpec();
    assertThat(spec.sites()).extracting(SiteSpec::name).containsExactly("iad", "pdx", "dr");
    assertThat(spec.sites()).extracting(SiteSpec::isPrimaryCandidate).containsExactly(true, true, false);
    assertThat(spec.sites()).extracting(SiteSpec::flavor).containsExactly("mysql", "mysql", null);
    SiteSpec pdx = spec.sites().get(1);
    assertThat(pdx.mysql()).isEqualTo(new SiteSpec.Endpoint("orders-mysql-pdx.shop.svc", 3306));
    assertThat(pdx.taintNodeSelector()).containsEntry("topology.kubernetes.io/zone", "us-west-2a");
    assertThat(pdx.sidecar().url()).isEqualTo("http://orders-mysql-pdx.shop.svc:8089");
    assertThat(spec.dragonfly().plannedFailover().onSyncTimeout()).isEqualTo("proceed");

    PlannedFailoverStatus planned = group.getStatus().plannedFailover();
    assertThat(Phase.valueOf(planned.phase())).isEqualTo(Phase.Succeeded);
    assertThat(planned.transactionsLost()).isZero();
    assertThat(planned.durationSeconds()).isEqualTo(47.0);
    assertThat(planned.dragonfly().promotionMethod()).isEqualTo("REPLTAKEOVER");
    assertThat(group.getStatus().workflow().workflowId()).isEqualTo("mysqlfailovergroup/shop/orders");
    assertThat(group.getStatus().conditions()).extracting(c -> c.getType()).containsExactly("Ready", "Degraded");
  }

  @Test
  void theExampleIsAValidSpec() throws IOException {
    MysqlFailoverGroup group = Serialization.unmarshal(example(), MysqlFailoverGroup.class);

    GroupConfig config = GroupConfig.resolve(group.getSpec());

    assertThat(config.dragonflyEnabled()).isTrue();
    assertThat(config.maxLagWait()).isEqualTo(Duration.ofMinutes(5));
    assertThat(config.sitePriorities()).containsExactly("iad", "pdx", "dr");
  }

  @Test
  void writingItBackLosesNothing() throws IOException {
    String yaml = example();
    MysqlFailoverGroup group = Serialization.unmarshal(yaml, MysqlFailoverGroup.class);

    String written = Serialization.asYaml(group);

    JsonNode original = Serialization.unmarshal(yaml, JsonNode.class);
    JsonNode roundTripped = Serialization.unmarshal(written, JsonNode.class);
    assertThat(differences(original, roundTripped, "")).as("written back:%n%s", written).isEmpty();
    assertThat(Serialization.unmarshal(written, MysqlFailoverGroup.class).getStatus()).isEqualTo(group.getStatus());
  }

  /**
   * The paths at which two trees differ. Numbers compare by value, because YAML reads {@code 0} as
   * an int where our records write a long: the same number for a user.
   */
  private static List<String> differences(JsonNode expected, JsonNode actual, String path) {
    List<String> out = new ArrayList<>();
    if (expected.isNumber() && actual.isNumber()) {
      if (expected.decimalValue().compareTo(actual.decimalValue()) != 0) {
        out.add(path + ": " + expected + " became " + actual);
      }
    } else if (expected.isObject() && actual.isObject()) {
      Set<String> names = new TreeSet<>();
      expected.fieldNames().forEachRemaining(names::add);
      actual.fieldNames().forEachRemaining(names::add);
      for (String name : names) {
        JsonNode e = expected.get(name);
        JsonNode a = actual.get(name);
        if (e == null || a == null) {
          out.add(path + "." + name + (e == null ? " was added: " + a : " was lost: " + e));
        } else {
          out.addAll(differences(e, a, path + "." + name));
        }
      }
    } else if (expected.isArray() && actual.isArray() && expected.size() == actual.size()) {
      for (int i = 0; i < expected.size(); i++) {
        out.addAll(differences(expected.get(i), actual.get(i), path + "[" + i + "]"));
      }
    } else if (!expected.equals(actual)) {
      out.add(path + ": " + expected + " became " + actual);
    }
    return out;
  }
}
