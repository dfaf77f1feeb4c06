package io.shipstream.failover.model.topology;

import static io.shipstream.failover.model.topology.Fixture.candidate;
import static io.shipstream.failover.model.topology.Fixture.drOnly;
import static io.shipstream.failover.model.topology.Fixture.readOnlyRole;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.Specs;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.PlannedTarget.Outcome;
import io.shipstream.failover.model.topology.PlannedTarget.Reading;
import io.shipstream.failover.model.topology.PlannedTarget.Refusal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link PlannedTarget}, row by row of its class comment: a group a (active, writable), b and c
 * (replicas, both threads running), d (dr-only) and e (read-only role), changed one way per row;
 * each row asks whether b (or the site named) could be a planned target, and from which source.
 */
class PlannedTargetTest {
  static final GroupConfig CONFIG = GroupConfig.resolve(Specs.withSites(List.of(candidate("a"), candidate("b"),
      candidate("c"), drOnly("d"), readOnlyRole("e"))));

  static final Reading WRITABLE = new Reading(true, null, false, false, null, null);
  static final Reading REPLICA = new Reading(true, null, true, true, true, true);

  static Map<String, Reading> healthy() {
    Map<String, Reading> m = new LinkedHashMap<>();
    m.put("a", WRITABLE);
    m.put("b", REPLICA);
    m.put("c", REPLICA);
    m.put("d", REPLICA);
    m.put("e", REPLICA);
    return m;
  }

  static Map<String, Reading> put(Map<String, Reading> m, String site, Reading r) {
    m.put(site, r);
    return m;
  }

  static Stream<Arguments> table() {
    return Stream.of(
        row("healthy: b takes over from a", "b", "a", false, m -> m, null, "a", null),
        row("1 dr-only", "d", "a", false, m -> m, Refusal.NotCandidate, null,
            "site 'd' has role dr-only and can never be primary"),
        row("1 read-only role", "e", "a", false, m -> m, Refusal.NotCandidate, null, "site 'e' has role read-only"),
        // Row 1 before row 2: a dr-only site recorded as active is still refused for its role.
        row("1 before 2", "d", "d", false, m -> m, Refusal.NotCandidate, null, null),
        row("2 the active site", "a", "a", false, m -> m, Refusal.ActiveSite, null,
            "site 'a' is already the active site: nothing to do"),
        row("3 fenced", "b", "a", true, m -> m, Refusal.Fenced, null, "site 'b' is fenced ("
            + FencedSites.ANNOTATION + "): a fenced site is never promoted; unfence it first"),
        // Rows 1-3 come before any server: a fenced target with a dead source is refused as fenced.
        row("3 before 7", "b", "a", true, m -> put(m, "a", unreachable("connect timed out")), Refusal.Fenced, null,
            null),
        row("4 active site not of the spec", "b", "zz", false, m -> m, Refusal.NoSource, null,
            "status.activeSite 'zz' is not a site of the spec"),
        row("5 none recorded, none writable", "b", null, false, m -> put(m, "a", REPLICA), Refusal.NoSource, null,
            "no writable primary found and status.activeSite is not set"),
        row("5 none recorded, two writable", "b", null, false, m -> put(m, "c", WRITABLE), Refusal.NoSource, null,
            "more than one writable server [a, c]: refusing to choose a source"),
        row("5 none recorded, the writable one is unreachable", "b", null, false,
            m -> put(m, "a", unreachable("refused")), Refusal.NoSource, null, null),
        row("6 none recorded, the one writable is the target", "a", null, false, m -> m, Refusal.ActiveSite, null,
            "site 'a' is already the writable primary"),
        row("none recorded, the one writable is the source", "b", null, false, m -> m, null, "a", null),
        row("7 source unreachable", "b", "a", false, m -> put(m, "a", unreachable("connect timed out")),
            Refusal.SourceUnreachable, null, "source a is unreachable (connect timed out): a planned failover needs a "
                + "live source; this is a case for emergency failover"),
        row("7 source not read", "b", "a", false, m -> without(m, "a"), Refusal.SourceUnreachable, null,
            "source a is unreachable: a planned failover needs a live source; this is a case for emergency failover"),
        row("8 source read-only", "b", "a", false, m -> put(m, "a", REPLICA), Refusal.SourceReadOnly, null,
            "active site a is read-only (fenced?): nothing to hand over"),
        // Rows 7-8 before 9-12: with no source to hand over from, the target's state is not the reason.
        row("8 before 10", "b", "a", false, m -> put(put(m, "a", REPLICA), "b", unreachable(null)),
            Refusal.SourceReadOnly, null, null),
        row("9 target not read", "b", "a", false, m -> without(m, "b"), Refusal.TargetNotRead, null,
            "target b has not been read yet"),
        row("10 target unreachable", "b", "a", false, m -> put(m, "b", unreachable("connect timed out")),
            Refusal.TargetUnreachable, null, "target b is unreachable: connect timed out"),
        row("10 target unreachable, no error", "b", "a", false, m -> put(m, "b", unreachable(null)),
            Refusal.TargetUnreachable, null, "target b is unreachable"),
        row("11 target writable", "b", "a", false, m -> put(m, "b", WRITABLE), Refusal.TargetWritable, null,
            "target b is writable: refusing to create a second primary; fence it or check for split brain first"),
        row("12 SQL thread stopped", "b", "a", false,
            m -> put(m, "b", new Reading(true, null, true, false, true, false)), Refusal.ReplicationStopped, null,
            "target b is not replicating (io thread running, sql thread stopped)"),
        row("12 threads unknown", "b", "a", false, m -> put(m, "b", new Reading(true, null, true, false, null, null)),
            Refusal.ReplicationStopped, null, "target b is not replicating"),
        // The other sites' states are not the target's business.
        row("another replica down", "b", "a", false, m -> put(m, "c", unreachable("gone")), null, "a", null));
  }

  static Arguments row(String name, String target, String active, boolean fenced,
      UnaryOperator<Map<String, Reading>> change, Refusal refusal, String source, String message) {
    return Arguments.of(name, target, active, fenced, change, refusal, source, message);
  }

  static Reading unreachable(String error) {
    return new Reading(false, error, false, false, null, null);
  }

  static Map<String, Reading> without(Map<String, Reading> m, String site) {
    m.remove(site);
    return m;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("table")
  void eachRowRefusesAsItsTableSays(String name, String target, String active, boolean fenced,
      UnaryOperator<Map<String, Reading>> change, Refusal refusal, String source, String message) {
    SiteSpec site = CONFIG.site(target).orElseThrow();
    Outcome out = PlannedTarget.evaluate(CONFIG, site, active, fenced, change.apply(healthy()));

    assertThat(out.refused() == null ? null : out.refused().refusal()).as(String.valueOf(out)).isEqualTo(refusal);
    assertThat(out.source()).isEqualTo(source);
    assertThat(out.accepted()).isEqualTo(refusal == null);
    if (message != null) {
      assertThat(out.refused().message()).startsWith(message);
    }
  }

  /**
   * The two halves the planner asks apart (the request before any server is inspected, the servers
   * after) give, in order, what {@link PlannedTarget#evaluate} gives: one rule, not two.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("table")
  void requestThenServersIsEvaluate(String name, String target, String active, boolean fenced,
      UnaryOperator<Map<String, Reading>> change, Refusal refusal, String source, String message) {
    SiteSpec site = CONFIG.site(target).orElseThrow();
    Map<String, Reading> readings = change.apply(healthy());
    PlannedTarget.Refused request = PlannedTarget.request(site, active, fenced);
    Outcome staged = request != null ? new Outcome(null, request)
        : PlannedTarget.servers(CONFIG, target, active, readings);

    assertThat(staged).isEqualTo(PlannedTarget.evaluate(CONFIG, site, active, fenced, readings));
  }

  @Test
  void aPollIsReadAsTheRuleNeedsIt() {
    Probe p = new Probe("b", true, true, null, null, false, null, "x", Fixture.T0).withSourceIo("Connecting", null)
        .withSourceSql(true, null);
    assertThat(Reading.of(p)).isEqualTo(new Reading(true, "x", true, false, false, true));
    assertThat(Reading.of(Probe.unreachable("b", "down", Fixture.T0)))
        .isEqualTo(new Reading(false, "down", false, false, null, null));
  }
}
