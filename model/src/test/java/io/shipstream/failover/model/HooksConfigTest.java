package io.shipstream.failover.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.shipstream.failover.model.GroupConfig.InvalidSpecException;
import io.shipstream.failover.model.HooksConfig.Hook;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.HookSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.HooksSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.SecretKeyRef;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code spec.hooks} as GroupConfig resolves it: the defaults, and every refusal naming its field. */
class HooksConfigTest {

  private static MysqlFailoverGroupSpec withHooks(HooksSpec hooks) {
    MysqlFailoverGroupSpec s = Specs.minimal();
    return new MysqlFailoverGroupSpec(s.sites(), s.credentialsSecretRef(), s.pollInterval(), s.failureThreshold(),
        s.recoveryThreshold(), s.failoverCooldown(), s.connectionDrainTimeout(), s.plannedFailover(),
        s.splitBrainPolicy(), s.dns(), s.sidecar(), s.dragonfly(), s.emergencyFailover(), s.minSourceSilence(),
        s.semiSync(), hooks);
  }

  @Test
  void noHooksIsTheDefault() {
    assertThat(GroupConfig.resolve(Specs.minimal()).hooks()).isEqualTo(HooksConfig.NONE);
    assertThat(GroupConfig.resolve(withHooks(new HooksSpec(null, null))).hooks()).isEqualTo(HooksConfig.NONE);
  }

  @Test
  void aHookGetsTheDefaultTimeoutAndTokenKey() {
    HooksConfig hooks = GroupConfig.resolve(withHooks(new HooksSpec(
        new HookSpec("https://ops.example.com/pre", null, new SecretKeyRef("hook-token", null)),
        new HookSpec("http://10.0.0.7:8080/post", "3s", null)))).hooks();

    assertThat(hooks.preFailover()).isEqualTo(new Hook("https://ops.example.com/pre", Duration.ofSeconds(10),
        "hook-token", "token"));
    assertThat(hooks.postFailover()).isEqualTo(new Hook("http://10.0.0.7:8080/post", Duration.ofSeconds(3), null,
        null));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      10s   | 1000
      1s    | 1000
      300ms | 300
      """)
  void anEmergencyPreHookGetsAtMostASecond(String timeout, long millis) {
    Hook pre = GroupConfig.resolve(withHooks(new HooksSpec(new HookSpec("http://h/pre", timeout, null), null)))
        .hooks().preFailover();
    assertThat(pre.emergencyTimeout()).isEqualTo(Duration.ofMillis(millis));
  }

  /** Each row is one bad hook; the refusal names the field and says what is wrong. */
  @ParameterizedTest(name = "{0} {1} {2}")
  @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
      ftp://ops.example.com/pre      | -     | -     | hooks.preFailover.url 'ftp://ops.example.com/pre' must be an http:// or https:// URL
      ops.example.com/pre            | -     | -     | hooks.preFailover.url 'ops.example.com/pre' must be an http:// or https:// URL
      file:///etc/passwd             | -     | -     | hooks.preFailover.url 'file:///etc/passwd' must be an http:// or https:// URL
      'http:///pre'                  | -     | -     | hooks.preFailover.url 'http:///pre' names no host
      'https://ops example.com/'     | -     | -     | hooks.preFailover.url 'https://ops example.com/' is not a URL: it contains a blank
      'https://user:pw@/pre'         | -     | -     | hooks.preFailover.url 'https://user:pw@/pre' names no host
      'http://h:http/pre'            | -     | -     | hooks.preFailover.url 'http://h:http/pre' is not a URL: bad port 'http'
      'http://h:70000/pre'           | -     | -     | hooks.preFailover.url 'http://h:70000/pre' is not a URL: port 70000 is out of range
      ''                             | -     | -     | hooks.preFailover.url is required
      -                              | -     | -     | hooks.preFailover.url is required
      http://h/pre                   | 0s    | -     | hooks.preFailover.timeout must be more than 0 and at most 5m, not 0s
      http://h/pre                   | 6m    | -     | hooks.preFailover.timeout must be more than 0 and at most 5m, not 6m
      http://h/pre                   | soon  | -     | hooks.preFailover.timeout:
      http://h/pre                   | -     | ''    | hooks.preFailover.bearerTokenSecret.name is required
      """)
  void aBadHookIsRefusedNamingItsField(String url, String timeout, String secret, String problem) {
    HookSpec hook = new HookSpec(url, timeout, secret == null ? null : new SecretKeyRef(secret, null));
    var refused = catchThrowableOfType(InvalidSpecException.class,
        () -> GroupConfig.resolve(withHooks(new HooksSpec(hook, null))));

    assertThat(refused).as("refused").isNotNull();
    assertThat(refused.problems()).singleElement().asString().startsWith(problem);
  }

  @ParameterizedTest
  @ValueSource(strings = {"http://h", "https://ops.example.com/pre?token=x#f", "HTTPS://H:8443", "http://[::1]:8080/p",
      "http://[::1]/p", "https://user:pw@h.example.com/p", "http://10.0.0.7:8080/post"})
  void aGoodURLIsTaken(String url) {
    assertThat(HooksConfig.urlProblem(url)).isNull();
  }

  @Test
  void bothHooksAreCheckedAtOnce() {
    var refused = catchThrowableOfType(InvalidSpecException.class, () -> GroupConfig.resolve(withHooks(new HooksSpec(
        new HookSpec("gopher://a/", null, null), new HookSpec("https://b/", "1x", null)))));

    assertThat(refused.problems()).hasSize(2);
    assertThat(refused.problems().get(0)).startsWith("hooks.preFailover.url");
    assertThat(refused.problems().get(1)).startsWith("hooks.postFailover.timeout");
  }
}
