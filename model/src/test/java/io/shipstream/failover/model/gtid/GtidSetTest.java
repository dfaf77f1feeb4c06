package io.shipstream.failover.model.gtid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class GtidSetTest {
  static final String UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562";

  @Test
  void detectsTheNotation() {
    assertThat(GtidSet.parse(UUID + ":1-5")).isInstanceOf(MysqlGtidSet.class).hasToString(UUID + ":1-5");
    assertThat(GtidSet.parse("0-1-42,1-2-7")).isInstanceOf(MariaDbGtidSet.class).hasToString("0-1-42,1-2-7");
    assertThat(GtidSet.parse("0-1-43..50")).isInstanceOf(MariaDbGtidSet.class).hasToString("0-1-43..50");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "\n"})
  void blankIsTheEmptySetThatCombinesWithEitherFlavor(String blank) {
    GtidSet empty = GtidSet.parse(blank);
    GtidSet mysql = GtidSet.parse(UUID + ":1-5");
    GtidSet mariadb = GtidSet.parse("0-1-42");

    assertThat(empty.isEmpty()).isTrue();
    assertThat(empty.count()).isZero();
    assertThat(empty).hasToString("");
    assertThat(mariadb.contains(empty)).isTrue();
    assertThat(mariadb.subtract(empty)).isEqualTo(mariadb);
    assertThat(empty.contains(mariadb)).isFalse();
    assertThat(empty.subtract(mariadb).isEmpty()).isTrue();
    assertThat(mysql.contains(MariaDbGtidSet.EMPTY)).isTrue();
    assertThat(mysql.subtract(MariaDbGtidSet.EMPTY)).isEqualTo(mysql);
    assertThat(MariaDbGtidSet.EMPTY.contains(mysql)).isFalse();
  }

  @Test
  void nullIsTheEmptySet() {
    assertThat(GtidSet.parse(null).isEmpty()).isTrue();
  }

  @Test
  void mixingFlavorsIsRefused() {
    GtidSet mysql = GtidSet.parse(UUID + ":1-5");
    GtidSet mariadb = GtidSet.parse("0-1-42");

    assertThatThrownBy(() -> mysql.contains(mariadb))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cannot combine MySQL GTID set '" + UUID + ":1-5' with MariaDB GTID set '0-1-42'");
    assertThatThrownBy(() -> mysql.subtract(mariadb)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> mariadb.contains(mysql))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cannot combine MariaDB GTID set '0-1-42' with MySQL GTID set '" + UUID + ":1-5'");
    assertThatThrownBy(() -> mariadb.subtract(mysql)).isInstanceOf(IllegalArgumentException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"hello", UUID, "0-1-4a"})
  void textInNeitherNotationIsRefused(String text) {
    assertThatThrownBy(() -> GtidSet.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("is not a GTID set: expected MySQL uuid:1-5[,uuid:...] or MariaDB domain-server-seqno");
  }
}
