package io.shipstream.failover.workflows.contract;

/** The two Kubernetes Event types; the name is what the API server stores. */
public enum EventType {
  Normal,
  Warning
}
