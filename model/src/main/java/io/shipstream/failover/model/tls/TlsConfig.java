package io.shipstream.failover.model.tls;

import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.ChannelFilesSpec;
import io.shipstream.failover.model.crd.MysqlFailoverGroupSpec.TlsSpec;
import io.shipstream.failover.model.crd.SiteSpec;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@code spec.tls} with its defaults applied: how the product's own sessions to the group's
 * servers are encrypted (a Secret in the group's namespace holds {@code ca.crt} and optionally
 * {@code tls.crt}/{@code tls.key}), and how every replication channel it sets up is.
 *
 * @param sessionMode the mode of the worker's and the watcher's sessions
 * @param sessionSecret the Secret with the CA (and client certificate); null when none is named
 * @param replicationMode the mode of every channel the product points
 * @param defaults the files every site's server reads unless its own entry says otherwise
 * @param sites per site, the files as that site's {@code mysqld} sees them
 */
public record TlsConfig(TlsMode sessionMode, String sessionSecret, TlsMode replicationMode, ChannelTls defaults,
    Map<String, ChannelTls> sites) {

  public static final TlsConfig NONE =
      new TlsConfig(TlsMode.DISABLED, null, TlsMode.DISABLED, ChannelTls.NONE, Map.of());

  public TlsConfig {
    sites = Map.copyOf(sites);
  }

  /** The channel a replica at {@code site} is pointed with: the group's mode and that site's files. */
  public ChannelTls channelFor(String site) {
    ChannelTls own = sites.get(site);
    ChannelTls d = defaults;
    return new ChannelTls(replicationMode,
        own != null && own.caFile() != null ? own.caFile() : d.caFile(),
        own != null && own.certFile() != null ? own.certFile() : d.certFile(),
        own != null && own.keyFile() != null ? own.keyFile() : d.keyFile());
  }

  /** Resolves {@code spec.tls}, adding every problem to {@code problems} (then the result is not used). */
  public static TlsConfig resolve(TlsSpec spec, List<SiteSpec> siteSpecs, List<String> problems) {
    if (spec == null) {
      return NONE;
    }
    TlsMode sessionMode = mode("tls.sessions.mode", spec.sessions() == null ? null : spec.sessions().mode(), problems);
    String secret = spec.sessions() == null || spec.sessions().secretRef() == null ? null
        : spec.sessions().secretRef().name();
    if (sessionMode.verifiesCa() && (secret == null || secret.isBlank())) {
      problems
          .add("tls.sessions.mode " + sessionMode.display() + " needs tls.sessions.secretRef (a Secret with ca.crt)");
    }
    var rs = spec.replication();
    TlsMode replicationMode = mode("tls.replication.mode", rs == null ? null : rs.mode(), problems);
    ChannelTls defaults = rs == null ? ChannelTls.NONE
        : new ChannelTls(replicationMode, rs.caFile(), rs.certFile(), rs.keyFile());
    Map<String, ChannelTls> sites = new HashMap<>();
    if (rs != null && rs.sites() != null) {
      for (ChannelFilesSpec f : rs.sites()) {
        if (f == null) {
          continue;
        }
        if (siteSpecs.stream().noneMatch(s -> s != null && Objects.equals(s.name(), f.site()))) {
          problems.add("tls.replication.sites names unknown site '" + f.site() + "'");
        } else if (sites.put(f.site(),
            new ChannelTls(replicationMode, f.caFile(), f.certFile(), f.keyFile())) != null) {
          problems.add("tls.replication.sites names site '" + f.site() + "' twice");
        }
      }
    }
    TlsConfig config = new TlsConfig(sessionMode, secret, replicationMode, defaults, sites);
    for (SiteSpec s : siteSpecs) {
      if (s == null) {
        continue;
      }
      ChannelTls c = config.channelFor(s.name());
      if (replicationMode.verifiesCa() && (c.caFile() == null || c.caFile().isBlank())) {
        problems.add("tls.replication.mode " + replicationMode.display() + " needs a caFile for site '" + s.name()
            + "' (tls.replication.caFile or its tls.replication.sites entry)");
      }
      if ((c.certFile() == null) != (c.keyFile() == null)) {
        problems.add("tls.replication for site '" + s.name() + "' names a certFile without a keyFile or the reverse");
      }
    }
    return config;
  }

  private static TlsMode mode(String field, String value, List<String> problems) {
    try {
      return TlsMode.parse(value, TlsMode.DISABLED);
    } catch (IllegalArgumentException e) {
      problems.add(field + ": " + e.getMessage());
      return TlsMode.DISABLED;
    }
  }
}
