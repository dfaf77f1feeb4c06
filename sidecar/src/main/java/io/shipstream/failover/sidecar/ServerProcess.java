package io.shipstream.failover.sidecar;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The local server's process, found through {@code /proc} as the process that holds the listening
 * socket of the MySQL port, so the sidecar can tell a server that is dead from one that is frozen
 * and can stop a frozen one for good. In a pod this needs {@code shareProcessNamespace: true} and
 * the right to read the server's {@code /proc/<pid>/fd} and to signal it (the sidecar runs as the
 * server's user, or with CAP_SYS_PTRACE and CAP_KILL); without them the process is never seen,
 * and the failover falls back to the lease wait.
 *
 * <p>Only a process named {@code mysqld} or {@code mariadbd} is ever taken for the server (a
 * proxy in front of the port is not the server), and never the sidecar's own process. A pid is
 * remembered with its start time, so a reused pid is never mistaken for the server.
 */
class ServerProcess {
  private static final Logger LOG = LoggerFactory.getLogger(ServerProcess.class);
  private static final Set<String> SERVER_NAMES = Set.of("mysqld", "mariadbd");
  /** The state column of {@code /proc/net/tcp} for a listening socket. */
  private static final String LISTEN = "0A";

  /** What became of the process last seen serving the port. */
  enum Liveness {
    /** It runs (maybe stopped by a signal, or stuck in the kernel): it may resume. */
    ALIVE,
    /** It has exited: it can take no more writes. */
    EXITED,
    /** No server process was ever seen: nothing can be said. */
    UNKNOWN
  }

  /** A process as the kernel names it: the pid and its start time in clock ticks since boot. */
  record Pid(long pid, long startTicks) {}

  private final Path proc;
  private final int port;
  private volatile Optional<Pid> known = Optional.empty();

  ServerProcess(Path proc, int port) {
    this.proc = proc;
    this.port = port;
  }

  /** The host's {@code /proc}, for the server listening on {@code port}. */
  static ServerProcess onThisHost(int port) {
    return new ServerProcess(Path.of("/proc"), port);
  }

  /** For a server that does not run on this host: its process is never seen. */
  static ServerProcess none() {
    return new ServerProcess(null, 0);
  }

  /** The process last identified, if any. */
  Optional<Pid> known() {
    return known;
  }

  /**
   * Called while the server answers: identifies its process when none is known or the known one
   * has exited (a restart). Cheap when the known process still runs.
   */
  void refresh() {
    if (liveness() == Liveness.ALIVE) {
      return;
    }
    Optional<Pid> found = identify();
    if (!found.equals(known)) {
      found.ifPresentOrElse(p -> LOG.info("the server on port {} is process {}", port, p.pid()),
          () -> LOG.debug("no mysqld or mariadbd process visible on port {}", port));
    }
    if (found.isPresent()) {
      known = found;
    }
  }

  Liveness liveness() {
    Optional<Pid> current = known;
    if (current.isEmpty()) {
      return Liveness.UNKNOWN;
    }
    Optional<String> stat = read(proc.resolve(Long.toString(current.get().pid())).resolve("stat"));
    if (stat.isEmpty()) {
      return Liveness.EXITED;
    }
    Optional<Stat> parsed = Stat.parse(stat.get());
    if (parsed.isEmpty() || parsed.get().startTicks() != current.get().startTicks()) {
      return Liveness.EXITED;
    }
    char state = parsed.get().state();
    return state == 'Z' || state == 'X' || state == 'x' ? Liveness.EXITED : Liveness.ALIVE;
  }

  /** The kernel's one-letter state of the known process ('T' stopped, 'D' waiting on I/O), for messages. */
  Optional<Character> kernelState() {
    return known.flatMap(p -> read(proc.resolve(Long.toString(p.pid())).resolve("stat")))
        .flatMap(Stat::parse).map(Stat::state);
  }

  /**
   * Kills the known process (SIGKILL, which also ends a stopped one) and waits up to {@code wait}
   * for it to exit. True once it has exited, false when it could not be signalled or still runs.
   */
  boolean stop(Duration wait) {
    Optional<Pid> current = known;
    if (current.isEmpty() || liveness() != Liveness.ALIVE) {
      return liveness() == Liveness.EXITED;
    }
    if (!signalKill(current.get())) {
      return false;
    }
    long until = System.nanoTime() + wait.toNanos();
    while (liveness() == Liveness.ALIVE) {
      if (System.nanoTime() > until) {
        return false;
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return true;
  }

  /** Sends SIGKILL; overridden by tests that have no process to kill. */
  boolean signalKill(Pid pid) {
    // ProcessHandle signals the process it found only if its start time is still the same.
    return ProcessHandle.of(pid.pid()).map(ProcessHandle::destroyForcibly).orElse(false);
  }

  /** The mysqld or mariadbd process that holds the port's listening socket, if one can be seen. */
  Optional<Pid> identify() {
    if (proc == null) {
      return Optional.empty();
    }
    Set<String> inodes = new HashSet<>();
    for (String table : List.of("tcp", "tcp6")) {
      read(proc.resolve("net").resolve(table)).ifPresent(text -> inodes.addAll(listeningInodes(text, port)));
    }
    if (inodes.isEmpty()) {
      return Optional.empty();
    }
    long self = ProcessHandle.current().pid();
    try (DirectoryStream<Path> pids =
        Files.newDirectoryStream(proc, entry -> isNumber(entry.getFileName().toString()))) {
      for (Path dir : pids) {
        long pid = Long.parseLong(dir.getFileName().toString());
        if (pid == self || !isServer(dir) || !holdsAny(dir.resolve("fd"), inodes)) {
          continue;
        }
        Optional<Stat> stat = read(dir.resolve("stat")).flatMap(Stat::parse);
        if (stat.isPresent()) {
          return Optional.of(new Pid(pid, stat.get().startTicks()));
        }
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("cannot list {}: {}", proc, e.toString());
    }
    return Optional.empty();
  }

  /**
   * The inodes of the sockets listening on {@code port} in a {@code /proc/net/tcp} or {@code tcp6}
   * table: columns {@code sl local_address rem_address st ... inode}, the port in hexadecimal.
   */
  static Set<String> listeningInodes(String table, int port) {
    Set<String> inodes = new HashSet<>();
    String wanted = String.format(Locale.ROOT, "%04X", port);
    for (String line : table.split("\n")) {
      String[] columns = line.trim().split("\\s+");
      if (columns.length < 10 || !columns[0].endsWith(":")) {
        continue;
      }
      String local = columns[1];
      int colon = local.lastIndexOf(':');
      if (colon < 0 || !local.substring(colon + 1).equalsIgnoreCase(wanted) || !LISTEN.equals(columns[3])) {
        continue;
      }
      inodes.add(columns[9]);
    }
    return inodes;
  }

  /** The fields of {@code /proc/<pid>/stat} used here: the state and the start time. */
  record Stat(char state, long startTicks) {
    /** The command name, field 2, is in parentheses and may itself hold spaces and parentheses. */
    static Optional<Stat> parse(String stat) {
      int close = stat.lastIndexOf(')');
      if (close < 0) {
        return Optional.empty();
      }
      String[] fields = stat.substring(close + 1).trim().split("\\s+");
      // fields[0] is field 3 (state); field 22 (starttime) is fields[19].
      if (fields.length < 20 || fields[0].isEmpty()) {
        return Optional.empty();
      }
      try {
        return Optional.of(new Stat(fields[0].charAt(0), Long.parseLong(fields[19])));
      } catch (NumberFormatException e) {
        return Optional.empty();
      }
    }
  }

  private static boolean isServer(Path dir) {
    return read(dir.resolve("comm")).map(String::strip).filter(SERVER_NAMES::contains).isPresent();
  }

  private static boolean holdsAny(Path fds, Set<String> inodes) {
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(fds)) {
      for (Path fd : entries) {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (target.startsWith("socket:[") && inodes.contains(target.substring(8, target.length() - 1))) {
            return true;
          }
        } catch (IOException | UnsupportedOperationException e) {
          // The descriptor was closed meanwhile: not this one.
        }
      }
    } catch (IOException | RuntimeException e) {
      // Another user's process, or one that exited meanwhile.
    }
    return false;
  }

  private static boolean isNumber(String name) {
    return !name.isEmpty() && name.chars().allMatch(Character::isDigit);
  }

  /** A /proc file read line by line: its size shows as 0, so a sized read may return too little. */
  private static Optional<String> read(Path file) {
    try (var reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      StringBuilder text = new StringBuilder();
      String line;
      while ((line = reader.readLine()) != null) {
        text.append(line).append('\n');
      }
      return Optional.of(text.toString());
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
