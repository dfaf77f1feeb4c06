package io.shipstream.failover.model;

import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.HookSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.HooksSpec;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * {@code spec.hooks} with its defaults applied: the webhooks a failover calls before it acts and
 * after its outcome is in the status. Either may be absent, and a failover with neither schedules
 * no hook call at all.
 *
 * @param preFailover called before the planned failover fences its source (a non-2xx answer within
 *     the timeout vetoes it), or as the emergency failover starts fencing (bounded, never blocks)
 * @param postFailover called after the failover's outcome is written; a failure is a Warning
 */
public record HooksConfig(Hook preFailover, Hook postFailover) {

  public static final HooksConfig NONE = new HooksConfig(null, null);
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
  /** The longest a hook may be given: a planned pre-hook holds the failover before its fence. */
  public static final Duration MAX_TIMEOUT = Duration.ofMinutes(5);
  /** The most an emergency failover gives its pre-hook: one attempt of about a second. */
  public static final Duration EMERGENCY_PRE_HOOK_TIMEOUT = Duration.ofSeconds(1);
  public static final String DEFAULT_TOKEN_KEY = "token";

  /**
   * One webhook.
   *
   * @param url an http or https URL with a host
   * @param timeout the budget of the call, retries included
   * @param bearerTokenSecret the Secret holding the bearer token, or null to send none
   * @param bearerTokenKey that Secret's key (default {@code token}); null without a Secret
   */
  public record Hook(String url, Duration timeout, String bearerTokenSecret, String bearerTokenKey) {
    /** The budget an emergency failover gives this pre-hook: its timeout, at most about a second. */
    public Duration emergencyTimeout() {
      return timeout.compareTo(EMERGENCY_PRE_HOOK_TIMEOUT) < 0 ? timeout : EMERGENCY_PRE_HOOK_TIMEOUT;
    }
  }

  /** Resolves {@code spec.hooks}, adding every problem to {@code problems}. */
  static HooksConfig resolve(HooksSpec spec, List<String> problems) {
    if (spec == null) {
      return NONE;
    }
    return new HooksConfig(hook("hooks.preFailover", spec.preFailover(), problems),
        hook("hooks.postFailover", spec.postFailover(), problems));
  }

  private static Hook hook(String field, HookSpec spec, List<String> problems) {
    if (spec == null) {
      return null;
    }
    int before = problems.size();
    String urlProblem = urlProblem(spec.url());
    if (urlProblem != null) {
      problems.add(field + ".url " + urlProblem);
    }
    Duration timeout = DEFAULT_TIMEOUT;
    if (spec.timeout() != null) {
      try {
        timeout = Durations.parse(spec.timeout());
        if (timeout.isZero() || timeout.compareTo(MAX_TIMEOUT) > 0) {
          problems.add(field + ".timeout must be more than 0 and at most " + Durations.format(MAX_TIMEOUT) + ", not "
              + spec.timeout());
        }
      } catch (IllegalArgumentException e) {
        problems.add(field + ".timeout: " + e.getMessage());
      }
    }
    String secret = null;
    String key = null;
    if (spec.bearerTokenSecret() != null) {
      secret = spec.bearerTokenSecret().name();
      key = spec.bearerTokenSecret().key() == null ? DEFAULT_TOKEN_KEY : spec.bearerTokenSecret().key();
      if (secret == null || secret.isBlank()) {
        problems.add(field + ".bearerTokenSecret.name is required");
      }
      if (key.isBlank()) {
        problems.add(field + ".bearerTokenSecret.key must not be empty");
      }
    }
    return problems.size() > before ? null : new Hook(spec.url(), timeout, secret, key);
  }

  /**
   * Why {@code url} cannot be a hook's URL, or null: it must be absolute http(s) with a host and
   * no blank. Read by hand, not with java.net.URI: the model does no I/O, and keeps clear of the
   * networking package altogether (ArchitectureTest).
   */
  static String urlProblem(String url) {
    if (url == null || url.isBlank()) {
      return "is required";
    }
    String lower = url.toLowerCase(Locale.ROOT);
    int authorityStart = lower.startsWith("http://") ? 7 : lower.startsWith("https://") ? 8 : -1;
    if (authorityStart < 0) {
      return "'" + url + "' must be an http:// or https:// URL";
    }
    if (url.chars().anyMatch(Character::isWhitespace)) {
      return "'" + url + "' is not a URL: it contains a blank";
    }
    int authorityEnd = authorityStart;
    while (authorityEnd < url.length() && "/?#".indexOf(url.charAt(authorityEnd)) < 0) {
      authorityEnd++;
    }
    String authority = url.substring(authorityStart, authorityEnd);
    String hostAndPort = authority.substring(authority.lastIndexOf('@') + 1);
    String host = hostAndPort;
    String port = null;
    int colon = hostAndPort.lastIndexOf(':');
    if (colon >= 0 && colon > hostAndPort.lastIndexOf(']')) {
      host = hostAndPort.substring(0, colon);
      port = hostAndPort.substring(colon + 1);
    }
    if (host.isEmpty()) {
      return "'" + url + "' names no host";
    }
    if (port != null && !port.matches("[0-9]{1,5}")) {
      return "'" + url + "' is not a URL: bad port '" + port + "'";
    }
    if (port != null && (Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535)) {
      return "'" + url + "' is not a URL: port " + port + " is out of range";
    }
    return null;
  }
}
