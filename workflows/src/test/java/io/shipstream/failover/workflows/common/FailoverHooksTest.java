package io.shipstream.failover.workflows.common;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** How a hook's URL is shown in Events and the UI: never with what may carry a secret. */
class FailoverHooksTest {
  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      http://ops.example.com/pre                      | http://ops.example.com/pre
      http://ops.example.com/pre?token=s3cret         | http://ops.example.com/pre
      https://user:pw@ops.example.com:8443/p#frag     | https://ops.example.com:8443/p
      https://user:pw@ops.example.com?x=1             | https://ops.example.com
      http://[::1]:8080/hook                          | http://[::1]:8080/hook
      """)
  void aUrlIsShownWithoutQueryFragmentOrUserInfo(String url, String shown) {
    assertThat(FailoverHooks.shown(url)).isEqualTo(shown);
  }
}
