package io.shipstream.failover.watcher;

import io.shipstream.failover.model.topology.GroupConditions;
import io.shipstream.failover.workflows.SearchAttributes;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which of the failover search attributes the namespace has, as Temporal's
 * {@code ListSearchAttributes} says, looked up at most once a {@link #TTL}. An unregistered
 * attribute fails a workflow start, so the watcher starts failovers with only these; when the
 * namespace lacks some, or cannot be asked, one log line says so (again only when that changes)
 * and failovers start without them. Never throws: an emergency failover must not fail to start for
 * want of an attribute. {@link #check} gives the same finding to every group's
 * {@code SearchAttributesRegistered} condition.
 */
public final class RegisteredSearchAttributes implements Supplier<Set<String>> {
  private static final Logger log = LoggerFactory.getLogger(RegisteredSearchAttributes.class);
  static final Duration TTL = Duration.ofMinutes(1);

  private final Supplier<Set<String>> list;
  private final Clock clock;
  private Set<String> known = Set.of();
  /** What the last successful listing lacked; null until one succeeded. */
  private Set<String> missing;
  private String lastError = "not listed yet";
  private Instant checkedAt;
  private String lastReport;

  RegisteredSearchAttributes(Supplier<Set<String>> list, Clock clock) {
    this.list = list;
    this.clock = clock;
  }

  /** Asks the operator service on the client's connection, for the client's namespace. */
  public static RegisteredSearchAttributes of(WorkflowClient client) {
    OperatorServiceStubs operator = OperatorServiceStubs.newServiceStubs(OperatorServiceStubsOptions.newBuilder()
        .setChannel(client.getWorkflowServiceStubs().getRawChannel()).validateAndBuildWithDefaults());
    String namespace = client.getOptions().getNamespace();
    return new RegisteredSearchAttributes(() -> operator.blockingStub().withDeadlineAfter(5, TimeUnit.SECONDS)
        .listSearchAttributes(ListSearchAttributesRequest.newBuilder().setNamespace(namespace).build())
        .getCustomAttributesMap().keySet(), Clock.systemUTC());
  }

  /** The failover attributes the namespace has; the last known ones (at first none) when it cannot be asked. */
  @Override
  public synchronized Set<String> get() {
    Instant now = clock.instant();
    if (checkedAt != null && now.isBefore(checkedAt.plus(TTL))) {
      return known;
    }
    checkedAt = now;
    Set<String> wanted = new TreeSet<>();
    SearchAttributes.ALL.forEach(k -> wanted.add(k.getName()));
    try {
      Set<String> registered = list.get();
      Set<String> present = new TreeSet<>(wanted);
      present.retainAll(registered);
      Set<String> missing = new TreeSet<>(wanted);
      missing.removeAll(present);
      known = Set.copyOf(present);
      this.missing = Set.copyOf(missing);
      report(missing.isEmpty() ? null : "the Temporal namespace lacks the search attributes " + missing
          + ": failovers start and run without them (register them, or let the worker do it at start-up)");
    } catch (RuntimeException e) {
      lastError = e.getMessage();
      report("could not list the Temporal namespace's search attributes (" + e.getMessage() + "): failovers start "
          + "with " + (known.isEmpty() ? "none" : "the ones last seen " + known));
    }
    return known;
  }

  /**
   * For the groups' {@code SearchAttributesRegistered} condition: what the latest successful
   * listing lacked, or Unknown while none has succeeded (a server without the operator service,
   * such as Temporal's Java test server, answers UNIMPLEMENTED). Like {@link #get}, never throws.
   */
  public synchronized GroupConditions.SearchAttributeCheck check() {
    get();
    return missing == null ? GroupConditions.SearchAttributeCheck.unknown(lastError)
        : GroupConditions.SearchAttributeCheck.listed(missing);
  }

  private void report(String problem) {
    if (java.util.Objects.equals(problem, lastReport)) {
      return;
    }
    if (problem == null) {
      log.info("the Temporal namespace has the search attributes {}", known);
    } else {
      log.warn(problem);
    }
    lastReport = problem;
  }
}
