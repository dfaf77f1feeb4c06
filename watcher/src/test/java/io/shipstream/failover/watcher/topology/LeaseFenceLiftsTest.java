package io.shipstream.failover.watcher.topology;

import static io.shipstream.failover.watcher.topology.Fixtures.ORDERS;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupStatus;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.LeaseFenceRelease;
import io.shipstream.failover.model.topology.LeaseFenceRelease.SidecarFence;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.model.topology.SiteObservation;
import io.shipstream.failover.model.topology.SiteState;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The lift's loop around {@link LeaseFenceRelease}: the sidecar asked aside, the lift under the start lock, Events. */
class LeaseFenceLiftsTest {
  private final List<String> lifted = new CopyOnWriteArrayList<>();
  private final List<String> events = new CopyOnWriteArrayList<>();
  private final AtomicBoolean failoverStartsMeanwhile = new AtomicBoolean();
  private final AtomicInteger asked = new AtomicInteger();
  private volatile SidecarFence sidecarSays = new SidecarFence("rule2", true);
  private volatile String liftFails;

  private final LeaseFenceLifts.Effects effects = new LeaseFenceLifts.Effects() {
    @Override
    public boolean liftLeaseFence(GroupRef group, GroupConfig config, SiteSpec site) {
      if (liftFails != null) {
        throw new IllegalStateException(liftFails);
      }
      if (failoverStartsMeanwhile.get()) {
        return false;
      }
      lifted.add(site.name());
      return true;
    }

    @Override
    public void event(GroupRef group, String type, String reason, String message) {
      events.add(type + " " + reason + ": " + message);
    }
  };

  /** What the monitor keeps about the group while its polls run. */
  private final GroupMemory memory = new GroupMemory();
  private final LeaseFenceLifts lifts = new LeaseFenceLifts(effects, (group, url) -> {
    asked.incrementAndGet();
    assertThat(url).isEqualTo("http://iad-sidecar:8080");
    return Optional.of(sidecarSays);
  }, Clock.systemUTC());

  @AfterEach
  void close() {
    lifts.close();
  }

  /** iad (with a sidecar) fenced, no source; pdx and dr read-only replicas holding nothing more. */
  private static Map<String, SiteObservation> fenced() {
    return Map.of("iad", seen(new Probe("iad", true, true, "0-1-100", "1", false, null, null, Fixtures.NOW)),
        "pdx", seen(Fixtures.replica("pdx", "0-1-100")), "dr", seen(Fixtures.replica("dr", "0-1-99")));
  }

  private static SiteObservation seen(Probe p) {
    return new SiteObservation(SiteState.READ_ONLY, p, p);
  }

  private static GroupConfig config() {
    MysqlFailoverGroupSpec spec = Fixtures.spec("0s", List.of());
    List<SiteSpec> sites = spec.sites().stream().map(t -> !t.name().equals("iad") ? t : new SiteSpec(t.name(),
        t.role(), t.zone(), t.mysql(), t.podSelector(), t.taintNodeSelector(), t.lbIP(),
        new SiteSpec.Sidecar("http://iad-sidecar:8080"), t.dragonfly())).toList();
    return GroupConfig.resolve(new MysqlFailoverGroupSpec(sites, spec.credentialsSecretRef(), spec.pollInterval(),
        spec.failureThreshold(), spec.recoveryThreshold(), spec.failoverCooldown(), spec.connectionDrainTimeout(),
        spec.plannedFailover(), spec.splitBrainPolicy(), spec.dns(), spec.sidecar(), spec.dragonfly()));
  }

  private LeaseFenceRelease.Decision check() {
    return lifts.check(memory, ORDERS, config(), MysqlFailoverGroupStatus.empty().withActiveSite("iad"), fenced());
  }

  /** Evaluations until the sidecar's answer has come back and been acted on. */
  private LeaseFenceRelease.Decision checkUntilAnswered() throws InterruptedException {
    long until = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    LeaseFenceRelease.Decision d = check();
    while (d instanceof LeaseFenceRelease.Keep k && k.askSidecar() && System.nanoTime() < until) {
      Thread.sleep(10);
      d = check();
    }
    return d;
  }

  @Test
  void theSidecarIsAskedAsideAndItsLeaseFenceLiftedAtTheNextEvaluation() throws InterruptedException {
    LeaseFenceRelease.Decision first = check();
    assertThat(first).isInstanceOf(LeaseFenceRelease.Keep.class);
    assertThat(lifted).isEmpty();

    assertThat(checkUntilAnswered()).isInstanceOf(LeaseFenceRelease.Lift.class);
    assertThat(lifted).containsExactly("iad");
    assertThat(events).singleElement().asString().startsWith("Normal LeaseFenceLifted: the sidecar of 'iad' fenced it");
    assertThat(asked.get()).isPositive();
  }

  @Test
  void aFailoverStartedBeforeTheLiftKeepsTheFence() throws InterruptedException {
    failoverStartsMeanwhile.set(true);

    checkUntilAnswered();

    assertThat(lifted).isEmpty();
    assertThat(events).isEmpty();
  }

  @Test
  void aReadOnlyTheSidecarDidNotSetIsNeverLifted() throws InterruptedException {
    sidecarSays = new SidecarFence(null, true);

    LeaseFenceRelease.Decision d = checkUntilAnswered();

    assertThat(d).isInstanceOf(LeaseFenceRelease.Keep.class);
    assertThat(d.reason()).contains("not its sidecar's lease fence");
    assertThat(lifted).isEmpty();
  }

  @Test
  void aFailingLiftIsOneWarningPerDistinctFailure() throws InterruptedException {
    liftFails = "Access denied";

    checkUntilAnswered();
    checkUntilAnswered();

    assertThat(events).singleElement().asString()
        .isEqualTo("Warning LeaseFenceLiftFailed: could not lift the lease fence of 'iad': Access denied");
  }
}
