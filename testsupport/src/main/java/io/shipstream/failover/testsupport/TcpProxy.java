package io.shipstream.failover.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A loopback TCP proxy in front of one real server, so a test can cut the network path to it
 * without touching the server: {@link #refuse()} closes every open connection and refuses new
 * ones (the peer sees "connection refused"-like resets, as when a host's port is firewalled with
 * REJECT), {@link #blackhole()} keeps accepting but never forwards a byte (as when packets are
 * dropped, so the client waits for its own timeout), and {@link #heal()} restores normal service.
 *
 * <p>Every connection gets two daemon threads that copy bytes; nothing is buffered beyond one
 * read, so the proxy adds no reordering and next to no latency.
 */
public final class TcpProxy implements AutoCloseable {
  /** What the proxy does with traffic now. */
  public enum Mode { FORWARD, REFUSE, BLACKHOLE }

  private final String targetHost;
  private final int targetPort;
  private final ServerSocket listener;
  private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
    Thread thread = new Thread(runnable, "tcp-proxy");
    thread.setDaemon(true);
    return thread;
  });
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile Mode mode = Mode.FORWARD;
  private volatile boolean closed;

  private TcpProxy(String targetHost, int targetPort, ServerSocket listener) {
    this.targetHost = targetHost;
    this.targetPort = targetPort;
    this.listener = listener;
  }

  /** Starts a proxy on a free loopback port that forwards to {@code targetHost:targetPort}. */
  public static TcpProxy start(String targetHost, int targetPort) {
    try {
      ServerSocket listener = new ServerSocket();
      listener.setReuseAddress(true);
      listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
      TcpProxy proxy = new TcpProxy(targetHost, targetPort, listener);
      proxy.threads.submit(proxy::acceptLoop);
      return proxy;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start a proxy for " + targetHost + ":" + targetPort, e);
    }
  }

  public String host() {
    return listener.getInetAddress().getHostAddress();
  }

  public int port() {
    return listener.getLocalPort();
  }

  public Mode mode() {
    return mode;
  }

  /** Closes every open connection and resets new ones until {@link #heal()}. */
  public void refuse() {
    mode = Mode.REFUSE;
    closeAll();
  }

  /**
   * Closes every open connection, then accepts new ones but never answers them until {@link
   * #heal()}: a client without a timeout hangs, as it would behind a partition.
   */
  public void blackhole() {
    mode = Mode.BLACKHOLE;
    closeAll();
  }

  /** Forwards again. Connections held in the black hole are closed so clients reconnect. */
  public void heal() {
    mode = Mode.FORWARD;
    closeAll();
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        if (closed) {
          return;
        }
        continue;
      }
      Mode now = mode;
      if (now == Mode.REFUSE) {
        reset(client);
        continue;
      }
      open.add(client);
      if (now == Mode.BLACKHOLE) {
        continue;
      }
      threads.submit(() -> connect(client));
    }
  }

  private void connect(Socket client) {
    Socket upstream = new Socket();
    try {
      upstream.connect(new InetSocketAddress(targetHost, targetPort), 5_000);
      upstream.setTcpNoDelay(true);
      client.setTcpNoDelay(true);
    } catch (IOException e) {
      open.remove(client);
      reset(client);
      closeQuietly(upstream);
      return;
    }
    open.add(upstream);
    threads.submit(() -> pump(client, upstream));
    threads.submit(() -> pump(upstream, client));
  }

  private void pump(Socket from, Socket to) {
    byte[] buffer = new byte[16 * 1024];
    try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
      int n;
      while ((n = in.read(buffer)) >= 0) {
        if (mode != Mode.FORWARD) {
          break;
        }
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException ignored) {
      // One side went away or the proxy cut it; the finally block closes both sides.
    } finally {
      open.remove(from);
      open.remove(to);
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private void closeAll() {
    for (Socket socket : open) {
      open.remove(socket);
      reset(socket);
    }
  }

  /** Closes with SO_LINGER 0 so the peer sees a reset at once rather than an orderly close. */
  private static void reset(Socket socket) {
    try {
      socket.setSoLinger(true, 0);
    } catch (SocketException ignored) {
      // Already closed.
    }
    closeQuietly(socket);
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // Nothing left to release.
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      listener.close();
    } catch (IOException ignored) {
      // Closing anyway.
    }
    closeAll();
    threads.shutdownNow();
  }
}
