package io.shipstream.failover.workflows;

import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.Phase;
import io.temporal.common.SearchAttributeKey;
import io.temporal.common.SearchAttributes.Builder;
import io.temporal.workflow.Workflow;

/**
 * The custom search attributes that let a user find failovers in the Temporal UI
 * ({@code FailoverGroup="prod/orders"}). They must be registered on the namespace
 * (the worker registers them at start-up where the server allows it; otherwise
 * temporal-dev/register-search-attributes or the operator's own tools). The watcher sets at start
 * only those the namespace has (it lists them), and the workflow updates only those the start
 * carried, so a namespace without some or all of them still runs failovers.
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

  /** The attributes a start carries, when the namespace has all three. */
  public static io.temporal.common.SearchAttributes atStart(GroupRef group, String target) {
    return atStart(group, target, names(ALL));
  }

  /**
   * The attributes a start carries: only those among {@code registered} (what the namespace has),
   * since an unregistered one fails the start. What the start carries is also what the workflow
   * may upsert later ({@link #phase}).
   */
  public static io.temporal.common.SearchAttributes atStart(GroupRef group, String target,
      java.util.Set<String> registered) {
    Builder b = io.temporal.common.SearchAttributes.newBuilder();
    if (registered.contains(GROUP.getName())) {
      b.set(GROUP, group.toString());
    }
    if (target != null && !target.isBlank() && registered.contains(TARGET.getName())) {
      b.set(TARGET, target);
    }
    if (registered.contains(PHASE.getName())) {
      b.set(PHASE, Phase.Pending.name());
    }
    return b.build();
  }

  static java.util.Set<String> names(java.util.List<SearchAttributeKey<String>> keys) {
    return keys.stream().map(SearchAttributeKey::getName).collect(java.util.stream.Collectors.toSet());
  }

  /**
   * Called from workflow code only. Upserts only the attributes the start carried: the starter put
   * there only what the namespace has registered, and an upsert of an unregistered attribute would
   * fail the workflow task. A start with all three (every start before this rule) upserts exactly
   * as before.
   */
  public static void phase(Phase phase, String target) {
    var carried = Workflow.getTypedSearchAttributes();
    java.util.List<io.temporal.common.SearchAttributeUpdate<?>> updates = new java.util.ArrayList<>(2);
    if (target != null && carried.containsKey(TARGET) && !target.equals(carried.get(TARGET))) {
      updates.add(TARGET.valueSet(target));
    }
    if (carried.containsKey(PHASE)) {
      updates.add(PHASE.valueSet(phase.name()));
    }
    if (!updates.isEmpty()) {
      Workflow.upsertTypedSearchAttributes(updates.toArray(new io.temporal.common.SearchAttributeUpdate<?>[0]));
    }
  }
}
