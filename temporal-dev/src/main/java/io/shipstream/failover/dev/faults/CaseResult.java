package io.shipstream.failover.dev.faults;

import java.util.List;

/**
 * What one case did and whether every invariant held. {@code seconds} is the case itself, from a
 * ready stack; {@code readySeconds} what bringing the stack to its starting state took before it
 * (a fresh stack's start included).
 */
public record CaseResult(FaultPlan plan, String fired, String outcome, double seconds, double readySeconds,
    List<Check> checks) {

  /** One invariant's verdict for the case. */
  public record Check(String invariant, boolean held, String detail) {}

  public boolean passed() {
    return fired != null && checks.stream().allMatch(Check::held);
  }

  public String check(String invariant) {
    return checks.stream().filter(c -> c.invariant().equals(invariant)).findFirst()
        .map(c -> (c.held() ? "ok" : "FAIL") + (c.detail().isEmpty() ? "" : ": " + c.detail())).orElse("-");
  }
}
