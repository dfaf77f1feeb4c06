package io.shipstream.failover.model.gtid;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Checks the set laws on many random sets, against a brute-force model (a bit per transaction)
 * for MySQL, and against the position semantics of strict mode for MariaDB. The seed is fixed so
 * a failure reproduces.
 */
class GtidSetLawsTest {
  static final String[] UUIDS = {
      "00000000-0000-0000-0000-00000000000a", "00000000-0000-0000-0000-00000000000b"};
  static final int UNIVERSE = 40;
  static final int ROUNDS = 400;

  final Random random = new Random(20260420);

  @Test
  void mysqlSetsBehaveLikeSetsOfTransactions() {
    for (int round = 0; round < ROUNDS; round++) {
      BitSet[] x = randomBits();
      BitSet[] y = randomBits();
      MysqlGtidSet a = MysqlGtidSet.parse(text(x));
      MysqlGtidSet b = MysqlGtidSet.parse(text(y));
      String where = "a=" + a + " b=" + b;

      assertThat(a.count()).as(where).isEqualTo(x[0].cardinality() + x[1].cardinality());
      assertThat(a.contains(b)).as(where).isEqualTo(containsAll(x, y));
      BitSet[] difference = {andNot(x[0], y[0]), andNot(x[1], y[1])};
      assertThat(a.subtract(b)).as(where).isEqualTo(MysqlGtidSet.parse(text(difference)));
      assertThat(MysqlGtidSet.parse(a.toString())).as("round trip of " + a).isEqualTo(a);
      assertThat(a.subtract(b).isEmpty()).as(where).isEqualTo(b.contains(a));
      assertThat(a.contains(a.subtract(b))).as(where).isTrue();
      assertThat(a.subtract(b).count() + intersectionCount(x, y)).as(where).isEqualTo(a.count());
    }
  }

  @Test
  void mariaDbSetsBehaveLikePositionsPerDomain() {
    for (int round = 0; round < ROUNDS; round++) {
      MariaDbGtidSet a = randomMariaDb();
      MariaDbGtidSet b = randomMariaDb();
      String where = "a=" + a + " b=" + b;

      assertThat(MariaDbGtidSet.parse(a.toString())).as("round trip of " + a).isEqualTo(a);
      assertThat(a.contains(a)).as(where).isTrue();
      assertThat(a.subtract(b).isEmpty()).as(where).isEqualTo(b.contains(a));
      assertThat(a.contains(b) && b.contains(a)).as(where)
          .isEqualTo(a.maxSeqnoByDomain().equals(b.maxSeqnoByDomain()));
      MariaDbGtidSet lost = a.subtract(b);
      assertThat(MariaDbGtidSet.parse(lost.toString())).as("round trip of " + lost).isEqualTo(lost);
      long expected = 0;
      for (var e : a.maxSeqnoByDomain().entrySet()) {
        expected += Math.max(0, e.getValue() - b.maxSeqnoByDomain().getOrDefault(e.getKey(), 0L));
      }
      assertThat(lost.count()).as(where).isEqualTo(expected);
      assertThat(lost.isEmpty() || !b.contains(lost)).as(where).isTrue();
      assertThat(lost.subtract(b)).as(where).isEqualTo(lost);
      assertThat(a.perDomainMax().maxSeqnoByDomain()).as(where).isEqualTo(a.maxSeqnoByDomain());
      assertThat(a.perDomainMax().contains(a) && a.contains(a.perDomainMax())).as(where).isTrue();
    }
  }

  private BitSet[] randomBits() {
    BitSet[] bits = {new BitSet(), new BitSet()};
    for (BitSet b : bits) {
      int density = random.nextInt(4);
      for (int i = 1; i <= UNIVERSE; i++) {
        if (random.nextInt(4) < density) {
          b.set(i);
        }
      }
    }
    return bits;
  }

  /** Writes bits as singletons in random order and with duplicates, to exercise normalisation too. */
  private String text(BitSet[] bits) {
    List<String> elements = new ArrayList<>();
    for (int s = 0; s < bits.length; s++) {
      for (int i = bits[s].nextSetBit(0); i >= 0; i = bits[s].nextSetBit(i + 1)) {
        elements.add(UUIDS[s] + ":" + i);
        if (random.nextInt(8) == 0) {
          elements.add(UUIDS[s] + ":" + i);
        }
      }
    }
    Collections.shuffle(elements, random);
    return String.join(",", elements);
  }

  private static boolean containsAll(BitSet[] outer, BitSet[] inner) {
    return andNot(inner[0], outer[0]).isEmpty() && andNot(inner[1], outer[1]).isEmpty();
  }

  private static long intersectionCount(BitSet[] x, BitSet[] y) {
    long n = 0;
    for (int s = 0; s < x.length; s++) {
      BitSet both = (BitSet) x[s].clone();
      both.and(y[s]);
      n += both.cardinality();
    }
    return n;
  }

  private static BitSet andNot(BitSet a, BitSet b) {
    BitSet out = (BitSet) a.clone();
    out.andNot(b);
    return out;
  }

  private MariaDbGtidSet randomMariaDb() {
    List<String> gtids = new ArrayList<>();
    for (int domain = 0; domain < 3; domain++) {
      int servers = random.nextInt(3);
      for (int server = 1; server <= servers; server++) {
        gtids.add(domain + "-" + server + "-" + random.nextInt(12));
      }
    }
    return MariaDbGtidSet.parse(String.join(",", gtids));
  }
}
