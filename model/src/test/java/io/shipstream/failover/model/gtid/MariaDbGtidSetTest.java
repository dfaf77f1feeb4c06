package io.shipstream.failover.model.gtid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MariaDbGtidSetTest {

  @Test
  void parsesACurrentPosWithSeveralDomains() {
    MariaDbGtidSet set = MariaDbGtidSet.parse("1-2-7, 0-1-42");

    assertThat(set).hasToString("0-1-42,1-2-7");
    assertThat(set.maxSeqnoByDomain()).containsExactly(Map.entry(0L, 42L), Map.entry(1L, 7L));
    assertThat(set.count()).isEqualTo(49);
    assertThat(set.isPosition()).isTrue();
    assertThat(set.gtids()).containsExactly(new MariaDbGtid(0, 1, 42), new MariaDbGtid(1, 2, 7));
  }

  @Test
  void aDomainWithSeveralServersKeepsThemAllButCountsItsHighestSeqno() {
    MariaDbGtidSet binlogPos = MariaDbGtidSet.parse("0-2-50,0-1-100");

    assertThat(binlogPos).hasToString("0-1-100,0-2-50");
    assertThat(binlogPos.maxSeqnoByDomain()).containsExactly(Map.entry(0L, 100L));
    assertThat(binlogPos.count()).isEqualTo(100);
  }

  @Test
  void perDomainMaxIsWhatMasterGtidWaitWants() {
    MariaDbGtidSet binlogPos = MariaDbGtidSet.parse("0-1-100,0-2-50,1-3-7,1-4-9");

    assertThat(binlogPos.perDomainMax()).hasToString("0-1-100,1-4-9");
    assertThat(MariaDbGtidSet.EMPTY.perDomainMax()).isEqualTo(MariaDbGtidSet.EMPTY);
  }

  @Test
  void containsComparesTheHighestSeqnoOfEveryDomainOfTheOther() {
    MariaDbGtidSet replica = MariaDbGtidSet.parse("0-1-42,1-2-7");

    assertThat(replica.contains(MariaDbGtidSet.parse("0-1-42"))).isTrue();
    assertThat(replica.contains(MariaDbGtidSet.parse("0-3-40"))).as("another server, same domain").isTrue();
    assertThat(replica.contains(MariaDbGtidSet.parse("0-1-43"))).isFalse();
    assertThat(replica.contains(MariaDbGtidSet.parse("0-1-10,2-1-1"))).as("domain 2 is unknown").isFalse();
    assertThat(replica.contains(MariaDbGtidSet.parse("0-1-100,0-2-40"))).isFalse();
    assertThat(replica.contains(MariaDbGtidSet.EMPTY)).isTrue();
    assertThat(MariaDbGtidSet.EMPTY.contains(replica)).isFalse();
  }

  @Test
  void subtractGivesTheTransactionsAfterTheOthersPositionAsRanges() {
    MariaDbGtidSet fencedSource = MariaDbGtidSet.parse("0-1-50,1-2-7,2-1-3");
    MariaDbGtidSet promoted = MariaDbGtidSet.parse("0-1-42,1-2-7");

    MariaDbGtidSet lost = fencedSource.subtract(promoted);

    assertThat(lost).hasToString("0-1-43..50,2-1-3");
    assertThat(lost.count()).isEqualTo(8 + 3);
    assertThat(lost.isPosition()).isFalse();
    assertThat(lost.perDomainMax()).hasToString("0-1-50,2-1-3");
    assertThat(promoted.subtract(fencedSource)).isEqualTo(MariaDbGtidSet.EMPTY);
  }

  @Test
  void aRangeKeepsTheServerOfItsLastTransaction() {
    MariaDbGtidSet source = MariaDbGtidSet.parse("0-1-100,0-2-120");

    MariaDbGtidSet lost = source.subtract(MariaDbGtidSet.parse("0-1-100"));

    assertThat(lost).hasToString("0-2-101..120");
    assertThat(lost.count()).isEqualTo(20);
  }

  @Test
  void aSingleTransactionRangeStaysARange() {
    MariaDbGtidSet lost = MariaDbGtidSet.parse("0-1-43").subtract(MariaDbGtidSet.parse("0-1-42"));

    assertThat(lost).hasToString("0-1-43..43");
    assertThat(lost.count()).isEqualTo(1);
    assertThat(MariaDbGtidSet.parse("0-1-43..43")).isEqualTo(lost);
  }

  @Test
  void subtractingFromARangeOnlyRemovesWhatIsPastItsStart() {
    MariaDbGtidSet range = MariaDbGtidSet.parse("0-1-43..50");

    assertThat(range.subtract(MariaDbGtidSet.parse("0-1-10"))).isEqualTo(range);
    assertThat(range.subtract(MariaDbGtidSet.parse("0-1-45"))).hasToString("0-1-46..50");
    assertThat(range.subtract(MariaDbGtidSet.parse("0-1-50"))).isEqualTo(MariaDbGtidSet.EMPTY);
  }

  @Test
  void hugeSeqnosAreExact() {
    MariaDbGtidSet a = MariaDbGtidSet.parse("0-1-9223372036854775807,1-1-9223372036854775807");

    assertThat(a.count()).as("saturates instead of wrapping").isEqualTo(Long.MAX_VALUE);
    assertThat(a.subtract(MariaDbGtidSet.parse("0-1-9223372036854775000,1-1-9223372036854775807")).count())
        .isEqualTo(807);
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
      0-1-5,0-1-9             | 0-1-9
      0-1-0                   | ""
      0-1-0,0-2-4             | 0-2-4
      4294967295-4294967295-1 | 4294967295-4294967295-1
      2-1-5..9, 0-1-3         | 0-1-3,2-1-5..9
      """)
  void canonicalForm(String text, String canonical) {
    MariaDbGtidSet set = MariaDbGtidSet.parse(text);

    assertThat(set.toString()).isEqualTo(canonical);
    assertThat(MariaDbGtidSet.parse(set.toString())).isEqualTo(set);
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @CsvSource(delimiter = '|', quoteCharacter = '"', textBlock = """
      0-1                      | invalid MariaDB GTID '0-1': expected domain-server-seqno, e.g. 0-1-42
      0-1-x                    | invalid MariaDB GTID '0-1-x': expected domain-server-seqno
      0--1-5                   | expected domain-server-seqno
      4294967296-1-5           | domain id 4294967296 is out of range 0..4294967295
      0-4294967296-5           | server id 4294967296 is out of range 0..4294967295
      0-1-99999999999999999999 | seqno 99999999999999999999 is too large
      0-1-5,,1-1-1             | empty element between commas
      0-1-9..5                 | invalid MariaDB GTID range '0-1-9..5': it ends before it starts
      0-1-0..5                 | seqnos start at 1
      0-1-1..x                 | expected domain-server-first..last, e.g. 0-1-43..50
      0-1-1..5,0-2-7           | domain 0 is listed both as a range and as a position
      0-1-1..5,0-2-7..9        | domain 0 has two ranges
      """)
  void refusesMalformedTextSayingWhatIsWrong(String text, String message) {
    assertThatThrownBy(() -> MariaDbGtidSet.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }

  @Test
  void ofBuildsTheSameSetAsParse() {
    assertThat(MariaDbGtidSet.of(new MariaDbGtid(1, 2, 7), new MariaDbGtid(0, 1, 42), new MariaDbGtid(0, 1, 40)))
        .isEqualTo(MariaDbGtidSet.parse("0-1-42,1-2-7"));
  }

  @Test
  void aSingleGtidParsesAndPrints() {
    assertThat(MariaDbGtid.parse(" 0-1-42 ")).isEqualTo(new MariaDbGtid(0, 1, 42)).hasToString("0-1-42");
    assertThatThrownBy(() -> MariaDbGtid.parse(null)).hasMessageContaining("expected domain-server-seqno");
  }
}
