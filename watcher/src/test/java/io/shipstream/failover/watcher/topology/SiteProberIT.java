package io.shipstream.failover.watcher.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec;
import io.shipstream.failover.model.crd.SiteSpec;
import io.shipstream.failover.model.topology.Probe;
import io.shipstream.failover.mysql.Credentials;
import io.shipstream.failover.mysql.StaticCredentialsProvider;
import io.shipstream.failover.testsupport.DatabaseServer;
import io.shipstream.failover.testsupport.Flavor;
import io.shipstream.failover.testsupport.FlavorTest;
import io.shipstream.failover.testsupport.MariaDbServer;
import io.shipstream.failover.testsupport.MockCluster;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The monitor's polls on real servers of both flavors: one kept connection per site, seen from
 * the server (its connection counter and its process list); replaced after a {@code KILL} and
 * after a restart, with the next poll answering what the server says now; a stopped server is one
 * unreachable poll; and a group's connections closed when it is forgotten.
 */
class SiteProberIT {
  private static final GroupRef GROUP = new GroupRef("shop", "orders");
  private static final Credentials LOGIN = new Credentials(MariaDbServer.ADMIN.user(), MariaDbServer.ADMIN.password(),
      MariaDbServer.REPLICATION.user(), MariaDbServer.REPLICATION.password());

  private static GroupConfig config(DatabaseServer server, Flavor flavor) {
    List<SiteSpec> sites = new ArrayList<>();
    for (String name : List.of("iad", "pdx")) {
      SiteSpec t = MockCluster.site("orders", name, "10.0.0." + (sites.size() + 1));
      sites.add(new SiteSpec(name, t.role(), t.zone(), new SiteSpec.Endpoint(server.host(), server.port()),
          t.podSelector(), t.taintNodeSelector(), t.lbIP(), null, null, flavor.name().toLowerCase(Locale.ROOT)));
    }
    return GroupConfig
        .resolve(new MysqlFailoverGroupSpec(sites, new MysqlFailoverGroupSpec.SecretRef("mysql-credentials"),
            "2s", 3, 2, "0s", null, null, null, null, null, null));
  }

  /** The ids of the server's sessions of the admin account, but the one asking. */
  private static List<String> pollSessions(DatabaseServer server) {
    List<String> ids = new ArrayList<>();
    String list = server.queryString("SELECT GROUP_CONCAT(ID ORDER BY ID) FROM information_schema.PROCESSLIST"
        + " WHERE USER = '" + MariaDbServer.ADMIN.user() + "' AND ID <> CONNECTION_ID()");
    if (list != null) {
      ids.addAll(List.of(list.split(",")));
    }
    return ids;
  }

  /** Connection attempts the server has counted since it started, this query's own included. */
  private static long connections(DatabaseServer server) {
    String table =
        server.flavor() == Flavor.MYSQL ? "performance_schema.global_status" : "information_schema.GLOBAL_STATUS";
    return Long.parseLong(server.queryString("SELECT VARIABLE_VALUE FROM " + table
        + " WHERE VARIABLE_NAME = 'Connections'"));
  }

  @FlavorTest
  void aSitesPollsKeepOneConnectionWhichIsReplacedAfterAKillAndARestart(Flavor flavor) throws Exception {
    flavor.assumeAvailable();
    try (DatabaseServer server =
        flavor.start(Path.of("target", "it-site-prober"), flavor.name().toLowerCase(Locale.ROOT))) {
      GroupConfig config = config(server, flavor);
      SiteSpec iad = config.sites().get(0);
      SiteProber prober = new SiteProber(new StaticCredentialsProvider(LOGIN), Clock.systemUTC());

      long before = connections(server);
      for (int i = 0; i < 10; i++) {
        Probe p = prober.probe(GROUP, config, iad);
        assertThat(p.reachable()).as("poll %d: %s", i, p.error()).isTrue();
        assertThat(p.readOnly()).isFalse();
      }
      long after = connections(server);
      // One connection for ten polls, and the one that asked after them.
      assertThat(after - before).as("connections the server counted for ten polls (and this count)").isEqualTo(2);
      assertThat(prober.pollConnectionsOpened()).isEqualTo(1);
      assertThat(prober.pollsOnKeptConnections()).isEqualTo(9);
      List<String> kept = pollSessions(server);
      assertThat(kept).as("the server's sessions of the poll account").hasSize(1);
      prober.probe(GROUP, config, iad);
      assertThat(pollSessions(server)).as("the same session polls again").isEqualTo(kept);

      // An operator (or wait_timeout) ends the poll's session: the next poll answers on a new one.
      server.execute("KILL " + kept.get(0));
      server.setReadOnly(true);
      Probe afterKill = prober.probe(GROUP, config, iad);
      assertThat(afterKill.reachable()).as("the poll after the KILL: %s", afterKill.error()).isTrue();
      assertThat(afterKill.readOnly()).isTrue();
      assertThat(prober.pollConnectionsOpened()).isEqualTo(2);
      List<String> replaced = pollSessions(server);
      assertThat(replaced).hasSize(1).doesNotContainAnyElementsOf(kept);

      // A restart: the kept socket is dead, and the next poll reads the restarted server.
      server.setReadOnly(false);
      assertThat(prober.probe(GROUP, config, iad).readOnly()).isFalse();
      server.restartFenced();
      long started = System.nanoTime();
      Probe afterRestart = prober.probe(GROUP, config, iad);
      System.out.printf("%s: the poll after a restart took %.0f ms on a new connection%n", flavor,
          (System.nanoTime() - started) / 1e6);
      assertThat(afterRestart.reachable()).as("the poll after the restart: %s", afterRestart.error()).isTrue();
      assertThat(afterRestart.readOnly()).as("what the restarted server says: it came back read-only").isTrue();
      assertThat(prober.pollConnectionsOpened()).isEqualTo(3);

      // A stopped server: one unreachable poll, then a correct one once it is back.
      server.stop();
      Probe down = prober.probe(GROUP, config, iad);
      assertThat(down.reachable()).isFalse();
      server.restart();
      server.setReadOnly(false);
      Probe back = prober.probe(GROUP, config, iad);
      assertThat(back.reachable()).as("the poll after the server came back: %s", back.error()).isTrue();
      assertThat(back.readOnly()).isFalse();

      // Each site its own kept connection; forgetting the group closes them all.
      assertThat(prober.probe(GROUP, config, config.sites().get(1)).reachable()).isTrue();
      assertThat(pollSessions(server)).hasSize(2);
      prober.forget(GROUP);
      long until = System.nanoTime() + 5_000_000_000L;
      while (!pollSessions(server).isEmpty() && System.nanoTime() < until) {
        Thread.sleep(50);
      }
      assertThat(pollSessions(server)).as("the group's poll connections after forget").isEmpty();
    }
  }

  /**
   * The watcher's fence and unfence of a site ({@code Fence.apply}, {@code Fence.lift} read back),
   * as its polls see them.
   */
  @FlavorTest
  void aFencedSiteIsUnfencedAndPollsWritableAgain(Flavor flavor) throws Exception {
    flavor.assumeAvailable();
    try (DatabaseServer server = flavor.start(Path.of("target", "it-site-prober-unfence"),
        flavor.name().toLowerCase(Locale.ROOT))) {
      GroupConfig config = config(server, flavor);
      SiteSpec iad = config.sites().get(0);
      SiteProber prober = new SiteProber(new StaticCredentialsProvider(LOGIN), Clock.systemUTC());
      try {
        prober.fence(GROUP, config, iad);
        assertThat(prober.probe(GROUP, config, iad).readOnly()).isTrue();

        prober.unfence(GROUP, config, iad);

        assertThat(prober.probe(GROUP, config, iad).readOnly()).isFalse();
        assertThat(server.queryString("SELECT @@global.read_only")).isEqualTo("0");
      } finally {
        prober.close();
      }
    }
  }
}
