package io.shipstream.failover.dev;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;

/**
 * Drops the traces that only a worker killed inside this JVM leaves, and nothing else.
 *
 * <p>{@link ControlPlane#killWorker} stands for a crashed pod, which dies without a word; here
 * the worker's threads are interrupted instead. One of them may be closing a workflow's coroutines
 * just then (the worker keeps no workflow cache, so it closes them after every task), and the SDK
 * answers the interrupt with {@code Error("Worker executor thread interrupted during stopping of
 * a coroutine")}: it logs it at ERROR, and Guava's cache, whose removal listener rethrows it,
 * prints it again with its stack trace through java.util.logging, straight onto the console of
 * the fault suite. Both are the expected end of a kill, not news; any other failure of the cache
 * or the SDK is still logged.
 */
final class KilledWorkerNoise {
  static final String INTERRUPTED_CLOSE = "Worker executor thread interrupted during stopping of a coroutine";
  // A strong reference, so that the filter set on it is not collected with the logger.
  private static final java.util.logging.Logger GUAVA_CACHE =
      java.util.logging.Logger.getLogger("com.google.common.cache.LocalCache");
  private static boolean installed;

  private KilledWorkerNoise() {}

  /** Whether {@code thrown} (or a cause of it) is the SDK's answer to an interrupted coroutine close. */
  static boolean isKillArtifact(Throwable thrown) {
    for (Throwable t = thrown; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof Error && t.getMessage() != null && t.getMessage().startsWith(INTERRUPTED_CLOSE)) {
        return true;
      }
    }
    return false;
  }

  /** Installs the two filters once per JVM; idempotent. */
  static synchronized void install() {
    if (installed) {
      return;
    }
    installed = true;
    GUAVA_CACHE.setFilter(record -> !isKillArtifact(record.getThrown()));
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext logback) {
      TurboFilter filter = new TurboFilter() {
        @Override
        public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params,
            Throwable t) {
          return logger.getName().startsWith("io.temporal.") && isKillArtifact(t) ? FilterReply.DENY
              : FilterReply.NEUTRAL;
        }
      };
      filter.setName("killed-worker-noise");
      filter.setContext(logback);
      filter.start();
      logback.addTurboFilter(filter);
    }
  }
}
