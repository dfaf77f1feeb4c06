package io.shipstream.failover.runtime;

import org.slf4j.bridge.SLF4JBridgeHandler;

/**
 * The logging setup every process shares. The logback configuration itself ({@code logback.xml}
 * in this module's resources) picks text or JSON lines from {@code LOG_FORMAT}; this class offers
 * the setting, validates it, and routes java.util.logging (gRPC's) through SLF4J.
 */
public final class Logging {
  public static final String LOG_FORMAT = "LOG_FORMAT";
  /** Environment only: logback reads it before {@code main} runs and parses the flags. */
  public static final Setting LOG_FORMAT_SETTING = Setting.envOnly(LOG_FORMAT, "text",
      "(logging is configured before the flags are read)");

  private Logging() {}

  /**
   * The format, checked: a typo would otherwise make logback include a configuration that does not
   * exist and log nothing at all.
   */
  public static String format(ConfigReader reader) {
    String format = reader.get(LOG_FORMAT);
    if (!format.equals("text") && !format.equals("json")) {
      reader.error(LOG_FORMAT + "=" + format + ": expected text or json");
    }
    return format;
  }

  /** Sends java.util.logging records to SLF4J; call first thing in {@code main}. */
  public static void routeJulToSlf4j() {
    SLF4JBridgeHandler.removeHandlersForRootLogger();
    SLF4JBridgeHandler.install();
  }
}
