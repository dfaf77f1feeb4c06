package io.shipstream.failover.workflows;

/** Task-queue names shared by the worker (which polls them) and the watcher (which starts on them). */
public final class TaskQueues {
  public static final String FAILOVER = "mysql-failover";

  private TaskQueues() {}
}
