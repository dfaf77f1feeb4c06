package io.shipstream.failover.model.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.ChannelFilesSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.ReplicationTlsSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.SecretRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.SessionTlsSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.TlsSpec;
import io.shipstream.failover.model.crd.SiteSpec;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TlsConfigTest {
  private static final List<SiteSpec> SITES = List.of(site("a"), site("b"));

  private static SiteSpec site(String name) {
    return new SiteSpec(name, null, null, new SiteSpec.Endpoint("h-" + name, 3306), null, java.util.Map.of(), null,
        null, null);
  }

  @Test
  void modesParseInTheirUsualSpellingsAndPreferredIsRefusedWithItsReason() {
    assertThat(TlsMode.parse("verify-identity", TlsMode.DISABLED)).isEqualTo(TlsMode.VERIFY_IDENTITY);
    assertThat(TlsMode.parse("VERIFY_CA", TlsMode.DISABLED)).isEqualTo(TlsMode.VERIFY_CA);
    assertThat(TlsMode.parse(null, TlsMode.REQUIRED)).isEqualTo(TlsMode.REQUIRED);
    assertThatThrownBy(() -> TlsMode.parse("preferred", TlsMode.DISABLED))
        .hasMessageContaining("falls back to plaintext");
    assertThatThrownBy(() -> TlsMode.parse("verify-full", TlsMode.DISABLED))
        .hasMessageContaining("not one of disabled, required, verify-ca, verify-identity");
  }

  @Test
  void absentIsDisabledEverywhere() {
    List<String> problems = new ArrayList<>();
    TlsConfig c = TlsConfig.resolve(null, SITES, problems);
    assertThat(problems).isEmpty();
    assertThat(c.sessionMode()).isEqualTo(TlsMode.DISABLED);
    assertThat(c.channelFor("a")).isEqualTo(ChannelTls.NONE);
  }

  @Test
  void aSitesOwnFilesOverrideTheDefaultsAndTheModeIsTheGroups() {
    List<String> problems = new ArrayList<>();
    TlsConfig c = TlsConfig.resolve(new TlsSpec(new SessionTlsSpec("verify-identity", new SecretRef("tls")),
        new ReplicationTlsSpec("verify-ca", "/etc/mysql/ca.pem", null, null,
            List.of(new ChannelFilesSpec("b", "/srv/b/ca.pem", "/srv/b/c.pem", "/srv/b/k.pem")))),
        SITES, problems);
    assertThat(problems).isEmpty();
    assertThat(c.sessionSecret()).isEqualTo("tls");
    assertThat(c.channelFor("a")).isEqualTo(new ChannelTls(TlsMode.VERIFY_CA, "/etc/mysql/ca.pem", null, null));
    assertThat(c.channelFor("b"))
        .isEqualTo(new ChannelTls(TlsMode.VERIFY_CA, "/srv/b/ca.pem", "/srv/b/c.pem", "/srv/b/k.pem"));
  }

  @Test
  void everyProblemIsNamed() {
    List<String> problems = new ArrayList<>();
    TlsConfig.resolve(new TlsSpec(new SessionTlsSpec("verify-ca", null),
        new ReplicationTlsSpec("preferred", null, null, null, List.of(new ChannelFilesSpec("zz", null, null, null)))),
        SITES, problems);
    assertThat(problems)
        .anySatisfy(p -> assertThat(p).contains("tls.sessions.mode verify-ca needs tls.sessions.secretRef"))
        .anySatisfy(p -> assertThat(p).startsWith("tls.replication.mode: TLS mode 'preferred' is refused"))
        .anySatisfy(p -> assertThat(p).contains("unknown site 'zz'"));
    problems.clear();
    TlsConfig.resolve(new TlsSpec(null, new ReplicationTlsSpec("verify-identity", null, null, null, null)), SITES,
        problems);
    assertThat(problems).containsExactly(
        "tls.replication.mode verify-identity needs a caFile for site 'a' (tls.replication.caFile or its"
            + " tls.replication.sites entry)",
        "tls.replication.mode verify-identity needs a caFile for site 'b' (tls.replication.caFile or its"
            + " tls.replication.sites entry)");
  }

  @Test
  void aReadBackChannelSatisfiesTheModeOnlyWithWhatTheModeNeeds() {
    ChannelTls identity = new ChannelTls(TlsMode.VERIFY_IDENTITY, "/ca", null, null);
    assertThat(identity.satisfiedBy(true, "/ca", true)).isTrue();
    assertThat(identity.satisfiedBy(true, "/ca", false)).isFalse();
    assertThat(identity.satisfiedBy(false, "/ca", true)).isFalse();
    assertThat(new ChannelTls(TlsMode.VERIFY_CA, "/ca", null, null).satisfiedBy(true, "", false)).isFalse();
    assertThat(new ChannelTls(TlsMode.REQUIRED, null, null, null).satisfiedBy(true, null, false)).isTrue();
    assertThat(new ChannelTls(TlsMode.REQUIRED, "/ca", null, null).caFileForMode())
        .as("a CA would make the server verify").isNull();
    assertThat(ChannelTls.NONE.satisfiedBy(false, null, false)).isTrue();
  }
}
