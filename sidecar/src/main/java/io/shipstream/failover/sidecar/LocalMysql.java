package io.shipstream.failover.sidecar;

import io.shipstream.failover.sidecar.FencingDecision.MysqlState;
import java.util.Optional;

/** The MySQL next to the sidecar, as the fencing loop needs it. */
interface LocalMysql {

  /**
   * WRITABLE, READ_ONLY, STARTUP_READ_ONLY (read_only from the server's configuration, untouched
   * since it started, on a server that replicates from nobody) or UNREACHABLE; never throws.
   */
  MysqlState state();

  /**
   * Whether the server's configuration starts it read-only, as last learned (a server whose
   * read_only a statement changed since it started no longer tells); empty while unknown.
   */
  default Optional<Boolean> startsReadOnly() {
    return Optional.empty();
  }

  /**
   * Makes the server refuse writes (super_read_only on MySQL, read_only on MariaDB) and kills the
   * application's sessions, so none goes on writing through an open transaction.
   *
   * @return how many application sessions were killed
   * @throws Exception when the server could not be fenced; the loop tries again next tick
   */
  int fence() throws Exception;

  /** Undoes the sidecar's own boot fence, or the server's start-up read-only. */
  void unfence() throws Exception;

  /** MariaDB or MySQL once known, for the status page. */
  String flavor();
}
