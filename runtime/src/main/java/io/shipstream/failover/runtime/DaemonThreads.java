package io.shipstream.failover.runtime;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Threads a process's background work runs on: they never keep the process alive on their own. */
public final class DaemonThreads {
  private DaemonThreads() {}

  /** Daemon threads named {@code name-1}, {@code name-2}, … in the order they are made. */
  public static ThreadFactory named(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
