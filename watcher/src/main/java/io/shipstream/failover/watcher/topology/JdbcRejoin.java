package io.shipstream.failover.watcher.topology;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.shipstream.failover.model.GroupConfig;
import io.shipstream.failover.model.GroupRef;
import io.shipstream.failover.model.crd.SiteSpec;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Points a returning old primary at the active one over JDBC, with GTID auto-positioning.
 *
 * <p>MariaDB: {@code gtid_slave_pos} is set to the server's own newest GTID of every domain, so it
 * asks the source for exactly what it lacks ({@code MASTER_USE_GTID=slave_pos}); its binary log
 * position alone would not do, because the slave position of a server that was a primary is old or
 * empty. MySQL: {@code SOURCE_AUTO_POSITION=1} sends {@code gtid_executed} by itself.
 *
 * <p>The replication login is {@code replicationUsername}/{@code replicationPassword} of the
 * group's Secret, falling back to {@code username}/{@code password}; the admin login for the
 * statements is {@link SecretLogins}'. Neither is ever logged: statements carrying a password are
 * not logged and the driver's messages do not echo them.
 */
public final class JdbcRejoin implements OldPrimaryRecovery.Rejoiner {
  private final KubernetesClient client;
  private final SecretLogins logins;

  public JdbcRejoin(KubernetesClient client, SecretLogins logins) {
    this.client = client;
    this.logins = logins;
  }

  @Override
  public void rejoin(GroupRef group, GroupConfig config, SiteSpec site, SiteSpec source, String siteGtid)
      throws SQLException {
    SecretLogins.Login admin = logins.login(group, config.credentialsSecret());
    SecretLogins.Login repl = replicationLogin(group, config.credentialsSecret(), admin);
    Properties p = new Properties();
    p.setProperty("user", admin.username());
    p.setProperty("password", admin.password());
    p.setProperty("connectTimeout", "5000");
    p.setProperty("socketTimeout", "10000");
    String url = "jdbc:mariadb://" + site.mysql().host() + ":" + GroupConfig.mysqlPort(site) + "/";
    try (Connection c = DriverManager.getConnection(url, p); Statement st = c.createStatement()) {
      boolean mysql;
      try (ResultSet rs = st.executeQuery("SELECT VERSION()")) {
        rs.next();
        mysql = !rs.getString(1).toLowerCase(Locale.ROOT).contains("mariadb");
      }
      for (String sql : statements(mysql, source.mysql().host(), GroupConfig.mysqlPort(source), repl, siteGtid)) {
        st.execute(sql);
      }
    }
  }

  /** The statements that make a server replicate from {@code host:port}; visible for tests. */
  static List<String> statements(boolean mysql, String host, int port, SecretLogins.Login repl, String siteGtid) {
    List<String> out = new ArrayList<>();
    if (mysql) {
      out.add("STOP REPLICA");
      out.add("CHANGE REPLICATION SOURCE TO SOURCE_HOST=" + quote(host) + ", SOURCE_PORT=" + port
          + ", SOURCE_USER=" + quote(repl.username()) + ", SOURCE_PASSWORD=" + quote(repl.password())
          + ", SOURCE_AUTO_POSITION=1");
      out.add("START REPLICA");
    } else {
      out.add("STOP SLAVE");
      out.add("SET GLOBAL gtid_slave_pos = " + quote(newestPerDomain(siteGtid)));
      out.add("CHANGE MASTER TO MASTER_HOST=" + quote(host) + ", MASTER_PORT=" + port
          + ", MASTER_USER=" + quote(repl.username()) + ", MASTER_PASSWORD=" + quote(repl.password())
          + ", MASTER_USE_GTID=slave_pos");
      out.add("START SLAVE");
    }
    return out;
  }

  /**
   * The GTID of the highest seqno of every domain of a MariaDB {@code gtid_binlog_pos}, which
   * lists one GTID per domain and server: what {@code gtid_slave_pos} takes.
   */
  static String newestPerDomain(String gtidBinlogPos) {
    Map<Long, long[]> newest = new TreeMap<>();
    if (gtidBinlogPos != null) {
      for (String part : gtidBinlogPos.split(",")) {
        String t = part.strip();
        if (t.isEmpty()) {
          continue;
        }
        String[] f = t.split("-");
        if (f.length != 3) {
          throw new IllegalArgumentException("not a MariaDB GTID: " + t);
        }
        long[] g = {Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2])};
        newest.merge(g[0], g, (x, y) -> y[2] > x[2] ? y : x);
      }
    }
    List<String> out = new ArrayList<>();
    newest.values().forEach(g -> out.add(g[0] + "-" + g[1] + "-" + g[2]));
    return String.join(",", out);
  }

  private SecretLogins.Login replicationLogin(GroupRef group, String secretName, SecretLogins.Login admin) {
    Secret secret = client.secrets().inNamespace(group.namespace()).withName(secretName).get();
    String user = secret == null ? null : value(secret, "replicationUsername");
    String password = secret == null ? null : value(secret, "replicationPassword");
    return user == null || password == null ? admin : new SecretLogins.Login(user, password);
  }

  private static String value(Secret secret, String key) {
    if (secret.getData() != null && secret.getData().get(key) != null) {
      return new String(Base64.getDecoder().decode(secret.getData().get(key).strip()), StandardCharsets.UTF_8);
    }
    return secret.getStringData() == null ? null : secret.getStringData().get(key);
  }

  /** A SQL string literal: backslashes and quotes escaped, for a value that comes from a Secret. */
  static String quote(String s) {
    return "'" + s.replace("\\", "\\\\").replace("'", "''") + "'";
  }
}
