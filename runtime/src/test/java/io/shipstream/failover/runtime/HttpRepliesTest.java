package io.shipstream.failover.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HttpRepliesTest {
  @Test
  void aParameterIsTheFirstValueDecodedOrNull() {
    assertThat(HttpReplies.parameter("namespace=shop&site=iad&site=pdx", "site")).isEqualTo("iad");
    assertThat(HttpReplies.parameter("site=us%2Deast+1", "site")).isEqualTo("us-east 1");
    assertThat(HttpReplies.parameter("site", "site")).isEmpty();
    assertThat(HttpReplies.parameter("group=orders", "site")).isNull();
    assertThat(HttpReplies.parameter(null, "site")).isNull();
    assertThat(HttpReplies.parameter("site=%zz", "site")).as("not URL-encoded").isNull();
  }
}
