package io.shipstream.failover.sidecar;

import io.shipstream.failover.sidecar.FencingDecision.MysqlState;

/** The MySQL next to the sidecar, as the fencing loop needs it. */
interface LocalMysql {

  /** Writable, read-only, or unreachable; never throws. */
  MysqlState state();

  /**
   * Makes the server refuse writes (super_read_only on MySQL, read_only on MariaDB) and kills the
   * application's sessions, so none goes on writing through an open transaction.
   *
   * @return how many application sessions were killed
   * @throws Exception when the server could not be fenced; the loop tries again next tick
   */
  int fence() throws Exception;

  /** Undoes the sidecar's own boot fence. */
  void unfence() throws Exception;

  /** MariaDB or MySQL once known, for the status page. */
  String flavor();
}
