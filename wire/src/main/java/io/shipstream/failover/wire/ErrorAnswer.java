package io.shipstream.failover.wire;

/**
 * The body of the watcher's refusals (4xx, 5xx) on {@code /active-site}: one sentence for a
 * person. No process reads it; the status code is the answer.
 */
public record ErrorAnswer(String error) {}
