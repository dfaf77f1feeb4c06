package io.shipstream.failover.dev;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Only the traces of an in-process worker kill are dropped: the SDK's interrupted coroutine close,
 * through logback and through Guava's java.util.logging warning; anything else still shows.
 */
class KilledWorkerNoiseTest {
  private static final Error KILLED = new Error(KilledWorkerNoise.INTERRUPTED_CLOSE, new InterruptedException());

  @BeforeAll
  static void install() throws ClassNotFoundException {
    // As every user of the stack gets it: by loading the ControlPlane every FailoverStack starts.
    Class.forName(ControlPlane.class.getName());
  }

  @Test
  void recognisesTheInterruptedCoroutineCloseWhereverItIsWrapped() {
    assertThat(KilledWorkerNoise.isKillArtifact(KILLED)).isTrue();
    assertThat(KilledWorkerNoise.isKillArtifact(new RuntimeException("Failure processing workflow task", KILLED)))
        .isTrue();
    assertThat(KilledWorkerNoise.isKillArtifact(new Error("[BUG] Unexpected failure while stopping a coroutine")))
        .isFalse();
    assertThat(KilledWorkerNoise.isKillArtifact(new IllegalStateException(KilledWorkerNoise.INTERRUPTED_CLOSE)))
        .as("only the SDK's Error").isFalse();
    assertThat(KilledWorkerNoise.isKillArtifact(null)).isFalse();
  }

  @Test
  void guavasWarningOfTheKillNoLongerReachesTheConsoleButOthersDo() {
    Logger cache = Logger.getLogger("com.google.common.cache.LocalCache");
    List<LogRecord> published = new CopyOnWriteArrayList<>();
    Handler capture = new Handler() {
      @Override
      public void publish(LogRecord record) {
        published.add(record);
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    cache.addHandler(capture);
    try {
      cache.log(Level.WARNING, "Exception thrown by removal listener", KILLED);
      cache.log(Level.WARNING, "Exception thrown by removal listener", new IllegalStateException("a real bug"));
    } finally {
      cache.removeHandler(capture);
    }

    assertThat(published).singleElement().satisfies(r -> assertThat(r.getThrown()).hasMessage("a real bug"));
  }

  @Test
  void theSdksErrorOfTheKillIsDroppedButItsOtherErrorsAreNot() {
    ch.qos.logback.classic.Logger sdk =
        (ch.qos.logback.classic.Logger) LoggerFactory.getLogger("io.temporal.internal.worker.WorkflowExecutorCache");
    ListAppender<ILoggingEvent> captured = new ListAppender<>();
    captured.start();
    sdk.addAppender(captured);
    try {
      sdk.error("Workflow execution closure failed with an exception", KILLED);
      sdk.error("Workflow execution closure failed with an exception", new IllegalStateException("a real bug"));
    } finally {
      sdk.detachAppender(captured);
    }

    assertThat(captured.list).singleElement()
        .satisfies(e -> assertThat(e.getThrowableProxy().getMessage()).isEqualTo("a real bug"));
  }
}
