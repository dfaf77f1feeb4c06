package io.shipstream.failover.sidecar;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A loopback TCP proxy that can cut the link it stands for, the way a network partition does.
 * {@link #cut} drops every open connection and from then on accepts new ones but forwards nothing,
 * so a client waits for its own timeout, as it would for a peer behind a dead switch; {@link
 * #restore} drops the held connections and forwards again.
 */
final class FaultProxy implements AutoCloseable {
  private final String name;
  private final InetSocketAddress target;
  private final ServerSocket listener;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final Set<Socket> held = ConcurrentHashMap.newKeySet();
  private volatile boolean cut;
  private volatile boolean closed;

  FaultProxy(String name, int targetPort) {
    this.name = name;
    this.target = new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort);
    try {
      this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Thread acceptor = new Thread(this::acceptLoop, "proxy-" + name + "-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  URI url() {
    return URI.create("http://127.0.0.1:" + listener.getLocalPort());
  }

  synchronized void cut() {
    cut = true;
    open.forEach(FaultProxy::closeQuietly);
    open.clear();
  }

  synchronized void restore() {
    cut = false;
    held.forEach(FaultProxy::closeQuietly);
    held.clear();
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        return;
      }
      // Under the lock, so a cut() cannot slip between the check and the forwarding.
      synchronized (this) {
        if (cut) {
          // Accepted and never answered: the other side hears nothing, which is what a partition sounds like.
          held.add(client);
        } else {
          forward(client);
        }
      }
    }
  }

  private void forward(Socket client) {
    Socket upstream = new Socket();
    try {
      upstream.connect(target, 1000);
    } catch (IOException e) {
      // The far side is down (a stopped process): the client sees its connection closed, as it would.
      closeQuietly(client);
      closeQuietly(upstream);
      return;
    }
    open.add(client);
    open.add(upstream);
    pump(client, upstream, "up");
    pump(upstream, client, "down");
  }

  private void pump(Socket from, Socket to, String direction) {
    Thread thread = new Thread(() -> {
      byte[] buffer = new byte[8192];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        int n;
        while ((n = in.read(buffer)) >= 0) {
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // A closed socket on either side ends the pump.
      } finally {
        closeQuietly(from);
        closeQuietly(to);
        open.remove(from);
        open.remove(to);
      }
    }, "proxy-" + name + "-" + direction);
    thread.setDaemon(true);
    thread.start();
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // Already closed.
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    try {
      listener.close();
    } catch (IOException e) {
      // Already closed.
    }
    open.forEach(FaultProxy::closeQuietly);
    held.forEach(FaultProxy::closeQuietly);
  }

  @Override
  public String toString() {
    return "proxy " + name + " :" + listener.getLocalPort() + " -> :" + target.getPort() + (cut ? " (cut)" : "");
  }
}
