package io.shipstream.failover.model.topology;

/**
 * The debounced state of one site, as {@link SiteDebouncer} decides it and {@link TopologyMatrix}
 * consumes it. The names are what {@code status.sites[].state} shows.
 */
public enum SiteState {
  /** No verdict yet: the watcher has just started and has not seen enough polls. Never acted on. */
  UNKNOWN,
  /** The server answers and accepts writes ({@code read_only=OFF}). */
  WRITABLE,
  /** The server answers and refuses application writes ({@code read_only} or {@code super_read_only}). */
  READ_ONLY,
  /** The server did not answer {@code failureThreshold} polls in a row. */
  UNREACHABLE
}
