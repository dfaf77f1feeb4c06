package io.shipstream.failover.mysql;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Whether read_only is on, and whether it is still what the server's configuration set when it
 * started: MariaDB's SYSTEM_VARIABLES says SQL and MySQL's variables_info says DYNAMIC once any
 * SET GLOBAL touched it, so no mark of the sidecar's own is needed to tell a restarted server's
 * start-up read-only from a fence that anybody applied since.
 */
public record ReadOnlyOrigin(boolean readOnly, boolean untouchedSinceStart, Optional<Boolean> startsReadOnly) {
  private static final Set<String> SET_AT_RUNTIME = Set.of("SQL", "DYNAMIC");

  /** {@code origins}: where the value of each read-only variable came from; empty when unknown. */
  public static ReadOnlyOrigin classify(boolean readOnly, List<String> origins) {
    boolean untouched =
        origins.stream().noneMatch(o -> o.isEmpty() || SET_AT_RUNTIME.contains(o.toUpperCase(Locale.ROOT)));
    return new ReadOnlyOrigin(readOnly, untouched, untouched ? Optional.of(readOnly) : Optional.empty());
  }
}
