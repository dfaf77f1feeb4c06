package io.shipstream.failover.sidecar;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The sidecar process: configuration from the environment and flags, then {@link Sidecar#start}. */
public final class SidecarMain {
  private static final Logger LOG = LoggerFactory.getLogger(SidecarMain.class);
  /** Exit status for a configuration the sidecar refuses to run with. */
  static final int BAD_CONFIG = 2;

  private SidecarMain() {}

  public static void main(String[] args) throws InterruptedException {
    Optional<Sidecar> started = start(System.getenv(), args);
    if (started.isEmpty()) {
      System.exit(BAD_CONFIG);
      return;
    }
    Sidecar sidecar = started.get();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      sidecar.close();
      stopped.countDown();
    }, "sidecar-shutdown"));
    stopped.await();
  }

  /**
   * Starts the sidecar, or logs why the configuration is refused and starts nothing: no scheduler
   * and no server, so a bad knob (a zero interval) can neither spin nor fence.
   */
  static Optional<Sidecar> start(Map<String, String> env, String[] args) {
    SidecarConfig config;
    try {
      config = SidecarConfig.from(env, args);
    } catch (SidecarConfig.InvalidConfigException e) {
      // One clear line per problem and no stack trace: this is the operator's edit to make.
      e.problems().forEach(problem -> LOG.error("refusing to start: {}", problem));
      return Optional.empty();
    }
    return Optional.of(Sidecar.start(config));
  }
}
