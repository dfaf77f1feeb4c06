package io.shipstream.failover.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TcpProxyTest {
  private ServerSocket echo;
  private TcpProxy proxy;

  @BeforeEach
  void startEchoServer() throws IOException {
    echo = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(() -> {
      while (!echo.isClosed()) {
        try {
          Socket s = echo.accept();
          Thread t = new Thread(() -> echoLines(s));
          t.setDaemon(true);
          t.start();
        } catch (IOException e) {
          return;
        }
      }
    });
    acceptor.setDaemon(true);
    acceptor.start();
    proxy = TcpProxy.start("127.0.0.1", echo.getLocalPort());
  }

  @AfterEach
  void stop() throws IOException {
    proxy.close();
    echo.close();
  }

  @Test
  void forwardsBothWaysUntilRefusedAndAgainAfterHealing() throws IOException {
    try (Socket s = connect()) {
      assertThat(roundTrip(s, "hello")).isEqualTo("hello");
      proxy.refuse();
      assertThatThrownBy(() -> roundTrip(s, "after-cut")).isInstanceOf(IOException.class);
    }
    try (Socket s = connect()) {
      assertThatThrownBy(() -> roundTrip(s, "refused")).isInstanceOf(IOException.class);
    }
    proxy.heal();
    try (Socket s = connect()) {
      assertThat(roundTrip(s, "healed")).isEqualTo("healed");
    }
  }

  @Test
  void blackholeAcceptsButNeverAnswersUntilHealed() throws IOException {
    try (Socket s = connect()) {
      assertThat(roundTrip(s, "hello")).isEqualTo("hello");
    }
    proxy.blackhole();
    try (Socket s = connect()) {
      s.setSoTimeout(300);
      long started = System.nanoTime();
      assertThatThrownBy(() -> roundTrip(s, "anyone?")).isInstanceOf(SocketTimeoutException.class);
      assertThat(java.time.Duration.ofNanos(System.nanoTime() - started))
          .isGreaterThanOrEqualTo(java.time.Duration.ofMillis(250));
    }
    assertThat(proxy.mode()).isEqualTo(TcpProxy.Mode.BLACKHOLE);

    proxy.heal();
    try (Socket s = connect()) {
      assertThat(roundTrip(s, "healed")).isEqualTo("healed");
    }
  }

  @Test
  void aDelayedLinkDeliversEverythingInOrderAndNoSoonerThanTheDelay() throws IOException {
    proxy.delay(java.time.Duration.ofMillis(30));
    try (Socket s = connect()) {
      long start = System.nanoTime();
      assertThat(roundTrip(s, "first")).isEqualTo("first");
      // One round trip through the link, 30 ms each way (the handshake's adds to it).
      assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(60);

      PrintWriter out = new PrintWriter(s.getOutputStream(), true, StandardCharsets.UTF_8);
      BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
      for (int i = 0; i < 200; i++) {
        out.println("line " + i);
      }
      for (int i = 0; i < 200; i++) {
        assertThat(in.readLine()).isEqualTo("line " + i);
      }
    }
    proxy.delay(java.time.Duration.ZERO);
    try (Socket s = connect()) {
      assertThat(roundTrip(s, "direct again")).isEqualTo("direct again");
    }
  }

  @Test
  void retargetSendsNewConnectionsToTheOtherServerAndResetsTheOpenOnes() throws IOException {
    try (ServerSocket other = new ServerSocket(0, 16, InetAddress.getLoopbackAddress())) {
      Thread acceptor = new Thread(() -> {
        try (Socket s = other.accept();
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
            PrintWriter out = new PrintWriter(s.getOutputStream(), true, StandardCharsets.UTF_8)) {
          out.println("other " + in.readLine());
        } catch (IOException ignored) {
          // The test ended.
        }
      });
      acceptor.setDaemon(true);
      acceptor.start();
      try (Socket s = connect()) {
        assertThat(roundTrip(s, "hello")).isEqualTo("hello");
        proxy.retarget("127.0.0.1", other.getLocalPort());
        assertThatThrownBy(() -> roundTrip(s, "still there?")).isInstanceOf(IOException.class);
      }
      try (Socket s = connect()) {
        assertThat(roundTrip(s, "hello")).isEqualTo("other hello");
      }
      assertThat(proxy.mode()).isEqualTo(TcpProxy.Mode.FORWARD);
    }
  }

  private Socket connect() throws IOException {
    Socket s = new Socket(proxy.host(), proxy.port());
    s.setSoTimeout(5_000);
    return s;
  }

  private static String roundTrip(Socket s, String line) throws IOException {
    PrintWriter out = new PrintWriter(s.getOutputStream(), true, StandardCharsets.UTF_8);
    out.println(line);
    String answer = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8)).readLine();
    if (answer == null) {
      throw new IOException("connection closed");
    }
    return answer;
  }

  private static void echoLines(Socket s) {
    try (s;
        BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
        PrintWriter out = new PrintWriter(s.getOutputStream(), true, StandardCharsets.UTF_8)) {
      String line;
      while ((line = in.readLine()) != null) {
        out.println(line);
      }
    } catch (IOException ignored) {
      // The proxy cut the connection.
    }
  }
}
