package io.shipstream.failover.sidecar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BearerTokenTest {
  private final BearerToken token = BearerToken.of("s3cr3t-token");

  @Test
  void acceptsOnlyTheExactTokenAsABearerHeader() {
    assertThat(token.matches("Bearer s3cr3t-token")).isTrue();
    assertThat(token.matches("bearer s3cr3t-token")).isTrue();
    assertThat(token.matches(token.header())).isTrue();

    assertThat(token.matches(null)).isFalse();
    assertThat(token.matches("")).isFalse();
    assertThat(token.matches("Bearer ")).isFalse();
    assertThat(token.matches("Bearer s3cr3t-tokeN")).isFalse();
    assertThat(token.matches("Bearer s3cr3t-token-and-more")).isFalse();
    assertThat(token.matches("Basic s3cr3t-token")).isFalse();
    assertThat(token.matches("s3cr3t-token")).isFalse();
  }

  @Test
  void neverShowsItsValue() {
    assertThat(token.toString()).doesNotContain("s3cr3t");
  }

  @Test
  void anEmptyTokenIsRefused() {
    assertThatThrownBy(() -> BearerToken.of("  ")).hasMessage("the shared token must not be empty");
  }
}
