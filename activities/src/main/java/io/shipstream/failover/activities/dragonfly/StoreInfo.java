package io.shipstream.failover.activities.dragonfly;

import io.shipstream.failover.workflows.activities.StoreState;
import java.util.HashMap;
import java.util.Map;

/**
 * One INFO reply, read the same way for Dragonfly, Redis and Valkey. Dragonfly also reports a
 * {@code redis_version}, and Valkey too, so the flavor is decided by the field only each of them
 * has; a replica says {@code role:slave} on Redis and Valkey and {@code role:replica} on Dragonfly.
 */
record StoreInfo(Map<String, String> fields) {
  static final String DRAGONFLY = "dragonfly";
  static final String REDIS = "redis";
  static final String VALKEY = "valkey";

  static StoreInfo parse(String info) {
    Map<String, String> fields = new HashMap<>();
    for (String line : info.split("\r?\n")) {
      int colon = line.indexOf(':');
      if (line.isBlank() || line.startsWith("#") || colon < 0) {
        continue;
      }
      fields.put(line.substring(0, colon).trim(), line.substring(colon + 1).trim());
    }
    return new StoreInfo(fields);
  }

  String flavor() {
    if (fields.containsKey("dragonfly_version")) {
      return DRAGONFLY;
    }
    if (fields.containsKey("valkey_version") || VALKEY.equals(fields.get("server_name"))) {
      return VALKEY;
    }
    return REDIS;
  }

  String role() {
    String role = fields.get("role");
    if (role == null) {
      return null;
    }
    return role.equals("master") ? StoreState.MASTER : StoreState.REPLICA;
  }

  boolean isMaster() {
    return StoreState.MASTER.equals(role());
  }

  boolean isReplica() {
    return StoreState.REPLICA.equals(role());
  }

  String masterHost() {
    return fields.get("master_host");
  }

  Integer masterPort() {
    String port = fields.get("master_port");
    return port == null ? null : Integer.valueOf(port);
  }

  /** Link up and the initial (full) sync done: from here on the replica follows the stream. */
  boolean linkUp() {
    return "up".equals(fields.get("master_link_status")) && !"1".equals(fields.get("master_sync_in_progress"));
  }

  /** The master's own offset, or how far a replica has processed; -1 when not reported. */
  long offset() {
    String value = fields.get(isMaster() ? "master_repl_offset" : "slave_repl_offset");
    if (value == null) {
      return -1;
    }
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Redis/Valkey while a FAILOVER runs: waiting-for-sync or failover-in-progress. */
  boolean failoverRunning() {
    String state = fields.get("master_failover_state");
    return state != null && !state.equals("no-failover");
  }

  StoreState toState(String site) {
    return new StoreState(site, true, null, flavor(), role(), masterHost(), masterPort(), linkUp(), offset());
  }
}
