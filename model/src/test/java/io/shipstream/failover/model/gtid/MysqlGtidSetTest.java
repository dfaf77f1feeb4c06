package io.shipstream.failover.model.gtid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MysqlGtidSetTest {
  static final String A = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
  static final String B = "8a94f357-aab4-11df-86ab-c80aa9429563";

  @Test
  void parsesWhatShowMasterStatusPrints() {
    String shown = B.toUpperCase() + ":1-3,\n" + A.toUpperCase() + ":1-5:7-9:11";

    MysqlGtidSet set = MysqlGtidSet.parse(shown);

    assertThat(set.toString()).isEqualTo(A + ":1-5:7-9:11," + B + ":1-3");
    assertThat(set.count()).isEqualTo(5 + 3 + 1 + 3);
    assertThat(set.intervalsBySource()).containsOnlyKeys(A, B);
    assertThat(set.intervalsBySource().get(A))
        .containsExactly(new GnoInterval(1, 5), new GnoInterval(7, 9), new GnoInterval(11, 11));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
      A + ":1-3:4-5 | " + A + ":1-5",
      A + ":7:1-3:2-6 | " + A + ":1-7",
      A + ":5-5 | " + A + ":5",
      A + ":1-3, " + A + ":10 | " + A + ":1-3:10",
      "  " + A + " : 1 - 3  | " + A + ":1-3",
      A + ":1-9223372036854775807:5 | " + A + ":1-9223372036854775807",
  })
  void canonicalFormMergesSortsAndLowercases(String text, String canonical) {
    MysqlGtidSet set = MysqlGtidSet.parse(text);

    assertThat(set.toString()).isEqualTo(canonical);
    assertThat(MysqlGtidSet.parse(set.toString())).isEqualTo(set);
  }

  @Test
  void acceptsTaggedGtidsOfMysql84() {
    MysqlGtidSet set = MysqlGtidSet.parse(A + ":Batch_2:10-20," + A + ":1-5:batch_1:1-3:BATCH_2:1-9");

    assertThat(set.toString()).isEqualTo(A + ":1-5:batch_1:1-3:batch_2:1-20");
    assertThat(set.count()).isEqualTo(5 + 3 + 20);
    assertThat(set.intervalsBySource()).containsOnlyKeys(A, A + ":batch_1", A + ":batch_2");
    // A tagged transaction is a different transaction from the untagged one with the same number.
    assertThat(set.contains(MysqlGtidSet.parse(A + ":batch_1:4"))).isFalse();
    assertThat(set.contains(MysqlGtidSet.parse(A + ":batch_2:15"))).isTrue();
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
      "3e11fa47:1-5 | '3e11fa47' is not a server uuid (expected 8-4-4-4-12 hex digits)",
      A + " | no transaction interval after the uuid",
      A + ":0-5 | numbers start at 1",
      A + ":5-3 | interval 5-3 ends before it starts",
      A + ":1-x | is not an interval",
      A + ":1-5:: | empty part between colons",
      A + ":1-5:mytag | tag 'mytag' has no transaction interval",
      A + ":a:b:1 | tag 'a' has no transaction interval",
      A + ":bad-tag:1 | neither an interval (1-5) nor a tag",
      A + ":99999999999999999999 | transaction number 99999999999999999999 is too large",
      A + ":1-5,," + B + ":1 | empty element between commas",
      A + ":1-5, | empty element between commas",
  })
  void refusesMalformedTextSayingWhatIsWrong(String text, String message) {
    assertThatThrownBy(() -> MysqlGtidSet.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }

  @Test
  void errorNamesTheOffendingElement() {
    assertThatThrownBy(() -> MysqlGtidSet.parse(A + ":1-5,\n" + B + ":3-1"))
        .hasMessage("invalid MySQL GTID '" + B + ":3-1': interval 3-1 ends before it starts");
  }

  @Test
  void hugeRangesAreComputedWithoutExpansion() {
    MysqlGtidSet fenced = MysqlGtidSet.parse(A + ":1-9182731");
    MysqlGtidSet replica = MysqlGtidSet.parse(A + ":1-9182700");
    MysqlGtidSet all = MysqlGtidSet.parse(A + ":1-9223372036854775807," + B + ":1-9223372036854775807");

    assertThat(fenced.contains(replica)).isTrue();
    assertThat(replica.contains(fenced)).isFalse();
    assertThat(fenced.subtract(replica)).hasToString(A + ":9182701-9182731");
    assertThat(fenced.subtract(replica).count()).isEqualTo(31);
    assertThat(fenced.count()).isEqualTo(9_182_731);
    assertThat(all.count()).as("saturates instead of wrapping").isEqualTo(Long.MAX_VALUE);
    assertThat(all.contains(fenced)).isTrue();
  }

  @Test
  void subtractSplitsIntervalsAndDropsSourcesThatBecomeEmpty() {
    MysqlGtidSet source = MysqlGtidSet.parse(A + ":1-100," + B + ":1-10");
    MysqlGtidSet target = MysqlGtidSet.parse(A + ":1-10:20-30:95-200," + B + ":1-10");

    MysqlGtidSet lost = source.subtract(target);

    assertThat(lost).hasToString(A + ":11-19:31-94");
    assertThat(lost.count()).isEqualTo(9 + 64);
    assertThat(target.subtract(source)).hasToString(A + ":101-200");
    assertThat(source.subtract(source)).isEqualTo(MysqlGtidSet.EMPTY);
  }

  @Test
  void containsNeedsEveryIntervalOfEverySource() {
    MysqlGtidSet set = MysqlGtidSet.parse(A + ":1-5:7-9," + B + ":1-3");

    assertThat(set.contains(MysqlGtidSet.parse(A + ":2-4:8," + B + ":3"))).isTrue();
    assertThat(set.contains(MysqlGtidSet.parse(A + ":5-7"))).as("6 is missing").isFalse();
    assertThat(set.contains(MysqlGtidSet.parse(A + ":9-10"))).isFalse();
    assertThat(set.contains(MysqlGtidSet.parse("00000000-0000-0000-0000-000000000001:1"))).isFalse();
    assertThat(set.contains(MysqlGtidSet.EMPTY)).isTrue();
    assertThat(MysqlGtidSet.EMPTY.contains(set)).isFalse();
  }

  @Test
  void emptyTextIsTheEmptySet() {
    assertThat(MysqlGtidSet.parse(null)).isSameAs(MysqlGtidSet.EMPTY);
    assertThat(MysqlGtidSet.parse(" \n")).isSameAs(MysqlGtidSet.EMPTY);
    assertThat(MysqlGtidSet.EMPTY.toString()).isEmpty();
    assertThat(MysqlGtidSet.EMPTY.count()).isZero();
    assertThat(MysqlGtidSet.EMPTY.isEmpty()).isTrue();
  }

  @Test
  void equalSetsHaveEqualHashesWhateverTheirSpelling() {
    MysqlGtidSet one = MysqlGtidSet.parse(A.toUpperCase() + ":3-5:1-2");
    MysqlGtidSet two = MysqlGtidSet.parse(A + ":1-5");

    assertThat(one).isEqualTo(two).hasSameHashCodeAs(two);
  }
}
