package io.shipstream.failover.workflows.common;

/**
 * How the promotion of the target ended, the point of no return of both runbooks. Only a target
 * proven read-only after a failed promotion allows undoing what came before; when that cannot be
 * proven, nothing is undone and a person must look, since two writable servers are worse than none.
 */
public sealed interface PromotionOutcome {
  /** The target is the writable primary at {@code gtidExecuted}: from here the workflow only goes forward. */
  record Promoted(String gtidExecuted) implements PromotionOutcome {}

  /** The promotion failed and the target is read-only again, so the source may take writes again. */
  record Reversible(String why) implements PromotionOutcome {}

  /** The promotion failed and whether the target takes writes is unknown: manual recovery. */
  record Stuck(String why) implements PromotionOutcome {}
}
