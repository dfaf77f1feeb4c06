package io.shipstream.failover.model.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.shipstream.failover.model.topology.GroupConditions.Facts;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class GroupConditionsTest {
  private static final Instant T0 = Instant.parse("2026-11-24T10:00:00Z");

  @Test
  void aHealthyAdoptedGroupIsReadyIdleAndNotDegraded() {
    List<Condition> c = compute(new Facts(null, "iad", null, false, new Verdict.Healthy("iad"), List.of()), null);

    assertThat(c).extracting(Condition::getType, Condition::getStatus, Condition::getReason).containsExactly(
        org.assertj.core.groups.Tuple.tuple("Ready", "True", "PrimaryWritable"),
        org.assertj.core.groups.Tuple.tuple("Progressing", "False", "Idle"),
        org.assertj.core.groups.Tuple.tuple("Degraded", "False", "AsExpected"),
        org.assertj.core.groups.Tuple.tuple("SearchAttributesRegistered", "Unknown", "CannotList"),
        org.assertj.core.groups.Tuple.tuple("Paused", "False", "Automatic"),
        org.assertj.core.groups.Tuple.tuple("Fenced", "False", "NoneFenced"));
    assertThat(c).allSatisfy(x -> {
      assertThat(x.getObservedGeneration()).isEqualTo(3L);
      assertThat(x.getLastTransitionTime()).isEqualTo(T0.toString());
    });
  }

  /**
   * The search attributes are an observability gap, never a reason to be not Ready or Degraded:
   * one missing is False with its name, all there is True, not listable (Temporal's Java test
   * server has no ListSearchAttributes) is Unknown.
   */
  @Test
  void searchAttributesHaveTheirOwnConditionThatNeitherReadyNorDegradedFollows() {
    Facts healthy = new Facts(null, "iad", null, false, new Verdict.Healthy("iad"), List.of());

    List<Condition> missing = compute(healthy.withSearchAttributes(
        GroupConditions.SearchAttributeCheck.listed(java.util.Set.of("FailoverTarget"))), null);
    assertThat(missing.get(3)).extracting(Condition::getType, Condition::getStatus, Condition::getReason)
        .containsExactly("SearchAttributesRegistered", "False", "Missing");
    assertThat(missing.get(3).getMessage()).contains("[FailoverTarget]").contains("failovers start and run without");
    assertThat(missing.get(0).getStatus()).as("Ready").isEqualTo("True");
    assertThat(missing.get(2).getStatus()).as("Degraded").isEqualTo("False");

    Condition all =
        compute(healthy.withSearchAttributes(GroupConditions.SearchAttributeCheck.listed(java.util.Set.of())),
            null).get(3);
    assertThat(all.getStatus()).isEqualTo("True");
    assertThat(all.getReason()).isEqualTo("Registered");

    Condition unknown = compute(healthy.withSearchAttributes(GroupConditions.SearchAttributeCheck.unknown(
        "UNIMPLEMENTED: no operator service")), null).get(3);
    assertThat(unknown.getStatus()).isEqualTo("Unknown");
    assertThat(unknown.getReason()).isEqualTo("CannotList");
    assertThat(unknown.getMessage()).contains("UNIMPLEMENTED");
  }

  @Test
  void anInvalidSpecIsNotReadyWhateverElseHolds() {
    Condition ready = compute(new Facts("sites: 'iad' is used twice; pollInterval must be greater than 0", "iad",
        null, false, new Verdict.Healthy("iad"), List.of()), null).get(0);
    assertThat(ready.getStatus()).isEqualTo("False");
    assertThat(ready.getReason()).isEqualTo("InvalidSpec");
    assertThat(ready.getMessage()).contains("used twice").contains("greater than 0");
  }

  @Test
  void anAmbiguousStartSaysWhatAHumanMustDoAndAWaitSaysWhy() {
    Condition blocked = compute(new Facts(null, null, new Adoption.Ambiguous("SeveralWritable",
        "sites iad and pdx are both writable"), false, null, List.of()), null).get(0);
    assertThat(blocked.getReason()).isEqualTo("SeveralWritable");
    assertThat(blocked.getMessage()).contains("both writable").contains("bloodraven.shipstream.io/adopt=<site>");

    Condition waiting =
        compute(new Facts(null, null, new Adoption.Wait("not polled yet: dr"), false, null, List.of()), null)
            .get(0);
    assertThat(waiting.getReason()).isEqualTo("Adopting");
    assertThat(waiting.getMessage()).contains("not polled yet: dr");
  }

  @Test
  void aDegradedGroupIsStillReadyAndNamesWhatIsWrong() {
    List<Condition> c = compute(new Facts(null, "iad", null, false,
        new Verdict.Degraded("iad", "site 'dr' is read-only and not replicating"), List.of()), null);
    assertThat(c.get(0).getStatus()).isEqualTo("True");
    assertThat(c.get(2).getStatus()).isEqualTo("True");
    assertThat(c.get(2).getMessage()).contains("'dr'");
  }

  @Test
  void aRunningFailoverIsProgressingAndNotReady() {
    List<Condition> c =
        compute(new Facts(null, "iad", null, true, new Verdict.NoPrimary("between fence and promotion"), List.of()),
            null);
    assertThat(c.get(0).getReason()).isEqualTo("FailoverInProgress");
    assertThat(c.get(1).getStatus()).isEqualTo("True");
  }

  /**
   * A dead primary that is not failed over (here a candidate holds an errant transaction) degrades
   * the group, and Degraded says why; it never says that every site answers. The same goes for a
   * primary lost while a failover is about to start or every site is gone.
   */
  @Test
  void aDeadPrimaryIsDegradedNotAsExpected() {
    String why = "the active site 'iad' is unreachable; pdx holds transactions iad never had";
    List<Condition> blocked = compute(new Facts(null, "iad", null, false,
        new Verdict.Blocked(Verdict.Cause.DivergentCandidates, "iad", why), List.of()), null);

    assertThat(blocked.get(2)).extracting(Condition::getType, Condition::getStatus, Condition::getReason)
        .containsExactly("Degraded", "True", "PrimaryLost");
    assertThat(blocked.get(2).getMessage()).isEqualTo("DivergentCandidates: " + why);
    assertThat(blocked.get(0).getStatus()).as("Ready").isEqualTo("False");

    for (Verdict lost : List.of(new Verdict.TotalLoss("every site is unreachable"),
        new Verdict.Promote("iad", "pdx", "0-1-100", "the active site 'iad' is unreachable; promoting pdx"))) {
      Condition degraded = compute(new Facts(null, "iad", null, false, lost, List.of()), null).get(2);
      assertThat(degraded.getStatus()).as(lost.toString()).isEqualTo("True");
      assertThat(degraded.getReason()).isEqualTo("PrimaryLost");
      assertThat(degraded.getMessage()).doesNotContain("every site answers");
    }

    // A refused promote-anyway request (the usual moment for one) keeps its own reason: it is what
    // the DBA must correct; the message still says the primary is lost.
    Condition refused = compute(new Facts(null, "iad", null, false,
        new Verdict.Blocked(Verdict.Cause.CandidateTooFarBehind, "iad", why),
        List.of(new GroupConditions.Problem("PromoteAnywayRejected", "names 'sfo', which is not a site"))), null)
        .get(2);
    assertThat(refused).extracting(Condition::getStatus, Condition::getReason)
        .containsExactly("True", "PromoteAnywayRejected");
    assertThat(refused.getMessage()).contains("names 'sfo'").contains("CandidateTooFarBehind: " + why);
  }

  /**
   * No writable primary for a reason that is not a loss (the active site is alive but read-only, is
   * fenced, has no verdict yet): Ready says why; Degraded stays False without claiming all is well.
   */
  @Test
  void noWritablePrimaryThatIsNoLossIsNotDegradedButNotCalledHealthyEither() {
    Condition degraded = compute(new Facts(null, "iad", null, false,
        new Verdict.NoPrimary("the active site 'iad' is reachable but read-only"), List.of()), null).get(2);

    assertThat(degraded.getStatus()).isEqualTo("False");
    assertThat(degraded.getMessage()).doesNotContain("every site answers").contains("Ready");
  }

  /**
   * While a run owns the status only a change of what the conditions say about the run is news
   * (issue 31 item 14a): a Degraded that changes meanwhile is not; the run's start and end are.
   */
  @Test
  void onlyReadyAndProgressingTellARunsNews() {
    List<Condition> idle = compute(new Facts(null, "iad", null, false, new Verdict.Healthy("iad"), List.of()), null);
    List<Condition> running = compute(new Facts(null, "iad", null, true, new Verdict.Healthy("iad"), List.of()), idle);
    List<Condition> runningDegraded = compute(new Facts(null, "iad", null, true,
        new Verdict.Degraded("iad", "site 'dr' is unreachable"), List.of()), running);

    assertThat(GroupConditions.sameRunConditions(idle, running)).isFalse();
    assertThat(GroupConditions.sameRunConditions(running, runningDegraded)).isTrue();
    assertThat(GroupConditions.sameExceptTimes(running, runningDegraded)).isFalse();
    assertThat(GroupConditions.sameRunConditions(List.of(), running)).as("nothing written yet").isFalse();
  }

  @Test
  void theTransitionTimeHoldsWhileTheStatusDoesAndMovesWhenItChanges() {
    List<Condition> first = compute(new Facts(null, "iad", null, false, new Verdict.Healthy("iad"), List.of()), null);
    List<Condition> degraded = GroupConditions.compute(new Facts(null, "iad", null, false,
        new Verdict.Degraded("iad", "dr unreachable"), List.of()), first, T0.plusSeconds(60), 3L);

    assertThat(degraded.get(0).getLastTransitionTime()).as("Ready stayed True").isEqualTo(T0.toString());
    assertThat(degraded.get(2).getLastTransitionTime()).isEqualTo(T0.plusSeconds(60).toString());
    assertThat(GroupConditions.sameExceptTimes(first, degraded)).isFalse();
    assertThat(GroupConditions.sameExceptTimes(first, compute(new Facts(null, "iad", null, false,
        new Verdict.Healthy("iad"), List.of()), first))).isTrue();
  }

  @Test
  void routingThatCannotBeSetRightIsDegraded() {
    List<Condition> c = compute(new Facts(null, "iad", null, false, new Verdict.Healthy("iad"),
        List.of(new GroupConditions.Problem("RoutingIncomplete",
            "pod(s) mysql-dr-0 of site dr do not tolerate the taint"))),
        null);
    assertThat(c.get(2).getStatus()).isEqualTo("True");
    assertThat(c.get(2).getReason()).isEqualTo("RoutingIncomplete");
    assertThat(c.get(2).getMessage()).contains("mysql-dr-0");
  }

  @Test
  void aPrimaryFallenBackToAsynchronousReplicationNamesItsOwnReasonEvenBesideAnImpairedSite() {
    GroupConditions.Problem fallen = new GroupConditions.Problem("SemiSyncFallenBack",
        "fallen back to asynchronous replication", true);
    List<Condition> c = compute(new Facts(null, "iad", null, false, new Verdict.Degraded("iad", "pdx unreachable"),
        List.of(new GroupConditions.Problem("RoutingIncomplete", "taint"), fallen)), null);
    assertThat(c.get(0).getStatus()).as("still Ready: the primary takes writes").isEqualTo("True");
    assertThat(c.get(2).getStatus()).isEqualTo("True");
    assertThat(c.get(2).getReason()).isEqualTo("SemiSyncFallenBack");
    assertThat(c.get(2).getMessage()).contains("fallen back", "pdx unreachable", "taint");
    List<Condition> healthy = compute(new Facts(null, "iad", null, false, new Verdict.Healthy("iad"), List.of(fallen)),
        null);
    assertThat(healthy.get(2).getReason()).isEqualTo("SemiSyncFallenBack");
  }

  private static List<Condition> compute(Facts facts, List<Condition> previous) {
    return GroupConditions.compute(facts, previous, T0, 3L);
  }

  /** A paused group says so in its own condition; Ready and Degraded still say how the servers are. */
  @Test
  void aPausedGroupHasThePausedConditionAndReadyStillFollowsTheServers() {
    Facts deadPrimary = new Facts(null, "iad", null, false,
        new Verdict.Promote("iad", "pdx", "0-1-100", "debounce: 3 polls in a row failed"), List.of()).withPaused(true);

    List<Condition> c = compute(deadPrimary, null);

    assertThat(c.get(4)).extracting(Condition::getType, Condition::getStatus, Condition::getReason)
        .containsExactly("Paused", "True", "PausedByAnnotation");
    assertThat(c.get(4).getMessage()).contains(PauseAnnotation.ANNOTATION + "=true").contains("no failover starts");
    assertThat(c.get(0)).extracting(Condition::getType, Condition::getStatus).containsExactly("Ready", "False");
    assertThat(compute(deadPrimary.withPaused(false), null).get(4).getStatus()).isEqualTo("False");
  }

  /** Fenced sites are listed in their own condition; the active site fenced says the writes are stopped. */
  @Test
  void fencedSitesHaveTheFencedConditionNamingThem() {
    Facts healthy = new Facts(null, "iad", null, false, new Verdict.Healthy("iad"), List.of());

    Condition replica = compute(healthy.withFenced(List.of("dr")), null).get(5);
    Condition active = compute(new Facts(null, "iad", null, false, new Verdict.NoPrimary("fenced"), List.of())
        .withFenced(List.of("iad", "dr")), null).get(5);

    assertThat(replica).extracting(Condition::getType, Condition::getStatus, Condition::getReason)
        .containsExactly("Fenced", "True", "FencedByAnnotation");
    assertThat(replica.getMessage()).startsWith("site dr is fenced (" + FencedSites.ANNOTATION + ")")
        .doesNotContain("writes are stopped");
    assertThat(active).extracting(Condition::getStatus, Condition::getReason)
        .containsExactly("True", "ActiveSiteFenced");
    assertThat(active.getMessage()).startsWith("sites iad, dr are fenced")
        .contains("the active site iad is fenced: the group's writes are stopped until it is unfenced");
  }
}
