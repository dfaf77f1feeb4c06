package io.shipstream.failover.workflows.dryrun;

import io.shipstream.failover.model.Reason;
import io.shipstream.failover.model.crd.DryRunStatus;
import java.util.ArrayList;
import java.util.List;

/**
 * A dry run's verdict as it is found, check by check. The first refusal decides the verdict; the
 * checks after it still run and are reported, so one dry run lists everything in the way. Workflow
 * code: plain data.
 */
final class DryRunReport {
  static final String READY = "Ready";
  static final String WOULD_WAIT = "WouldWait";
  static final String REFUSED = "Refused";
  static final String WOULD_PROMOTE = "WouldPromote";
  static final String BLOCKED = "Blocked";

  final String kind;
  String verdict;
  String reason;
  String message;
  String target;
  String source;
  Long lagTransactions;
  Long lagSeconds;
  Double estimatedWriteWindowSeconds;
  Long transactionsLost;
  final List<String> findings = new ArrayList<>();
  final List<String> warnings = new ArrayList<>();

  DryRunReport(String kind, String verdict) {
    this.kind = kind;
    this.verdict = verdict;
  }

  /** The request would fail with {@code why}; the first refusal found is the one reported. */
  void refuse(Reason why, String text) {
    refuse(why == null ? null : why.name(), text);
  }

  void refuse(String why, String text) {
    findings.add("refused" + (why == null ? "" : " (" + why + ")") + ": " + text);
    if (!REFUSED.equals(verdict)) {
      verdict = REFUSED;
      reason = why;
      message = text;
    }
  }

  /** The request would wait (and then be validated again), unless something refuses it. */
  void waitFor(Reason why, String text) {
    findings.add("would wait" + (why == null ? "" : " (" + why + ")") + ": " + text);
    if (READY.equals(verdict)) {
      verdict = WOULD_WAIT;
      reason = why == null ? null : why.name();
      message = text;
    }
  }

  boolean refused() {
    return REFUSED.equals(verdict) || BLOCKED.equals(verdict);
  }

  void find(String line) {
    findings.add(line);
  }

  void warn(String line) {
    warnings.add(line);
  }

  DryRunStatus toStatus(String request, String startTime, String completionTime, String workflowId) {
    return new DryRunStatus(request, kind, verdict, reason, message, target, source, startTime, completionTime,
        lagTransactions, lagSeconds, estimatedWriteWindowSeconds, transactionsLost, List.copyOf(findings),
        warnings.isEmpty() ? null : List.copyOf(warnings), workflowId);
  }

  /** The Event's message: the verdict in one line. */
  String summary(String request) {
    return "dry run " + request + ": " + verdict + (reason == null ? "" : " " + reason) + ": " + message
        + (warnings.isEmpty() ? "" : " (" + warnings.size() + " warning" + (warnings.size() == 1 ? "" : "s") + ")")
        + "; nothing was changed";
  }
}
