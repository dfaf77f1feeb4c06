package io.shipstream.failover.kube;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Read-modify-write retries. Every write here either carries a precondition (a JSON patch
 * {@code test} op, a resourceVersion) or can race a create; when the precondition fails the only
 * correct move is to read again and recompute, never to resend the stale request.
 */
public final class Conflicts {
  private static final Logger log = LoggerFactory.getLogger(Conflicts.class);
  public static final int MAX_ATTEMPTS = 5;

  private Conflicts() {}

  /**
   * Runs attempt until it returns without a conflict. 409 is an optimistic-lock or
   * already-exists conflict; 422 is what the API server answers when a JSON patch {@code test}
   * op fails. Anything else, or the last conflict, propagates so Temporal's retry policy decides.
   */
  public static <T> T retry(String what, Supplier<T> attempt) {
    for (int i = 1;; i++) {
      try {
        return attempt.get();
      } catch (KubernetesClientException e) {
        if (!isConflict(e) || i >= MAX_ATTEMPTS) {
          throw e;
        }
        log.debug("Conflict on {} (HTTP {}), attempt {} of {}; reading again", what, e.getCode(), i, MAX_ATTEMPTS);
        pause(i);
      }
    }
  }

  public static void retryRun(String what, Runnable attempt) {
    retry(what, () -> {
      attempt.run();
      return null;
    });
  }

  public static boolean isConflict(KubernetesClientException e) {
    return e.getCode() == 409 || e.getCode() == 422;
  }

  public static boolean isNotFound(KubernetesClientException e) {
    return e.getCode() == 404;
  }

  // A short, growing pause lets the competing writer finish; the attempts stay well inside any
  // sensible activity timeout (10 + 20 + 30 + 40 ms).
  private static void pause(int attempt) {
    try {
      Thread.sleep(10L * attempt);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while retrying a conflicting write", e);
    }
  }
}
