package io.shipstream.failover.workflows.common;

import io.temporal.failure.ApplicationFailure;

/** Reading the activity failures a workflow catches: their type and the message worth showing a user. */
public final class Failures {
  private Failures() {}

  /** The type of the innermost application failure (the activity's own), or null. */
  public static String type(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ApplicationFailure af) {
        return af.getType();
      }
    }
    return null;
  }

  /**
   * The message of the root cause, without the wrappers Temporal adds: "could not fence iad:
   * connection refused" is what a user needs, not the activity id and attempt count.
   */
  public static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof ApplicationFailure af) {
      return af.getOriginalMessage();
    }
    return t.getMessage();
  }
}
