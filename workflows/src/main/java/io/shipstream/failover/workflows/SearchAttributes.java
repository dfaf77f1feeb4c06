package io.shipstream.failover.workflows;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.Phase;
import io.temporal.common.SearchAttributeKey;
import io.temporal.common.SearchAttributes.Builder;
import io.temporal.workflow.Workflow;

/**
 * The custom search attributes that let a user find failovers in the Temporal UI
 * ({@code FailoverGroup="prod/orders"}). They must be registered on the namespace
 * (temporal-dev/register-search-attributes); the watcher sets group and target at start only when
 * configured to, and the workflow updates the phase only when the start carried them, so a
 * namespace without them still runs failovers.
 */
public final class SearchAttributes {
  public static final SearchAttributeKey<String> GROUP = SearchAttributeKey.forKeyword("FailoverGroup");
  public static final SearchAttributeKey<String> TARGET = SearchAttributeKey.forKeyword("FailoverTarget");
  public static final SearchAttributeKey<String> PHASE = SearchAttributeKey.forKeyword("FailoverPhase");

  /** Every attribute a failover may carry, in the order they are registered and named in logs. */
  public static final java.util.List<SearchAttributeKey<String>> ALL = java.util.List.of(GROUP, TARGET, PHASE);

  private SearchAttributes() {}

  /** Their names, for logs: FailoverGroup, FailoverTarget, FailoverPhase. */
  public static String names() {
    return String.join(", ", ALL.stream().map(SearchAttributeKey::getName).toList());
  }

  /** The attributes a start carries. */
  public static io.temporal.common.SearchAttributes atStart(GroupRef group, String target) {
    Builder b = io.temporal.common.SearchAttributes.newBuilder().set(GROUP, group.toString());
    if (target != null && !target.isBlank()) {
      b.set(TARGET, target);
    }
    return b.set(PHASE, Phase.Pending.name()).build();
  }

  /** Called from workflow code only. */
  public static void phase(Phase phase, String target) {
    if (!Workflow.getTypedSearchAttributes().containsKey(GROUP)) {
      return;
    }
    if (target != null && !target.equals(Workflow.getTypedSearchAttributes().get(TARGET))) {
      Workflow.upsertTypedSearchAttributes(TARGET.valueSet(target), PHASE.valueSet(phase.name()));
    } else {
      Workflow.upsertTypedSearchAttributes(PHASE.valueSet(phase.name()));
    }
  }
}
