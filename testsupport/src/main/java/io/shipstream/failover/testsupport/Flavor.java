package io.shipstream.failover.testsupport;

import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.LoggerFactory;

/**
 * The two server flavors a test can run against. Its name is what a parameterised test shows in
 * its display name ({@code MYSQL}, {@code MARIADB}), so reports can be counted by flavor.
 */
public enum Flavor {
  /** MySQL 9.7 from its own Debian unstable root, run with chroot; see {@link MySqlRoot}. */
  MYSQL,
  /** MariaDB 10.11, the host's {@code mariadbd}. */
  MARIADB;

  /**
   * Why this flavor cannot run here, or empty when it can. MariaDB is always expected to be
   * installed (scripts/prerequisites does it); a missing MariaDB fails the test loudly instead.
   */
  public Optional<String> unavailableReason() {
    return this == MYSQL ? MySqlRoot.unavailableReason() : Optional.empty();
  }

  /**
   * Skips the calling test, with the exact reason, when this flavor cannot run here. Where the
   * environment says the MySQL flavor is required ({@value MySqlRoot#REQUIRED_ENV}=true, as CI
   * may), the reason fails the test instead.
   */
  public void assumeAvailable() {
    Optional<String> reason = unavailableReason();
    if (reason.isPresent() && MySqlRoot.required()) {
      throw new IllegalStateException(reason.get() + " (and " + MySqlRoot.REQUIRED_ENV + "=true)");
    }
    if (reason.isPresent() && !Logged.SKIP_REASON.getAndSet(true)) {
      // Once per JVM in the log too: a build's console shows only how many tests were skipped.
      LoggerFactory.getLogger(Flavor.class).warn("{} tests skipped: {}", name(), reason.get());
    }
    Assumptions.assumeTrue(reason.isEmpty(), () -> name() + " skipped: " + reason.orElse(""));
  }

  private static final class Logged {
    static final AtomicBoolean SKIP_REASON = new AtomicBoolean();
  }

  /** Starts one server of this flavor in a new directory under {@code baseDir}. */
  public DatabaseServer start(Path baseDir, String name) {
    return start(baseDir, name, java.util.List.of());
  }

  /** As {@link #start(Path, String)}, with extra options kept for every start of the server. */
  public DatabaseServer start(Path baseDir, String name, java.util.List<String> options) {
    return this == MYSQL ? MySqlServer.start(baseDir, name, options) : MariaDbServer.start(baseDir, name, options);
  }

  /**
   * The option that makes a server start read-only, as the README asks of every production server:
   * MariaDB's read_only, which the operator's account (READ_ONLY ADMIN) may still write through,
   * and MySQL's super_read_only, which binds that account too.
   */
  public String startReadOnlyOption() {
    return this == MYSQL ? "--super-read-only=ON" : "--read-only=ON";
  }

  /** Whether a server started with {@link #startReadOnlyOption} still takes the operator account's writes. */
  boolean operatorWritesWhileStartedReadOnly() {
    return this == MARIADB;
  }
}
