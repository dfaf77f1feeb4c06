package io.shipstream.failover.sidecar;

import io.shipstream.failover.sidecar.FencingDecision.MysqlState;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A server that is only a read_only flag, recording what the sidecar did to it. */
final class FakeLocalMysql implements LocalMysql {
  volatile MysqlState state;
  volatile boolean refuseFence;
  final List<String> calls = new CopyOnWriteArrayList<>();

  FakeLocalMysql(MysqlState state) {
    this.state = state;
  }

  @Override
  public MysqlState state() {
    return state;
  }

  @Override
  public int fence() throws SQLException {
    if (refuseFence) {
      calls.add("fence refused");
      throw new SQLException("Access denied; you need the SUPER privilege", "42000", 1227);
    }
    calls.add("fence");
    state = MysqlState.READ_ONLY;
    return 3;
  }

  @Override
  public void unfence() {
    calls.add("unfence");
    state = MysqlState.WRITABLE;
  }

  @Override
  public String flavor() {
    return "MariaDB";
  }
}
