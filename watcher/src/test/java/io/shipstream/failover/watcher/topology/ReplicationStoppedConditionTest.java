package io.shipstream.failover.watcher.topology;

import static io.shipstream.failover.watcher.topology.Fixtures.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.topology.GroupConditions;
import io.shipstream.failover.model.topology.Recovery;
import io.shipstream.failover.model.topology.Verdict;
import io.shipstream.failover.workflows.contract.Events;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 31 item 6: replication a human stopped is Degraded with its own reason and told by one
 * ReplicationStopped Warning per change of what is stopped, not one per pass; a upkeep that
 * starts afresh (watcher restart, leader change, spec edit) finds it told in the stored condition.
 */
class ReplicationStoppedConditionTest {
  private final Fixtures.RecordingEffects effects = new Fixtures.RecordingEffects();
  private final MysqlFailoverGroup group = group();

  private GroupUpkeep upkeep() {
    return new GroupUpkeep(effects,
        (ref, conditions, generation) ->
        group.setStatus(group.getStatus().withConditions(conditions, generation)),
        Clock.systemUTC(), null, null);
  }

  @Test
  void oneWarningPerChangeAndNoneAgainFromAnUpkeepThatStartsAfresh() {
    GroupUpkeep upkeep = upkeep();
    evaluate(upkeep, Map.of("iad", "IO"));
    evaluate(upkeep, Map.of("iad", "IO"));
    Condition degraded = degraded();
    assertThat(degraded.getStatus()).isEqualTo("True");
    assertThat(degraded.getReason()).isEqualTo(Events.REPLICATION_STOPPED.reason());
    assertThat(degraded.getMessage()).contains("site 'iad': replication IO thread stopped without an error");
    assertThat(effects.events()).singleElement().asString().startsWith("Warning ReplicationStopped: site 'iad'");

    evaluate(upkeep(), Map.of("iad", "IO"));
    assertThat(effects.events()).as("the stored condition says it was told").hasSize(1);

    evaluate(upkeep, Map.of("iad", "IO and SQL"));
    evaluate(upkeep, Map.of("iad", "IO and SQL"));
    assertThat(effects.events()).hasSize(2);
    assertThat(effects.events().get(1)).contains("IO and SQL threads stopped");

    evaluate(upkeep, Map.of());
    assertThat(degraded().getStatus()).isEqualTo("False");
    assertThat(effects.events()).hasSize(2);
  }

  private void evaluate(GroupUpkeep upkeep, Map<String, String> stopped) {
    List<GroupConditions.Problem> problems = stopped.isEmpty() ? List.of()
        : List.of(new GroupConditions.Problem(Events.REPLICATION_STOPPED.reason(),
            Recovery.stoppedByHandMessage(new java.util.TreeMap<>(stopped)), true));
    upkeep.conditions(ORDERS, group, new GroupConditions.Facts(null, "pdx", null, false, new Verdict.Healthy("pdx"),
        problems));
  }

  private Condition degraded() {
    return group.getStatus().conditions().stream().filter(c -> GroupConditions.DEGRADED.equals(c.getType()))
        .findFirst().orElseThrow();
  }

  private static MysqlFailoverGroup group() {
    MysqlFailoverGroup g = Fixtures.group(ORDERS, "pdx");
    g.getMetadata().setGeneration(1L);
    return g;
  }
}
