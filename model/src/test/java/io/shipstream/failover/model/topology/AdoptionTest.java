package io.shipstream.failover.model.topology;

import static io.shipstream.failover.model.topology.Fixture.T0;
import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.topology.Adoption.Adopt;
import io.shipstream.failover.model.topology.Adoption.Ambiguous;
import io.shipstream.failover.model.topology.Adoption.Decision;
import io.shipstream.failover.model.topology.Adoption.Seen;
import io.shipstream.failover.model.topology.Adoption.Wait;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * iad and pdx primary-candidates, dr dr-only. Each site is written as one word: W (writable), R
 * (read-only, replicating from nobody), R&lt;site&gt; (read-only, replicating from that site), X
 * (does not answer), - (not polled yet). GTID sets: iad holds 0-1-10, replicas 0-1-10 unless
 * the row says E (errant: 0-1-10,7-9-1, an admin write in its own domain).
 */
class AdoptionTest {
  private static final GroupConfig GROUP =
      Fixture.group(Fixture.candidate("iad"), Fixture.candidate("pdx"), Fixture.drOnly("dr"));

  @ParameterizedTest(name = "iad={0} pdx={1} dr={2} -> {3} {4}")
  @CsvSource({
      // Row 1: wait until every site has been polled once.
      "W,     R,     -,     Wait,      ",
      // Row 2: no primary-candidate answers.
      "X,     X,     Riad,  Ambiguous, NoPrimaryCandidate",
      // Row 3: a writable dr-only site is reported, never fenced before adoption.
      "W,     Riad,  W,     Ambiguous, NonPromotableWritable",
      // Row 4: two writable primary-candidates.
      "W,     W,     Riad,  Ambiguous, SeveralWritable",
      // Row 5: one writable primary-candidate, every other answering site read-only.
      "W,     Riad,  Riad,  Adopt,     iad",
      "W,     Riad,  X,     Adopt,     iad",
      "X,     W,     R,     Adopt,     pdx",
      "W,     R,     R,     Adopt,     iad",
      // Row 6: every server read-only, one source that every other follows and that holds their GTIDs.
      "R,     Riad,  Riad,  Adopt,     iad",
      "R,     Riad,  X,     Adopt,     iad",
      "Rpdx,  R,     Rpdx,  Adopt,     pdx",
      "R,     REiad, Riad,  Ambiguous, DivergentGtid",
      // Row 7: anything else.
      "R,     R,     Riad,  Ambiguous, NoUnambiguousPrimary",
      "Rpdx,  Riad,  Riad,  Ambiguous, NoUnambiguousPrimary",
      "R,     Riad,  Rpdx,  Ambiguous, NoUnambiguousPrimary",
      "R,     Riad,  R,     Ambiguous, NoUnambiguousPrimary",
  })
  void decides(String iad, String pdx, String dr, String kind, String detail) {
    Map<String, Seen> latest = new LinkedHashMap<>();
    put(latest, "iad", iad);
    put(latest, "pdx", pdx);
    put(latest, "dr", dr);

    Decision decision = Adoption.decide(GROUP, latest);

    switch (kind) {
      case "Wait" -> assertThat(decision).isInstanceOf(Wait.class);
      case "Adopt" ->
        assertThat(decision).isInstanceOfSatisfying(Adopt.class, a -> assertThat(a.site()).isEqualTo(detail));
      case "Ambiguous" -> assertThat(decision).isInstanceOfSatisfying(Ambiguous.class,
          a -> assertThat(a.cause()).isEqualTo(detail));
      default -> throw new AssertionError(kind);
    }
  }

  @Test
  void theMessagesSayWhatAHumanMustDecide() {
    Map<String, Seen> latest = new LinkedHashMap<>();
    put(latest, "iad", "W");
    put(latest, "pdx", "W");
    put(latest, "dr", "Riad");
    assertThat(((Ambiguous) Adoption.decide(GROUP, latest)).reason())
        .isEqualTo("sites iad and pdx are both writable; make all but the primary read-only, or name it");
  }

  @Test
  void aNamedPrimaryIsCheckedLikeAPlannedRequest() {
    Map<String, Seen> latest = new LinkedHashMap<>();
    put(latest, "iad", "W");
    put(latest, "pdx", "X");
    put(latest, "dr", "Riad");
    assertThat(Adoption.named(GROUP, "iad", latest)).isNull();
    assertThat(Adoption.named(GROUP, "sfo", latest)).contains("'sfo', which is not a site of the group");
    assertThat(Adoption.named(GROUP, "dr", latest)).contains("dr-only and may never be primary");
    assertThat(Adoption.named(GROUP, "pdx", latest)).contains("whose server does not answer");
    assertThat(Adoption.named(GROUP, " ", latest)).contains("names no site");
  }

  private static void put(Map<String, Seen> latest, String site, String code) {
    if (code.equals("-")) {
      return;
    }
    if (code.equals("X")) {
      latest.put(site, new Seen(Probe.unreachable(site, "refused", T0), null));
      return;
    }
    boolean errant = code.startsWith("RE");
    String gtid = errant ? "0-1-10,7-9-1" : "0-1-10";
    boolean readOnly = code.startsWith("R");
    String from = !readOnly || code.length() == 1 ? null : code.substring(errant ? 2 : 1);
    Probe probe = new Probe(site, true, readOnly, gtid, null, from != null, from != null ? 0L : null, null, T0);
    latest.put(site, new Seen(probe, from));
  }
}
