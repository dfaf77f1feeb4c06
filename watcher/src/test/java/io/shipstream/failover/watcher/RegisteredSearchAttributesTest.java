package io.shipstream.failover.watcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The detection the watcher starts failovers by, against a fake listing: it never throws. */
class RegisteredSearchAttributesTest {
  private Instant now = Instant.parse("2026-11-24T21:00:00Z");
  private final Clock clock = new Clock() {
    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  };

  @Test
  void onlyTheFailoverAttributesTheNamespaceHas() {
    var listing = new AtomicReference<Set<String>>(Set.of("FailoverGroup", "FailoverPhase", "CustomerId"));
    var registered = new RegisteredSearchAttributes(listing::get, clock);
    assertThat(registered.get()).containsExactlyInAnyOrder("FailoverGroup", "FailoverPhase");

    listing.set(Set.of("FailoverGroup", "FailoverTarget", "FailoverPhase"));
    assertThat(registered.get()).as("cached for a minute").containsExactlyInAnyOrder("FailoverGroup",
        "FailoverPhase");
    now = now.plus(RegisteredSearchAttributes.TTL);
    assertThat(registered.get()).containsExactlyInAnyOrder("FailoverGroup", "FailoverTarget", "FailoverPhase");
  }

  @Test
  void aNamespaceThatCannotBeAskedGivesTheLastKnownOnesAndNeverThrows() {
    AtomicInteger calls = new AtomicInteger();
    Supplier<Set<String>> failing = () -> {
      if (calls.getAndIncrement() == 1) {
        return Set.of("FailoverGroup");
      }
      throw Status.UNIMPLEMENTED.withDescription("no operator service").asRuntimeException();
    };
    var registered = new RegisteredSearchAttributes(failing, clock);
    assertThat(registered.get()).as("never seen: none").isEmpty();
    now = now.plus(RegisteredSearchAttributes.TTL);
    assertThat(registered.get()).containsExactly("FailoverGroup");
    now = now.plus(RegisteredSearchAttributes.TTL);
    assertThat(registered.get()).as("the last known ones").containsExactly("FailoverGroup");
  }

  /** What the groups' SearchAttributesRegistered condition is computed from. */
  @Test
  void theCheckNamesWhatIsMissingAndIsUnknownUntilAListingSucceeds() {
    AtomicInteger calls = new AtomicInteger();
    Supplier<Set<String>> listing = () -> switch (calls.getAndIncrement()) {
      case 0 -> throw Status.UNIMPLEMENTED.withDescription("no operator service").asRuntimeException();
      case 1 -> Set.of("FailoverGroup", "FailoverPhase", "CustomerId");
      case 2 -> Set.of("FailoverGroup", "FailoverTarget", "FailoverPhase");
      default -> throw Status.UNAVAILABLE.withDescription("frontend restarting").asRuntimeException();
    };
    var registered = new RegisteredSearchAttributes(listing, clock);
    var never = registered.check();
    assertThat(never.missing()).as("never listed: unknown").isNull();
    assertThat(never.why()).contains("no operator service");

    now = now.plus(RegisteredSearchAttributes.TTL);
    assertThat(registered.check().missing()).containsExactly("FailoverTarget");
    now = now.plus(RegisteredSearchAttributes.TTL);
    assertThat(registered.check().missing()).isEmpty();
    now = now.plus(RegisteredSearchAttributes.TTL);
    assertThat(registered.check().missing()).as("a failed look-up keeps the last listing").isEmpty();
  }
}
