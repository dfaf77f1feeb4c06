package io.shipstream.failover.mysql;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;

/**
 * The first packet a MySQL or MariaDB server sends on a new TCP connection, before any login: the
 * protocol version (10) and the server's version string, which names MariaDB on a MariaDB server
 * (MariaDB 10 and later prefix it with {@code 5.5.5-}). Reading it costs one TCP connection and no
 * login, so the flavor, and with it the driver, is known before the first real connection.
 *
 * <p>A server that refuses the connection at once (too many connections, a blocked host) sends an
 * error packet instead, which becomes the same {@link SQLException} a driver would raise.
 */
public record Greeting(int protocolVersion, String serverVersion) {
  private static final int MAX_PACKET = 1 << 16;

  public ServerFlavor flavor() {
    return ServerFlavor.ofVersion(serverVersion);
  }

  /**
   * Parses one packet as the server sent it: the 4-byte header (3 bytes of little-endian payload
   * length, 1 byte of sequence number) and then the payload.
   */
  public static Greeting parse(byte[] packet) throws SQLException {
    if (packet.length < 5) {
      throw malformed("only " + packet.length + " bytes");
    }
    int length = (packet[0] & 0xff) | (packet[1] & 0xff) << 8 | (packet[2] & 0xff) << 16;
    if (packet.length < 4 + length || length < 1) {
      throw malformed("a payload of " + length + " bytes announced, " + (packet.length - 4) + " sent");
    }
    int first = packet[4] & 0xff;
    if (first == 0xff) {
      // ERR packet: 0xff, the error code (2 bytes, little-endian), then the message.
      int code = length >= 3 ? (packet[5] & 0xff) | (packet[6] & 0xff) << 8 : 0;
      String message = length > 3 ? new String(packet, 7, length - 3, StandardCharsets.UTF_8) : "";
      throw new SQLNonTransientConnectionException(message, "08004", code);
    }
    if (first != 10) {
      throw malformed("protocol version " + first + ", not 10");
    }
    int end = 5;
    while (end < 4 + length && packet[end] != 0) {
      end++;
    }
    if (end == 4 + length) {
      throw malformed("the version string is not terminated");
    }
    return new Greeting(first, new String(packet, 5, end - 5, StandardCharsets.US_ASCII));
  }

  /**
   * Opens a TCP connection, reads the greeting and closes the connection without logging in. The
   * connect timeout bounds both the TCP connection and the wait for the packet, as it bounds the
   * drivers' handshakes: a frozen server accepts the connection in the kernel and never greets.
   */
  public static Greeting read(String host, int port, Timeouts timeouts) throws SQLException {
    int connectMillis = (int) Math.max(1, timeouts.connect().toMillis());
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), connectMillis);
      socket.setSoTimeout(connectMillis);
      InputStream in = socket.getInputStream();
      byte[] header = in.readNBytes(4);
      if (header.length < 4) {
        throw malformed("the connection closed after " + header.length + " bytes");
      }
      int length = (header[0] & 0xff) | (header[1] & 0xff) << 8 | (header[2] & 0xff) << 16;
      if (length > MAX_PACKET) {
        throw malformed("a first packet of " + length + " bytes");
      }
      byte[] payload = in.readNBytes(length);
      ByteArrayOutputStream packet = new ByteArrayOutputStream(4 + payload.length);
      packet.write(header);
      packet.write(payload);
      return parse(packet.toByteArray());
    } catch (SocketTimeoutException e) {
      throw new SQLTransientConnectionException("no greeting from " + host + ":" + port + " within the timeout: "
          + e.getMessage(), "08001", e);
    } catch (IOException e) {
      throw new SQLNonTransientConnectionException("cannot connect to " + host + ":" + port + ": " + e, "08001", e);
    }
  }

  private static SQLException malformed(String what) {
    return new SQLNonTransientConnectionException("not a MySQL or MariaDB greeting: " + what, "08S01");
  }
}
