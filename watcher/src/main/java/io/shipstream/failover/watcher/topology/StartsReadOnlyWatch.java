package io.shipstream.failover.watcher.topology;

import io.shipstream.failover.workflows.contract.Events;

/**
 * What the watcher says about one site's {@code startsReadOnly}, as its sidecar last reported it.
 * A server configured to start writable takes writes after a restart before anything decides it is
 * the primary, so a {@code false} is a Warning Event; it is said once per change, not on every
 * check, and a Normal Event follows once the server is configured to start read-only again.
 *
 * <table>
 *   <caption>What a new answer does, given the last answer and whether a Warning is outstanding</caption>
 *   <tr><th>last</th><th>warned</th><th>reported</th><th>notice</th><th>warned after</th></tr>
 *   <tr><td>not false</td><td>any</td><td>false</td><td>WRITABLE</td><td>yes</td></tr>
 *   <tr><td>false</td><td>yes</td><td>false</td><td>none</td><td>yes</td></tr>
 *   <tr><td>any</td><td>yes</td><td>true</td><td>READ_ONLY_AGAIN</td><td>no</td></tr>
 *   <tr><td>any</td><td>no</td><td>true</td><td>none</td><td>no</td></tr>
 *   <tr><td>any</td><td>any</td><td>null (unknown)</td><td>none</td><td>unchanged</td></tr>
 * </table>
 *
 * <p>Unknown keeps the outstanding Warning, so that a fix seen after a sidecar restart is still
 * announced, but forgets the last answer, so that a server still writable after it is reported
 * again: the restart may have been the operator's attempt at the fix.
 *
 * @param last the last answer, null when unknown or never heard
 * @param warned whether a Warning was emitted that no Normal Event has answered yet
 */
record StartsReadOnlyWatch(Boolean last, boolean warned) {
  static final StartsReadOnlyWatch UNKNOWN = new StartsReadOnlyWatch(null, false);

  /** The Events this watch emits; every one is declared here, once. */
  enum Notice {
    NONE(null),
    WRITABLE(Events.SERVER_STARTS_WRITABLE),
    READ_ONLY_AGAIN(Events.SERVER_STARTS_READ_ONLY);

    final String type;
    final String reason;

    Notice(Events event) {
      this.type = event == null ? null : event.type().name();
      this.reason = event == null ? null : event.reason();
    }

    String message(String site) {
      return switch (this) {
        case NONE -> null;
        case WRITABLE -> "The MySQL server of site '" + site + "' is configured to start writable: after a restart"
            + " it takes writes before anything decides it is the primary. Configure it to start read-only"
            + " (MariaDB read_only=ON in [mysqld], MySQL super_read_only=ON).";
        case READ_ONLY_AGAIN -> "The MySQL server of site '" + site + "' is configured to start read-only again.";
      };
    }
  }

  /** The watch after an answer, and what to say about it. */
  record Step(StartsReadOnlyWatch watch, Notice notice) {}

  /** Folds in one answer of the sidecar: {@code reported} is its {@code startsReadOnly}, null when unknown. */
  Step next(Boolean reported) {
    if (reported == null) {
      return new Step(new StartsReadOnlyWatch(null, warned), Notice.NONE);
    }
    if (!reported) {
      boolean news = !Boolean.FALSE.equals(last);
      return new Step(new StartsReadOnlyWatch(false, true), news ? Notice.WRITABLE : Notice.NONE);
    }
    return new Step(new StartsReadOnlyWatch(true, false), warned ? Notice.READ_ONLY_AGAIN : Notice.NONE);
  }
}
