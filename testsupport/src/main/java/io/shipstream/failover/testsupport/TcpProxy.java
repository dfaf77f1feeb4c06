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
 * read, so the proxy adds no reordering and next to no latency, unless {@link #delay} asks for
 * some: then each read is delivered that much later (and a new connection waits one round trip,
 * as a TCP handshake would), the way a link between two regions behaves.
 */
public final class TcpProxy implements AutoCloseable {
  /** What the proxy does with traffic now. */
  public enum Mode { FORWARD, REFUSE, BLACKHOLE, DROP }

  /** Where new connections go: changed by {@link #retarget}, as a Service's endpoint is. */
  private volatile InetSocketAddress target;
  private final ServerSocket listener;
  private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
    Thread thread = new Thread(runnable, "tcp-proxy");
    thread.setDaemon(true);
    return thread;
  });
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile Mode mode = Mode.FORWARD;
  private volatile long delayNanos;
  private volatile boolean closed;

  private TcpProxy(String targetHost, int targetPort, ServerSocket listener) {
    this.target = InetSocketAddress.createUnresolved(targetHost, targetPort);
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

  /** The proxy as the base URL of the HTTP server behind it. */
  public java.net.URI httpUrl() {
    return java.net.URI.create("http://" + host() + ":" + port());
  }

  public Mode mode() {
    return mode;
  }

  /**
   * Delivers every byte {@code oneWay} after it was read, in each direction, from now on (zero:
   * at once); connections opened before keep the delay they started with.
   */
  public TcpProxy delay(java.time.Duration oneWay) {
    delayNanos = oneWay.toNanos();
    return this;
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

  /**
   * Drops every byte from now on, on the open connections too, without closing any: neither end
   * hears anything, not even a reset, and new connections are accepted and never answered. What a
   * network partition does (packets dropped on the floor), where {@link #blackhole} still resets
   * what was open: each end finds out only through its own timeouts (TCP keepalives, a socket
   * timeout, a replica's heartbeat) or when {@link #heal} closes them.
   */
  public void drop() {
    mode = Mode.DROP;
  }

  /**
   * Sends new connections to {@code host:port} from now on and closes the open ones (with a reset,
   * so their clients reconnect there), as when the endpoint behind a Service changes; the mode is
   * kept (a dropping link stays dark).
   */
  public void retarget(String host, int port) {
    target = InetSocketAddress.createUnresolved(host, port);
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
      if (now == Mode.BLACKHOLE || now == Mode.DROP) {
        continue;
      }
      threads.submit(() -> connect(client));
    }
  }

  private void connect(Socket client) {
    Socket upstream = new Socket();
    long delay = delayNanos;
    try {
      if (delay > 0) {
        // The handshake's round trip.
        java.util.concurrent.TimeUnit.NANOSECONDS.sleep(2 * delay);
      }
      InetSocketAddress to = target;
      upstream.connect(new InetSocketAddress(to.getHostString(), to.getPort()), 5_000);
      upstream.setTcpNoDelay(true);
      client.setTcpNoDelay(true);
    } catch (IOException | InterruptedException e) {
      open.remove(client);
      reset(client);
      closeQuietly(upstream);
      return;
    }
    open.add(upstream);
    threads.submit(() -> pump(client, upstream, delay));
    threads.submit(() -> pump(upstream, client, delay));
  }

  private void pump(Socket from, Socket to, long delay) {
    byte[] buffer = new byte[16 * 1024];
    Delayed later = null;
    try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
      later = delay > 0 ? new Delayed(out, delay) : null;
      int n;
      while ((n = in.read(buffer)) >= 0) {
        Mode now = mode;
        if (now == Mode.DROP) {
          // Read and thrown away: the sender's writes go on succeeding, as into a lossy network.
          continue;
        }
        if (now != Mode.FORWARD) {
          break;
        }
        if (later == null) {
          out.write(buffer, 0, n);
          out.flush();
        } else {
          later.send(java.util.Arrays.copyOf(buffer, n));
        }
      }
      if (later != null && mode == Mode.FORWARD) {
        later.finish();
      }
    } catch (IOException ignored) {
      // One side went away or the proxy cut it; the finally block closes both sides.
    } finally {
      if (later != null) {
        later.writer.cancel(true);
      }
      open.remove(from);
      open.remove(to);
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  /** Writes what one direction read, each chunk {@code delay} after it was read, in order. */
  private final class Delayed {
    private record Chunk(long dueNanos, byte[] bytes) {}

    private static final byte[] END = new byte[0];
    private final java.util.concurrent.BlockingQueue<Chunk> queue = new java.util.concurrent.LinkedBlockingQueue<>();
    private final java.util.concurrent.Future<?> writer;
    private final long delay;

    Delayed(OutputStream out, long delay) {
      this.delay = delay;
      this.writer = threads.submit(() -> {
        try {
          while (true) {
            Chunk c = queue.take();
            long wait = c.dueNanos() - System.nanoTime();
            if (wait > 0) {
              java.util.concurrent.TimeUnit.NANOSECONDS.sleep(wait);
            }
            if (c.bytes() == END) {
              return null;
            }
            out.write(c.bytes());
            out.flush();
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return null;
        }
      });
    }

    void send(byte[] bytes) {
      queue.add(new Chunk(System.nanoTime() + delay, bytes));
    }

    /** Waits until everything read before the end of the stream was written. */
    void finish() {
      queue.add(new Chunk(System.nanoTime() + delay, END));
      try {
        writer.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (java.util.concurrent.ExecutionException ignored) {
        // The other side went away; the sockets are closed next.
      }
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
