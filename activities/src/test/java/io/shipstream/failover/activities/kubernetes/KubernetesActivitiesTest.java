package io.shipstream.failover.activities.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroup;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.SiteStatus;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus.WorkflowRef;
import io.shipstream.failover.model.crd.PlannedFailoverStatus;
import io.shipstream.failover.testsupport.MockCluster;
import io.shipstream.failover.workflows.activities.KubernetesActivities;
import io.shipstream.failover.workflows.activities.KubernetesActivities.GroupSnapshot;
import io.shipstream.failover.workflows.contract.WorkflowTypes;
import io.temporal.failure.ApplicationFailure;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The group resource itself: the snapshot, the status fields, the annotation and the Events. */
class KubernetesActivitiesTest {
  private static final String ANNOTATION = MysqlFailoverGroup.PLANNED_FAILOVER_ANNOTATION;
  private static final Instant NOW = OrdersGroupRig.NOW;
  private static final GroupRef ORDERS = OrdersGroupRig.ORDERS;

  @RegisterExtension
  final OrdersGroupRig rig = new OrdersGroupRig(Map.of(ANNOTATION, "pdx", "team", "payments"));
  private final MockCluster cluster = rig.cluster;
  private final KubernetesActivitiesImpl activities = rig.activities;

  @Test
  void loadGroupReturnsSpecStatusAnnotationAndGeneration() {
    cluster.setStatus(ORDERS, MysqlFailoverGroupStatus.empty().withActiveSite("iad"));

    GroupSnapshot snapshot = activities.loadGroup(ORDERS);

    assertThat(snapshot.spec().sites()).extracting("name").containsExactly("iad", "pdx");
    assertThat(snapshot.status().activeSite()).isEqualTo("iad");
    assertThat(snapshot.annotation()).isEqualTo("pdx");
    assertThat(snapshot.generation()).isEqualTo(cluster.group(ORDERS).getMetadata().getGeneration()).isNotNull();
  }

  @Test
  void loadGroupOfAMissingGroupFailsNonRetryably() {
    assertThatThrownBy(() -> activities.loadGroup(new GroupRef(MockCluster.NAMESPACE, "gone")))
        .isInstanceOfSatisfying(ApplicationFailure.class, f -> {
          assertThat(f.getType()).isEqualTo("GroupNotFound");
          assertThat(f.isNonRetryable()).isTrue();
        });
  }

  @Test
  void plannedFailoverStatusIsWrittenOnAFreshResourceWithoutStatus() {
    assertThat(cluster.group(ORDERS).getStatus()).isNull();

    activities.writePlannedFailoverStatus(ORDERS, planned("Validating", null), workflowRef("run-1"));

    MysqlFailoverGroup cr = cluster.group(ORDERS);
    assertThat(cr.getStatus().plannedFailover().phase()).isEqualTo("Validating");
    assertThat(cr.getStatus().plannedFailover().target()).isEqualTo("pdx");
    assertThat(cr.getStatus().workflow()).isEqualTo(workflowRef("run-1"));
    assertThat(cr.getStatus().activeSite()).isNull();
    // The status subresource write left the spec and the metadata alone.
    assertThat(cr.getSpec().sites()).hasSize(2);
    assertThat(cr.getMetadata().getAnnotations()).containsEntry(ANNOTATION, "pdx");
  }

  @Test
  void plannedFailoverStatusReplacesItsOwnFieldsAndPreservesTheRest() {
    Condition ready = new ConditionBuilder().withType("Ready").withStatus("True").withReason("Healthy")
        .withLastTransitionTime("2025-03-01T11:00:00Z").build();
    cluster.setStatus(ORDERS, new MysqlFailoverGroupStatus("iad", "2025-02-01T00:00:00Z", "iad", "0-1-42",
        List.of(new SiteStatus("iad", "Healthy", "2025-03-01T11:59:58Z", false, "0-1-42", 0L, null)),
        planned("Deferred", "2025-03-01T12:05:00Z"), workflowRef("run-0"), List.of(ready), 1L, null));

    activities.writePlannedFailoverStatus(ORDERS, planned("Draining", null), workflowRef("run-1"));

    MysqlFailoverGroupStatus status = cluster.group(ORDERS).getStatus();
    assertThat(status.plannedFailover().phase()).isEqualTo("Draining");
    // Replaced whole: the retryAfter of the deferred attempt does not linger.
    assertThat(status.plannedFailover().retryAfter()).isNull();
    assertThat(status.workflow().runId()).isEqualTo("run-1");
    assertThat(status.activeSite()).isEqualTo("iad");
    assertThat(status.lastFailover()).isEqualTo("2025-02-01T00:00:00Z");
    assertThat(status.promotionGtidExecuted()).isEqualTo("0-1-42");
    assertThat(status.sites()).singleElement().satisfies(s -> assertThat(s.state()).isEqualTo("Healthy"));
    assertThat(status.conditions()).singleElement().satisfies(c -> assertThat(c.getReason()).isEqualTo("Healthy"));
    assertThat(status.observedGeneration()).isEqualTo(1L);
  }

  @Test
  void aStatusCreatedConcurrentlyOnAFreshResourceIsNotReplaced() {
    // Another writer (the topology monitor, say) creates the status between read and write.
    var raced = new KubernetesActivitiesImpl(cluster.clientRacedBy("PATCH", "/mysqlfailovergroups/orders/status",
        c -> cluster.setStatus(ORDERS, MysqlFailoverGroupStatus.empty().withActiveSite("iad"))),
        Clock.fixed(NOW, ZoneOffset.UTC));

    raced.writePlannedFailoverStatus(ORDERS, planned("Validating", null), workflowRef("run-1"));

    MysqlFailoverGroupStatus status = cluster.group(ORDERS).getStatus();
    assertThat(status.activeSite()).isEqualTo("iad");
    assertThat(status.plannedFailover().phase()).isEqualTo("Validating");
  }

  @Test
  void recordFailoverSetsTheFailoverFieldsOnAFreshResource() {
    activities.recordFailover(ORDERS, "pdx", "2025-03-01T13:00:05+01:00", "0-2-77");

    MysqlFailoverGroupStatus status = cluster.group(ORDERS).getStatus();
    assertThat(status.activeSite()).isEqualTo("pdx");
    assertThat(status.lastFailoverTarget()).isEqualTo("pdx");
    assertThat(status.lastFailover()).isEqualTo("2025-03-01T12:00:05Z");
    assertThat(status.promotionGtidExecuted()).isEqualTo("0-2-77");
  }

  @Test
  void aLateRecordOfAnOlderFailoverNeverNamesItsTargetActiveAgain() {
    activities.recordFailover(ORDERS, "pdx", "2025-03-01T12:00:05Z", "0-2-77");
    activities.recordFailover(ORDERS, "iad", "2025-03-01T12:03:00Z", "0-1-90");

    // A retry of the first failover's record, still running in some worker after an API outage.
    activities.recordFailover(ORDERS, "pdx", "2025-03-01T12:00:05Z", "0-2-77");

    MysqlFailoverGroupStatus status = cluster.group(ORDERS).getStatus();
    assertThat(status.activeSite()).isEqualTo("iad");
    assertThat(status.lastFailover()).isEqualTo("2025-03-01T12:03:00Z");
    assertThat(status.promotionGtidExecuted()).isEqualTo("0-1-90");

    // A rollback names the source again with the same time as the record it undoes: allowed.
    activities.recordFailover(ORDERS, "pdx", "2025-03-01T12:03:00Z", null);
    assertThat(cluster.group(ORDERS).getStatus().activeSite()).isEqualTo("pdx");
  }

  /**
   * Only a record with the promotion point moves lastPromotion, where the cooldown starts: the
   * target named before its promotion and the source named again by a rollback leave it alone,
   * while lastFailover moves with every record and never goes back.
   */
  @Test
  void onlyARecordOfAPromotionThatTookEffectMovesLastPromotion() {
    activities.recordFailover(ORDERS, "pdx", "2025-03-01T12:00:00Z", null);
    activities.recordFailover(ORDERS, "pdx", "2025-03-01T12:00:00Z", "0-2-77");
    assertThat(cluster.group(ORDERS).getStatus().lastPromotion()).isEqualTo("2025-03-01T12:00:00Z");

    // The next failover names iad, then its promotion fails and the rollback names pdx again.
    activities.recordFailover(ORDERS, "iad", "2025-03-01T12:10:00Z", null);
    activities.recordFailover(ORDERS, "pdx", "2025-03-01T12:10:00Z", null);

    MysqlFailoverGroupStatus status = cluster.group(ORDERS).getStatus();
    assertThat(status.activeSite()).isEqualTo("pdx");
    assertThat(status.lastFailover()).isEqualTo("2025-03-01T12:10:00Z");
    assertThat(status.lastPromotion()).isEqualTo("2025-03-01T12:00:00Z");
    assertThat(status.cooldownSince()).isEqualTo("2025-03-01T12:00:00Z");
  }

  /**
   * Issue 31 item 14a: the failover record is guarded by the time it read, not by the resource's
   * version, so an unrelated status write that lands between its read and its patch (the run's own
   * phase write beside it, the watcher's status.sites) neither makes it read again nor is lost.
   */
  @Test
  void aFailoverRecordRacedByAnUnrelatedStatusWriteLandsAtOnceAndKeepsThatWrite() {
    activities.recordFailover(ORDERS, "iad", "2025-03-01T12:00:05Z", "0-1-10");
    MysqlFailoverGroupStatus.SiteStatus seen = new MysqlFailoverGroupStatus.SiteStatus("pdx", "READ_ONLY",
        "2025-03-01T12:09:00Z", true, "0-1-12", 0L, null);
    var raced = new KubernetesActivitiesImpl(cluster.clientRacedBy("PATCH", "/mysqlfailovergroups/orders/status",
        c -> cluster.setStatus(ORDERS, new MysqlFailoverGroupStatus("iad", "2025-03-01T12:00:05Z", "iad", "0-1-10",
            List.of(seen), null, null, null, null, null))),
        Clock.fixed(NOW, ZoneOffset.UTC));
    int before = cluster.requestCount();

    raced.recordFailover(ORDERS, "pdx", "2025-03-01T12:10:00Z", "0-1-12");

    // The racing write (a read and a replace) and the record's read and patch: no second try.
    assertThat(cluster.requestCount() - before).isEqualTo(4);
    MysqlFailoverGroupStatus status = cluster.group(ORDERS).getStatus();
    assertThat(status.activeSite()).isEqualTo("pdx");
    assertThat(status.lastFailover()).isEqualTo("2025-03-01T12:10:00Z");
    assertThat(status.sites()).containsExactly(seen);
  }

  /** The time guard still holds: a newer failover recorded between the read and the patch wins. */
  @Test
  void aFailoverRecordRacedByANewerRecordIsNotWritten() {
    activities.recordFailover(ORDERS, "iad", "2025-03-01T12:00:05Z", "0-1-10");
    var raced = new KubernetesActivitiesImpl(cluster.clientRacedBy("PATCH", "/mysqlfailovergroups/orders/status",
        c -> activities.recordFailover(ORDERS, "iad", "2025-03-01T12:20:00Z", "0-1-30")),
        Clock.fixed(NOW, ZoneOffset.UTC));

    raced.recordFailover(ORDERS, "pdx", "2025-03-01T12:10:00Z", "0-1-12");

    MysqlFailoverGroupStatus status = cluster.group(ORDERS).getStatus();
    assertThat(status.activeSite()).isEqualTo("iad");
    assertThat(status.lastFailover()).isEqualTo("2025-03-01T12:20:00Z");
    assertThat(status.promotionGtidExecuted()).isEqualTo("0-1-30");
  }

  @Test
  void aLateStatusWriteOfAnOlderPlannedFailoverLeavesTheNewerOnesStatus() {
    PlannedFailoverStatus newer = new PlannedFailoverStatus("WaitingForLag", "iad", "pdx", null, null,
        "2025-03-01T12:05:00Z", null, null, null, null, null, null, null);
    activities.writePlannedFailoverStatus(ORDERS, newer, workflowRef("run-2"));

    // The first failover's Promoting write, retried until the API server answered again.
    activities.writePlannedFailoverStatus(ORDERS, planned("Promoting", null), workflowRef("run-1"));

    MysqlFailoverGroupStatus status = cluster.group(ORDERS).getStatus();
    assertThat(status.plannedFailover().phase()).isEqualTo("WaitingForLag");
    assertThat(status.plannedFailover().target()).isEqualTo("iad");
    assertThat(status.workflow().runId()).isEqualTo("run-2");
  }

  @Test
  void aLaterStatusWriteOfTheSameFailoverIsOneRequest() {
    int first = cluster.requestCount();
    activities.writePlannedFailoverStatus(ORDERS, planned("Pending", null), workflowRef("run-1"));
    activities.recordFailover(ORDERS, "pdx", "2025-03-01T12:00:05Z", null);
    assertThat(cluster.requestCount() - first).as("a read and a guarded patch each").isEqualTo(4);

    int before = cluster.requestCount();
    activities.writePlannedFailoverStatus(ORDERS, planned("Promoting", null), workflowRef("run-1"));
    activities.recordFailover(ORDERS, "pdx", "2025-03-01T12:00:05Z", "0-2-77");
    assertThat(cluster.requestCount() - before).as("one guarded patch each, no read").isEqualTo(2);

    MysqlFailoverGroupStatus status = cluster.group(ORDERS).getStatus();
    assertThat(status.plannedFailover().phase()).isEqualTo("Promoting");
    assertThat(status.promotionGtidExecuted()).isEqualTo("0-2-77");
    assertThat(status.lastFailover()).isEqualTo("2025-03-01T12:00:05Z");
  }

  @Test
  void recordFailoverKeepsThePlannedFailoverAndUsesTheClockWithoutATime() {
    activities.writePlannedFailoverStatus(ORDERS, planned("Promoting", null), workflowRef("run-1"));

    activities.recordFailover(ORDERS, "pdx", null, "0-2-77");

    MysqlFailoverGroupStatus status = cluster.group(ORDERS).getStatus();
    assertThat(status.lastFailover()).isEqualTo("2025-03-01T12:00:00Z");
    assertThat(status.activeSite()).isEqualTo("pdx");
    assertThat(status.plannedFailover().phase()).isEqualTo("Promoting");
    assertThat(status.workflow().runId()).isEqualTo("run-1");
  }

  @Test
  void aSpecWriteCannotChangeTheStatusBecauseTheCrdHasTheStatusSubresource() {
    activities.recordFailover(ORDERS, "pdx", null, "0-2-77");

    // What a careless client would do: kubectl patch --type merge with a status in the body.
    groupResource().patch(PatchContext.of(PatchType.JSON_MERGE),
        "{\"metadata\":{\"labels\":{\"tier\":\"gold\"}},\"status\":{\"activeSite\":\"iad\"}}");

    MysqlFailoverGroup cr = cluster.group(ORDERS);
    assertThat(cr.getMetadata().getLabels()).containsEntry("tier", "gold");
    assertThat(cr.getStatus().activeSite()).isEqualTo("pdx");
  }

  @Test
  void clearAnnotationRemovesTheHandledRequestOnly() {
    activities.clearAnnotation(ORDERS, "pdx");

    assertThat(cluster.group(ORDERS).getMetadata().getAnnotations())
        .doesNotContainKey(ANNOTATION)
        .containsEntry("team", "payments");
  }

  @Test
  void clearAnnotationLeavesANewerRequestInPlace() {
    // The operator re-annotated while the failover to pdx ran.
    reannotate("iad:maxLagWait=1m");

    activities.clearAnnotation(ORDERS, "pdx");

    assertThat(cluster.group(ORDERS).getMetadata().getAnnotations()).containsEntry(ANNOTATION, "iad:maxLagWait=1m");
  }

  @Test
  void clearAnnotationRacedByAReannotationKeepsTheNewRequest() {
    // The operator re-annotates between the activity's read and its write.
    var raced = new KubernetesActivitiesImpl(cluster.clientRacedBy("PATCH", "/mysqlfailovergroups/orders",
        c -> reannotate("iad")), Clock.fixed(NOW, ZoneOffset.UTC));

    raced.clearAnnotation(ORDERS, "pdx");

    assertThat(cluster.group(ORDERS).getMetadata().getAnnotations()).containsEntry(ANNOTATION, "iad");
  }

  @Test
  void clearAnnotationIsOneRequest() {
    int before = cluster.requestCount();
    activities.clearAnnotation(ORDERS, "pdx");
    activities.clearAnnotation(ORDERS, "pdx");
    assertThat(cluster.requestCount() - before).as("one guarded patch each, the second refused").isEqualTo(2);
    assertThat(cluster.group(ORDERS).getMetadata().getAnnotations()).doesNotContainKey(ANNOTATION)
        .containsEntry("team", "payments");
  }

  @Test
  void clearAnnotationWhenItIsAlreadyGoneIsANoOp() {
    activities.clearAnnotation(ORDERS, "pdx");
    String resourceVersion = cluster.group(ORDERS).getMetadata().getResourceVersion();

    activities.clearAnnotation(ORDERS, "pdx");

    assertThat(cluster.group(ORDERS).getMetadata().getResourceVersion()).isEqualTo(resourceVersion);
  }

  @Test
  void emitEventPointsAtTheGroupWithEveryFieldKubectlShows() {
    activities.emitEvents(ORDERS, List
        .of(new KubernetesActivities.EventNote("Normal", "PlannedFailoverSucceeded", "Primary moved from iad to pdx")));

    List<Event> events = cluster.client().v1().events().inNamespace(ORDERS.namespace()).list().getItems();
    assertThat(events).singleElement().satisfies(e -> {
      assertThat(e.getMetadata().getName()).matches("orders\\.[0-9a-f]{16}");
      assertThat(e.getInvolvedObject().getApiVersion()).isEqualTo("shipstream.io/v1alpha1");
      assertThat(e.getInvolvedObject().getKind()).isEqualTo("MysqlFailoverGroup");
      assertThat(e.getInvolvedObject().getName()).isEqualTo("orders");
      assertThat(e.getInvolvedObject().getNamespace()).isEqualTo(ORDERS.namespace());
      assertThat(e.getInvolvedObject().getUid()).isEqualTo(cluster.group(ORDERS).getMetadata().getUid()).isNotBlank();
      assertThat(e.getType()).isEqualTo("Normal");
      assertThat(e.getReason()).isEqualTo("PlannedFailoverSucceeded");
      assertThat(e.getMessage()).isEqualTo("Primary moved from iad to pdx");
      assertThat(e.getSource().getComponent()).isEqualTo("bloodraven-failover");
      assertThat(e.getReportingComponent()).isEqualTo("bloodraven-failover");
      assertThat(e.getFirstTimestamp()).isEqualTo("2025-03-01T12:00:00Z");
      assertThat(e.getLastTimestamp()).isEqualTo("2025-03-01T12:00:00Z");
      assertThat(e.getCount()).isEqualTo(1);
    });
  }

  @Test
  void aRepeatedEventIsCountedAndADifferentOneIsSeparate() {
    activities.emitEvents(ORDERS, List
        .of(new KubernetesActivities.EventNote("Warning", "DnsFlipFailed", "DNSEndpoint orders-primary: forbidden")));
    var later = new KubernetesActivitiesImpl(cluster.client(), Clock.fixed(NOW.plusSeconds(90), ZoneOffset.UTC));
    later.emitEvents(ORDERS, List
        .of(new KubernetesActivities.EventNote("Warning", "DnsFlipFailed", "DNSEndpoint orders-primary: forbidden")));
    later.emitEvents(ORDERS, List
        .of(new KubernetesActivities.EventNote("Normal", "PlannedFailoverSucceeded", "Primary moved from iad to pdx")));

    List<Event> events = cluster.client().v1().events().inNamespace(ORDERS.namespace()).list().getItems();
    assertThat(events).hasSize(2);
    assertThat(events).filteredOn(e -> "DnsFlipFailed".equals(e.getReason())).singleElement().satisfies(e -> {
      assertThat(e.getType()).isEqualTo("Warning");
      assertThat(e.getCount()).isEqualTo(2);
      assertThat(e.getFirstTimestamp()).isEqualTo("2025-03-01T12:00:00Z");
      assertThat(e.getLastTimestamp()).isEqualTo("2025-03-01T12:01:30Z");
    });
  }

  @Test
  void emitEventsReadsTheGroupOnceAndCreatesEachInOrder() {
    activities.emitEvents(ORDERS, List
        .of(new KubernetesActivities.EventNote("Warning", "DnsFlipFailed", "DNSEndpoint orders-primary: forbidden")));

    int before = cluster.requestCount();
    activities.emitEvents(ORDERS, List.of(
        new KubernetesActivities.EventNote("Normal", "PlannedFailoverStarted", "planned failover requested: pdx"),
        new KubernetesActivities.EventNote("Warning", "DnsFlipFailed", "DNSEndpoint orders-primary: forbidden"),
        new KubernetesActivities.EventNote("Normal", "PlannedFailoverLagOK", "pdx holds every transaction")));
    // The group once, a create each, and for the repeat (its create refused) a read and a count bump.
    assertThat(cluster.requestCount() - before).isEqualTo(1 + 3 + 2);

    List<Event> events = cluster.client().v1().events().inNamespace(ORDERS.namespace()).list().getItems();
    assertThat(events).extracting(Event::getReason)
        .containsExactlyInAnyOrder("DnsFlipFailed", "PlannedFailoverStarted", "PlannedFailoverLagOK");
    assertThat(events).filteredOn(e -> "DnsFlipFailed".equals(e.getReason())).singleElement()
        .satisfies(e -> assertThat(e.getCount()).isEqualTo(2));
    assertThat(events).allSatisfy(
        e ->
        assertThat(e.getInvolvedObject().getUid()).isEqualTo(cluster.group(ORDERS).getMetadata().getUid()));
  }

  @Test
  void anEventTypeKubernetesRejectsFailsNonRetryably() {
    assertThatThrownBy(() -> activities.emitEvents(ORDERS,
        List.of(new KubernetesActivities.EventNote("Error", "Oops", "no such type"))))
        .isInstanceOfSatisfying(ApplicationFailure.class, f -> assertThat(f.isNonRetryable()).isTrue());
    assertThat(cluster.client().v1().events().inNamespace(ORDERS.namespace()).list().getItems()).isEmpty();
  }

  /** kubectl annotate --overwrite, as a JSON patch. */
  private void reannotate(String value) {
    groupResource().patch(PatchContext.of(PatchType.JSON),
        "[{\"op\":\"add\",\"path\":\"/metadata/annotations/bloodraven.shipstream.io~1planned-failover\","
            + "\"value\":\"" + value + "\"}]");
  }

  private Resource<MysqlFailoverGroup> groupResource() {
    return cluster.client().resources(MysqlFailoverGroup.class).inNamespace(ORDERS.namespace()).withName(ORDERS.name());
  }

  private static PlannedFailoverStatus planned(String phase, String retryAfter) {
    return new PlannedFailoverStatus(phase, "pdx", "iad", null, null, "2025-03-01T11:59:00Z", null, null, null,
        null, retryAfter, null, null);
  }

  private static WorkflowRef workflowRef(String runId) {
    return new WorkflowRef(WorkflowTypes.PLANNED_FAILOVER, ORDERS.workflowId(), runId);
  }
}
