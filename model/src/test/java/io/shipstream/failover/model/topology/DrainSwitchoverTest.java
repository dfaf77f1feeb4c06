package io.shipstream.failover.model.topology;

import static io.shipstream.failover.model.topology.Fixture.T0;
import static io.shipstream.failover.model.topology.Fixture.candidate;
import static io.shipstream.failover.model.topology.Fixture.down;
import static io.shipstream.failover.model.topology.Fixture.drOnly;
import static io.shipstream.failover.model.topology.Fixture.replica;
import static io.shipstream.failover.model.topology.Fixture.stoppedReplica;
import static io.shipstream.failover.model.topology.Fixture.writable;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.DrainSwitchover.Held;
import io.shipstream.failover.model.topology.DrainSwitchover.Impossible;
import io.shipstream.failover.model.topology.DrainSwitchover.Input;
import io.shipstream.failover.model.topology.DrainSwitchover.Nothing;
import io.shipstream.failover.model.topology.DrainSwitchover.Outcome;
import io.shipstream.failover.model.topology.DrainSwitchover.Request;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The rows of {@link DrainSwitchover}'s table, one case per row and per ranking rule. */
class DrainSwitchoverTest {
  private static final String IAD = "0-1-100";
  private static final List<SiteSpec> SITES = List.of(candidate("iad"), candidate("pdx"), candidate("sfo"),
      drOnly("dr"));
  private static final GroupConfig OPTED_IN = config("switchover");
  private static final GroupConfig NOT_OPTED_IN = config(null);
  private static final List<String> CORDONED = List.of("node-iad-1");

  private static GroupConfig config(String onActiveNodeDrain) {
    return GroupConfig.resolve(new MysqlFailoverGroupSpec(SITES, null, null, null, null, null, null,
        new MysqlFailoverGroupSpec.PlannedFailoverSpec(null, null, null, onActiveNodeDrain), null, null, null, null));
  }

  private static Map<String, SiteObservation> sites(SiteObservation... observations) {
    Map<String, SiteObservation> out = new LinkedHashMap<>();
    Stream.of(observations).forEach(o -> out.put(o.latest().site(), o));
    return out;
  }

  private static final Map<String, SiteObservation> HEALTHY = sites(writable("iad", IAD), replica("pdx", IAD),
      replica("sfo", "0-1-90"), replica("dr", IAD));

  private static SiteObservation behind(String site, String gtid, long seconds) {
    Probe p = new Probe(site, true, true, gtid, null, true, seconds, null, T0);
    return new SiteObservation(SiteState.READ_ONLY, p, p);
  }

  static Stream<Arguments> rows() {
    return Stream.of(
        Arguments.of("1: not opted in", new Input(NOT_OPTED_IN, "iad", CORDONED, HEALTHY, false, false, false),
            Nothing.class, null, null),
        Arguments.of("1: no active site yet", new Input(OPTED_IN, null, CORDONED, HEALTHY, false, false, false),
            Nothing.class, null, null),
        Arguments.of("2: nothing cordoned", new Input(OPTED_IN, "iad", List.of(), HEALTHY, false, false, false),
            Nothing.class, null, null),
        Arguments.of("3: a request is present", new Input(OPTED_IN, "iad", CORDONED, HEALTHY, true, false, false),
            Nothing.class, null, null),
        Arguments.of("3: a failover runs", new Input(OPTED_IN, "iad", CORDONED, HEALTHY, false, true, false),
            Nothing.class, null, null),
        Arguments.of("4: no candidate replicates (dr-only never counts)", new Input(OPTED_IN, "iad", CORDONED,
            sites(writable("iad", IAD), down("pdx", IAD), stoppedReplica("sfo", IAD), replica("dr", IAD)),
            false, false, false), Impossible.class, null,
            "pdx did not answer its latest poll; sfo does not replicate"),
        Arguments.of("4: a writable candidate is no target", new Input(OPTED_IN, "iad", CORDONED,
            sites(writable("iad", IAD), writable("pdx", IAD), stoppedReplica("sfo", IAD), replica("dr", IAD)),
            false, false, false), Impossible.class, null, "pdx is writable"),
        Arguments.of("3b: the active site is fenced", new Input(OPTED_IN, "iad", CORDONED, HEALTHY, false, false,
            false, List.of("iad")), Nothing.class, null, null),
        Arguments.of("4: a fenced candidate is no target", new Input(OPTED_IN, "iad", CORDONED,
            sites(writable("iad", IAD), replica("pdx", IAD), stoppedReplica("sfo", IAD), replica("dr", IAD)),
            false, false, false, List.of("pdx")), Impossible.class, null,
            "pdx is fenced (" + FencedSites.ANNOTATION + "); sfo does not replicate"),
        Arguments.of("6: the best unfenced candidate", new Input(OPTED_IN, "iad", CORDONED, HEALTHY, false, false,
            false, List.of("pdx")), Request.class, "sfo", "switching over to sfo"),
        Arguments.of("4 before 5: impossible while paused", new Input(OPTED_IN, "iad", CORDONED,
            sites(writable("iad", IAD), down("pdx", IAD), down("sfo", IAD), replica("dr", IAD)),
            false, false, true), Impossible.class, null, "no site can take over"),
        Arguments.of("5: paused", new Input(OPTED_IN, "iad", CORDONED, HEALTHY, false, false, true),
            Held.class, "pdx", "node node-iad-1 of the active site iad is cordoned: switching over to pdx"),
        Arguments.of("6: the candidate missing the fewest transactions", new Input(OPTED_IN, "iad", CORDONED,
            HEALTHY, false, false, false), Request.class, "pdx",
            "node node-iad-1 of the active site iad is cordoned: switching over to pdx (it lacks 0 transaction(s) of iad"),
        Arguments.of("6: fewest missing wins over spec order", new Input(OPTED_IN, "iad", CORDONED,
            sites(writable("iad", IAD), replica("pdx", "0-1-95"), replica("sfo", IAD)), false, false, false),
            Request.class, "sfo", "it lacks 0 transaction(s)"),
        Arguments.of("6: then the lowest secondsBehindSource", new Input(OPTED_IN, "iad", CORDONED,
            sites(writable("iad", IAD), behind("pdx", IAD, 7), behind("sfo", IAD, 2)), false, false, false),
            Request.class, "sfo", "2 s behind"),
        Arguments.of("6: then spec order", new Input(OPTED_IN, "iad", CORDONED,
            sites(writable("iad", IAD), behind("pdx", IAD, 3), behind("sfo", IAD, 3)), false, false, false),
            Request.class, "pdx", "switching over to pdx"),
        Arguments.of("6: the active site may be any candidate", new Input(OPTED_IN, "pdx", List.of("n1", "n2"),
            sites(replica("iad", IAD), writable("pdx", IAD), stoppedReplica("sfo", IAD)), false, false, false),
            Request.class, "iad", "nodes n1, n2 of the active site pdx are cordoned: switching over to iad"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rows")
  void row(String row, Input in, Class<? extends Outcome> outcome, String target, String says) {
    Outcome out = DrainSwitchover.decide(in);

    assertThat(out).isInstanceOf(outcome);
    if (out instanceof Request r) {
      assertThat(r.target()).isEqualTo(target);
      assertThat(r.why()).contains(says);
    } else if (out instanceof Held h) {
      assertThat(h.target()).isEqualTo(target);
      assertThat(h.why()).contains(says);
    } else if (out instanceof Impossible i) {
      assertThat(i.why()).contains(says).contains("the drain waits");
    }
  }
}
