package io.shipstream.failover.sidecar;

import io.shipstream.failover.sidecar.FencingDecision.MysqlState;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;

/**
 * A server whose look blocks while the test holds it, as a JDBC call hung past its timeout would:
 * the calling thread is stuck in {@link #state} until {@link #release}.
 */
final class BlockingLocalMysql implements LocalMysql {
  private final FakeLocalMysql answers;
  private volatile CountDownLatch gate = new CountDownLatch(0);
  private final Semaphore entered = new Semaphore(0);

  BlockingLocalMysql(MysqlState state) {
    this.answers = new FakeLocalMysql(state);
  }

  /** From now on, a look blocks until {@link #release}. */
  void hang() {
    gate = new CountDownLatch(1);
  }

  void release() {
    gate.countDown();
  }

  /** Waits until a look has entered the hang. */
  void awaitStuck() throws InterruptedException {
    entered.acquire();
  }

  @Override
  public MysqlState state() {
    CountDownLatch current = gate;
    if (current.getCount() > 0) {
      entered.release();
      try {
        current.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return answers.state();
  }

  @Override
  public int fence() throws Exception {
    return answers.fence();
  }

  @Override
  public void unfence() {
    answers.unfence();
  }

  @Override
  public String flavor() {
    return answers.flavor();
  }
}
