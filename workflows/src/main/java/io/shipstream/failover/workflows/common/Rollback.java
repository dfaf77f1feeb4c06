package io.shipstream.failover.workflows.common;

import io.temporal.failure.TemporalFailure;
import io.temporal.workflow.Functions;
import io.temporal.workflow.Saga;
import io.temporal.workflow.Workflow;
import java.util.Optional;

/**
 * The undo of everything a failover did before its point of no return. Each step registers its
 * compensation before its side effect, so a half-done step is undone too; the runbook's top method
 * calls {@link #undo} when a {@link FailoverAbort} ends the failover. The compensations run one
 * after another, last first, in a detached scope, so that a cancel cannot stop the undo.
 */
public final class Rollback {
  private final Saga saga = new Saga(new Saga.Options.Builder().setParallelCompensation(false).build());
  private boolean any;

  public void register(Functions.Proc compensation) {
    saga.addCompensation(compensation);
    any = true;
  }

  public <A> void register(Functions.Proc1<A> compensation, A arg) {
    saga.addCompensation(compensation, arg);
    any = true;
  }

  /** Whether anything was registered, so that there is something to undo. */
  public boolean any() {
    return any;
  }

  /** Runs the compensations; empty when all of them did, else why one failed. */
  public Optional<String> undo() {
    try {
      Workflow.newDetachedCancellationScope(saga::compensate).run();
      return Optional.empty();
    } catch (Saga.CompensationException | TemporalFailure e) {
      return Optional.of(Failures.rootMessage(e));
    }
  }
}
