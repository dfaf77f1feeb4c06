package io.shipstream.failover.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import io.shipstream.failover.sidecar.ServerProcess.Liveness;
import io.shipstream.failover.sidecar.ServerProcess.Pid;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The server's process found in a /proc tree written by the test, as the kernel lays it out. */
class ServerProcessTest {
  private static final String TCP_HEADER =
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n";

  @TempDir
  Path proc;

  @Test
  void findsTheListeningSocketsOfThePortInBothTables() {
    String tcp = TCP_HEADER
        + "   0: 0100007F:0CEA 00000000:0000 0A 00000000:00000000 00:00000000 00000000   106        0 4711 1 0\n"
        // An established connection to the same port is no listener.
        + "   1: 0100007F:0CEA 0100007F:D431 01 00000000:00000000 00:00000000 00000000   106        0 4712 1 0\n"
        + "   2: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000   106        0 4713 1 0\n";
    String tcp6 = TCP_HEADER
        + "   0: 00000000000000000000000000000000:0CEA 00000000000000000000000000000000:0000 0A "
        + "00000000:00000000 00:00000000 00000000   106        0 5000 1 0\n";

    assertThat(ServerProcess.listeningInodes(tcp, 3306)).containsExactly("4711");
    assertThat(ServerProcess.listeningInodes(tcp6, 3306)).containsExactly("5000");
    assertThat(ServerProcess.listeningInodes(tcp, 3307)).isEmpty();
  }

  @Test
  void readsStateAndStartTimeEvenWhenTheCommandNameHasSpacesAndParentheses() {
    String stat = "77 (my (odd) d) T 1 77 77 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 30 0 123456 1000 50";
    assertThat(ServerProcess.Stat.parse(stat)).contains(new ServerProcess.Stat('T', 123456));
    assertThat(ServerProcess.Stat.parse("garbage")).isEmpty();
  }

  @Test
  void identifiesOnlyAServerProcessHoldingTheListeningSocket() throws IOException {
    listen(3306, "4711");
    process(100, "java", 'S', 9, "4711"); // a proxy in front of the port is not the server
    process(200, "mariadbd", 'S', 500, "9999"); // another server, on another port
    process(300, "mariadbd", 'S', 700, "4711");
    ServerProcess server = new ServerProcess(proc, 3306);

    assertThat(server.identify()).contains(new Pid(300, 700));
    assertThat(server.liveness()).as("nothing remembered before refresh").isEqualTo(Liveness.UNKNOWN);
    server.refresh();
    assertThat(server.known()).contains(new Pid(300, 700));
    assertThat(server.liveness()).isEqualTo(Liveness.ALIVE);
  }

  @Test
  void aFrozenServerIsAliveAndAnExitedZombieOrReusedPidIsNot() throws IOException {
    ServerProcess server = seenOnce("mysqld");

    stat(300, "mysqld", 'T', 700);
    assertThat(server.liveness()).as("SIGSTOP").isEqualTo(Liveness.ALIVE);
    assertThat(server.kernelState()).contains('T');

    stat(300, "mysqld", 'Z', 700);
    assertThat(server.liveness()).isEqualTo(Liveness.EXITED);

    stat(300, "mysqld", 'S', 999);
    assertThat(server.liveness()).as("the pid now belongs to another process").isEqualTo(Liveness.EXITED);

    Files.delete(proc.resolve("300/stat"));
    assertThat(server.liveness()).isEqualTo(Liveness.EXITED);
  }

  @Test
  void aRestartedServerIsFoundAgainUnderItsNewPid() throws IOException {
    ServerProcess server = seenOnce("mariadbd");
    stat(300, "mariadbd", 'Z', 700);
    listen(3306, "8888");
    process(400, "mariadbd", 'S', 900, "8888");

    server.refresh();

    assertThat(server.known()).contains(new Pid(400, 900));
  }

  @Test
  void aServerThatCannotBeSeenIsUnknownAndCannotBeStopped() throws IOException {
    listen(3306, "4711"); // the socket is in the pod's network namespace, the process in another PID namespace
    ServerProcess server = new ServerProcess(proc, 3306);
    server.refresh();

    assertThat(server.known()).isEmpty();
    assertThat(server.liveness()).isEqualTo(Liveness.UNKNOWN);
    assertThat(server.stop(Duration.ofMillis(10))).isFalse();
    assertThat(ServerProcess.none().identify()).isEqualTo(Optional.empty());
  }

  @Test
  void stopSignalsTheKnownProcessAndWaitsForItToExit() throws IOException {
    listen(3306, "4711");
    process(300, "mariadbd", 'T', 700, "4711");
    ServerProcess server = new ServerProcess(proc, 3306) {
      @Override
      boolean signalKill(Pid pid) {
        try {
          stat(pid.pid(), "mariadbd", 'Z', pid.startTicks());
        } catch (IOException e) {
          throw new AssertionError(e);
        }
        return true;
      }
    };
    server.refresh();

    assertThat(server.stop(Duration.ofSeconds(1))).isTrue();
    assertThat(server.liveness()).isEqualTo(Liveness.EXITED);
  }

  /** A server {@code comm} (pid 300, started at tick 700) listening on 3306, seen by one refresh. */
  private ServerProcess seenOnce(String comm) throws IOException {
    listen(3306, "4711");
    process(300, comm, 'S', 700, "4711");
    ServerProcess server = new ServerProcess(proc, 3306);
    server.refresh();
    return server;
  }

  private void listen(int port, String inode) throws IOException {
    Files.createDirectories(proc.resolve("net"));
    Files.writeString(proc.resolve("net/tcp"), TCP_HEADER + String.format(
        "   0: 0100007F:%04X 00000000:0000 0A 00000000:00000000 00:00000000 00000000   106        0 %s 1 0%n",
        port, inode));
  }

  private void process(long pid, String comm, char state, long start, String socketInode) throws IOException {
    Path dir = Files.createDirectories(proc.resolve(Long.toString(pid)).resolve("fd"));
    Files.writeString(dir.getParent().resolve("comm"), comm + "\n");
    stat(pid, comm, state, start);
    Files.createSymbolicLink(dir.resolve("1"), Path.of("/dev/null"));
    Files.createSymbolicLink(dir.resolve("7"), Path.of("socket:[" + socketInode + "]"));
  }

  private void stat(long pid, String comm, char state, long start) throws IOException {
    Files.writeString(proc.resolve(Long.toString(pid)).resolve("stat"), pid + " (" + comm + ") " + state
        + " 1 1 1 0 -1 4194560 100 0 0 0 5 3 0 0 20 0 30 0 " + start + " 1000 50\n");
  }
}
