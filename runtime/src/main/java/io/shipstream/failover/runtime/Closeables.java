package io.shipstream.failover.runtime;

import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Releasing what a process started, in order, without one failure leaking the rest. */
public final class Closeables {
  private static final Logger log = LoggerFactory.getLogger(Closeables.class);

  private Closeables() {}

  /** Closes in the given order and keeps going past a failure, which is logged. */
  public static void closeAll(List<AutoCloseable> resources) {
    for (AutoCloseable r : resources) {
      try {
        r.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (Exception e) {
        log.warn("error while stopping: {}", e.toString());
      }
    }
  }
}
