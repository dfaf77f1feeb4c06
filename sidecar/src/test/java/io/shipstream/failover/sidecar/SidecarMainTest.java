package io.shipstream.failover.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class SidecarMainTest {

  @Test
  void aZeroIntervalIsRefusedWithOneClearLineAndNothingStarts() {
    Map<String, String> env = new HashMap<>(Map.of("SITE", "iad", "GROUP", "orders", "NAMESPACE", "shop",
        "MYSQL_USER", "failover", "MYSQL_PASSWORD", "pw-7c1e", "WATCHER_URL", "http://127.0.0.1:1",
        "AUTH_TOKEN", "tok-2b9d", "PEER_CHECK_INTERVAL", "0s", "HTTP_PORT", "0"));
    Logger logger = (Logger) LoggerFactory.getLogger(SidecarMain.class);
    ListAppender<ILoggingEvent> captured = new ListAppender<>();
    captured.start();
    logger.addAppender(captured);
    try {
      Optional<Sidecar> started = SidecarMain.start(env, new String[0]);

      assertThat(started).isEmpty();
    } finally {
      logger.detachAppender(captured);
    }

    List<String> lines = captured.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    assertThat(lines).containsExactly("refusing to start: PEER_CHECK_INTERVAL (0s) must be at least 100ms");
    assertThat(captured.list).allSatisfy(event -> assertThat(event.getThrowableProxy()).isNull());
    assertThat(Thread.getAllStackTraces().keySet())
        .noneMatch(thread -> thread.getName().startsWith("sidecar-iad"));
  }
}
