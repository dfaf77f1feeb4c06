package io.shipstream.failover.worker;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.status.Status;
import ch.qos.logback.core.status.StatusUtil;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The production logback.xml, loaded into a context of its own as the worker would load it. */
class LogFormatTest {

  @Test
  void jsonFormatWritesOneJsonObjectPerLine() throws Exception {
    LoggerContext context = configure("json");

    String line = encode(context, "worker polling task queue mysql-failover");

    assertThat(line).startsWith("{").endsWith("}\n").doesNotContain("\n{");
    assertThat(line).contains("\"message\":\"worker polling task queue mysql-failover\"",
        "\"level\":\"INFO\"", "\"logger_name\":\"io.shipstream.failover.worker.WorkerApp\"", "\"@timestamp\":");
    context.stop();
  }

  @Test
  void configurationLeavesNoWarningForLogbackToPrintAtStartup() throws Exception {
    for (String format : new String[] {"json", "text"}) {
      LoggerContext context = configure(format);

      assertThat(new StatusUtil(context).getHighestLevel(0)).as(format).isLessThan(Status.WARN);
      context.stop();
    }
  }

  @Test
  void textIsTheDefaultAndQuietsTheSdkBelowWarn() throws Exception {
    LoggerContext context = configure(null);

    String line = encode(context, "worker stopped");

    assertThat(line).contains(" INFO  [main] i.s.failover.worker.WorkerApp - worker stopped");
    assertThat(context.getLogger("io.temporal.worker.Poller").getEffectiveLevel()).isEqualTo(Level.WARN);
    assertThat(context.getLogger("io.grpc.netty.shaded.io.grpc.netty.NettyClientHandler").getEffectiveLevel())
        .isEqualTo(Level.WARN);
    context.stop();
  }

  private static LoggerContext configure(String format) throws Exception {
    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(new LogbackMDCAdapter());
    if (format != null) {
      context.putProperty("LOG_FORMAT", format);
    }
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    URL config = LogFormatTest.class.getResource("/logback.xml");
    configurator.doConfigure(config);
    return context;
  }

  /** Encodes an event with the encoder of the appender the root logger writes to. */
  @SuppressWarnings("unchecked")
  private static String encode(LoggerContext context, String message) {
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    OutputStreamAppender<?> appender = (OutputStreamAppender<?>) root.getAppender("console");
    assertThat(appender).as("root writes to the console appender").isNotNull();
    Encoder<ch.qos.logback.classic.spi.ILoggingEvent> encoder =
        (Encoder<ch.qos.logback.classic.spi.ILoggingEvent>) appender.getEncoder();
    LoggingEvent event = new LoggingEvent(WorkerApp.class.getName(), context.getLogger(WorkerApp.class),
        Level.INFO, message, null, null);
    event.setThreadName("main");
    return new String(encoder.encode(event), StandardCharsets.UTF_8);
  }
}
