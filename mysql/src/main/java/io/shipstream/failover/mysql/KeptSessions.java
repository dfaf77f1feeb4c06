package io.shipstream.failover.mysql;

import java.net.SocketTimeoutException;
import java.sql.SQLTimeoutException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * One kept session per key the caller names (the watcher: one per site it polls), for work that
 * comes back to the same server every few seconds: a poll on a kept session costs its statements'
 * round trips, where a new connection costs three or four more before its first statement (the TCP
 * and MySQL handshakes and the login) and the server's work of a login.
 *
 * <p>Unlike {@link MysqlConnections}' keeping there is no ping before reuse: the work's own first
 * statement is the check, and a kept session is replaced on any error. A server that restarted,
 * or that ended the connection ({@code KILL}, {@code wait_timeout}), fails that statement at once
 * (the socket was closed), and the work is run once more on a new connection, so the answer comes
 * from the server as it is now, never from a session of the server it was; a server state is never
 * remembered between uses, only the socket. A failure that took a timeout (a frozen or black-holed
 * server), or half the socket timeout or more, is not tried again: a dead host costs one timeout
 * per use, as a new connection would. A session whose work failed, changed session state, or whose
 * address, login or timeouts differ from the ones it was opened with is closed, never reused.
 *
 * <p>Uses of one key are meant to follow each other; two at once each get a session, and the
 * second to finish closes its own. {@link #forget} closes the sessions of keys no longer used
 * (the watcher: a group it stopped watching), so nothing stays open for them.
 */
public final class KeptSessions<K> implements AutoCloseable {
  /** The work done on a session; its statements must not change session state. */
  public interface Work<T> {
    T apply(MysqlSession session) throws MysqlException;
  }

  private record Kept(MysqlSession session, MysqlAddress address, Credentials login, Timeouts timeouts) {
    boolean serves(MysqlAddress a, Credentials l, Timeouts t) {
      return address.host().equals(a.host()) && address.port() == a.port()
          && java.util.Objects.equals(address.flavor(), a.flavor()) && login.equals(l) && timeouts.equals(t);
    }
  }

  private final MysqlConnections connections;
  private final boolean keep;
  private final Map<K, Kept> kept = new ConcurrentHashMap<>();
  private final AtomicLong opened = new AtomicLong();
  private final AtomicLong reused = new AtomicLong();

  /**
   * Sessions opened through {@code connections} (best {@link MysqlConnections#unpooled()}: its
   * closes are real); {@code keep} false opens a new one for every use, as before kept sessions.
   */
  public KeptSessions(MysqlConnections connections, boolean keep) {
    this.connections = connections;
    this.keep = keep;
  }

  /**
   * Runs {@code work} on the session kept for {@code key}, or a new one; keeps the session for the
   * next use if the work succeeded. Throws what the work or the connection threw.
   */
  public <T> T use(K key, MysqlAddress address, Credentials login, Timeouts timeouts, Work<T> work)
      throws MysqlException {
    Kept held = keep ? kept.remove(key) : null;
    if (held != null && !held.serves(address, login, timeouts)) {
      held.session().close();
      held = null;
    }
    if (held != null) {
      long started = System.nanoTime();
      try {
        T result = work.apply(held.session());
        reused.incrementAndGet();
        putBack(key, held);
        return result;
      } catch (MysqlException | RuntimeException e) {
        held.session().close();
        long tookNanos = System.nanoTime() - started;
        if (tookTimeout(e) || tookNanos * 2 >= timeouts.socket().toNanos()) {
          throw e;
        }
        // The kept connection had been ended (a restart, a KILL): once more on a new one.
      }
    }
    MysqlSession session = MysqlSession.open(connections, address, login, timeouts);
    opened.incrementAndGet();
    try {
      T result = work.apply(session);
      if (keep) {
        putBack(key, new Kept(session, address, login, timeouts));
      } else {
        session.close();
      }
      return result;
    } catch (MysqlException | RuntimeException e) {
      session.close();
      throw e;
    }
  }

  private void putBack(K key, Kept k) {
    if (kept.putIfAbsent(key, k) != null) {
      k.session().close();
    }
  }

  /** Closes the kept sessions of every key {@code which} accepts. */
  public void forget(Predicate<? super K> which) {
    kept.entrySet().removeIf(e -> {
      if (!which.test(e.getKey())) {
        return false;
      }
      e.getValue().session().close();
      return true;
    });
  }

  /** How many sessions are kept now. */
  public int kept() {
    return kept.size();
  }

  /** How many connections were opened so far. */
  public long opened() {
    return opened.get();
  }

  /** How many uses ran on a kept session so far. */
  public long reused() {
    return reused.get();
  }

  @Override
  public void close() {
    forget(k -> true);
  }

  /** Whether the failure was a timeout: the server did not answer, rather than ended the connection. */
  static boolean tookTimeout(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SocketTimeoutException || t instanceof SQLTimeoutException) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }
}
