package io.shipstream.failover.watcher.topology;

import static io.shipstream.failover.watcher.topology.Fixtures.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.topology.GroupConditions;
import io.shipstream.failover.model.topology.GroupConditions.SearchAttributeCheck;
import io.shipstream.failover.model.topology.Verdict;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The group's SearchAttributesRegistered condition as the upkeep writes it from the namespace's
 * listing: False naming what is missing, True when all are there, Unknown when the server cannot
 * list them; one Event per change, never Ready=False nor Degraded for it; and its gauge.
 */
class SearchAttributesConditionTest {
  private final Fixtures.RecordingEffects effects = new Fixtures.RecordingEffects();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final TopologyMetrics metrics = new TopologyMetrics(registry);
  private final AtomicReference<SearchAttributeCheck> listing = new AtomicReference<>();
  private final MysqlFailoverGroup group = group();
  private final GroupUpkeep upkeep = new GroupUpkeep(effects,
      (ref, conditions, generation) ->
      group.setStatus(group.getStatus().withConditions(conditions, generation)),
      Clock.systemUTC(), null, metrics)
      .searchAttributes(listing::get);

  @Test
  void missingIsFalseWithTheNamesAndOneWarningAllThereIsTrueAndOneNormalEvent() {
    listing.set(SearchAttributeCheck.listed(Set.of("FailoverTarget")));
    evaluate();
    evaluate();
    Condition missing = condition();
    assertThat(missing.getStatus()).isEqualTo("False");
    assertThat(missing.getReason()).isEqualTo("Missing");
    assertThat(missing.getMessage()).contains("[FailoverTarget]");
    assertThat(condition("Ready").getStatus()).as("an observability gap, not a failover one").isEqualTo("True");
    assertThat(condition("Degraded").getStatus()).isEqualTo("False");
    assertThat(effects.events()).as("one Event, not one per evaluation").singleElement().asString()
        .startsWith("Warning SearchAttributesMissing: ").contains("[FailoverTarget]");
    assertThat(gauge("False")).isEqualTo(1.0);
    assertThat(gauge("True")).isZero();

    listing.set(SearchAttributeCheck.listed(Set.of()));
    evaluate();
    evaluate();
    assertThat(condition().getStatus()).isEqualTo("True");
    assertThat(condition().getReason()).isEqualTo("Registered");
    assertThat(effects.events()).hasSize(2);
    assertThat(effects.events().get(1)).startsWith("Normal SearchAttributesPresent: ");
    assertThat(gauge("True")).isEqualTo(1.0);
  }

  @Test
  void aServerThatCannotListThemIsUnknownWithoutAnEvent() {
    listing.set(SearchAttributeCheck.unknown("UNIMPLEMENTED: unknown service temporal.api.operatorservice.v1"));
    evaluate();
    assertThat(condition().getStatus()).isEqualTo("Unknown");
    assertThat(condition().getReason()).isEqualTo("CannotList");
    assertThat(condition().getMessage()).contains("UNIMPLEMENTED");
    assertThat(effects.events()).isEmpty();
    assertThat(gauge("Unknown")).isEqualTo(1.0);

    // All there from the start: True, and no news either.
    listing.set(SearchAttributeCheck.listed(Set.of()));
    evaluate();
    assertThat(condition().getStatus()).isEqualTo("True");
    assertThat(effects.events()).isEmpty();
  }

  private void evaluate() {
    upkeep.conditions(ORDERS, group, new GroupConditions.Facts(null, "iad", null, false, new Verdict.Healthy("iad"),
        List.of()));
  }

  private Condition condition() {
    return condition(GroupConditions.SEARCH_ATTRIBUTES);
  }

  private Condition condition(String type) {
    return group.getStatus().conditions().stream().filter(c -> type.equals(c.getType())).findFirst().orElseThrow();
  }

  private double gauge(String status) {
    return registry.get("bloodraven_group_condition").tags("group", ORDERS.toString(), "condition",
        GroupConditions.SEARCH_ATTRIBUTES, "status", status).gauge().value();
  }

  private static MysqlFailoverGroup group() {
    MysqlFailoverGroup g = Fixtures.group(ORDERS, "iad");
    g.getMetadata().setGeneration(1L);
    return g;
  }
}
