package io.shipstream.failover.sidecar;

import java.time.Duration;
import java.util.Optional;

/** A server process that is only a liveness, counting the stops the sidecar asked for. */
final class FakeServerProcess extends ServerProcess {
  volatile Liveness liveness = Liveness.ALIVE;
  volatile int stops;

  FakeServerProcess() {
    super(null, 0);
  }

  @Override
  void refresh() {
    liveness = Liveness.ALIVE;
  }

  @Override
  Liveness liveness() {
    return liveness;
  }

  @Override
  Optional<Pid> known() {
    return liveness == Liveness.UNKNOWN ? Optional.empty() : Optional.of(new Pid(4242, 1));
  }

  @Override
  Optional<Character> kernelState() {
    return Optional.of('T');
  }

  @Override
  boolean stop(Duration wait) {
    stops++;
    liveness = Liveness.EXITED;
    return true;
  }
}
