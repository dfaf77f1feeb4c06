package io.shipstream.failover.testsupport;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** The few bytes of RESP the test support needs to talk to a redis-server without a client library. */
final class RespClient {
  private static final int TIMEOUT_MILLIS = 2000;

  private RespClient() {}

  static String call(String host, int port, String... args) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), TIMEOUT_MILLIS);
      socket.setSoTimeout(TIMEOUT_MILLIS);
      OutputStream out = socket.getOutputStream();
      out.write(encode(args));
      out.flush();
      return readReply(new BufferedInputStream(socket.getInputStream()));
    } catch (IOException e) {
      throw new UncheckedIOException("redis " + host + ":" + port + ": " + e.getMessage(), e);
    }
  }

  private static byte[] encode(String... args) {
    StringBuilder request = new StringBuilder().append('*').append(args.length).append("\r\n");
    for (String arg : args) {
      byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
      request.append('$').append(bytes.length).append("\r\n").append(arg).append("\r\n");
    }
    return request.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static String readReply(InputStream in) throws IOException {
    int type = in.read();
    if (type == -1) {
      throw new IOException("connection closed before a reply");
    }
    String line = readLine(in);
    switch (type) {
      case '+':
      case ':':
        return line;
      case '-':
        throw new IllegalStateException("redis error: " + line);
      case '$':
        int length = Integer.parseInt(line);
        if (length < 0) {
          return null;
        }
        byte[] data = in.readNBytes(length + 2);
        return new String(data, 0, length, StandardCharsets.UTF_8);
      default:
        throw new IllegalStateException("unsupported redis reply type '" + (char) type + "'");
    }
  }

  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int previous = -1;
    for (int b = in.read(); b != -1; b = in.read()) {
      if (previous == '\r' && b == '\n') {
        byte[] bytes = line.toByteArray();
        return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
      }
      line.write(b);
      previous = b;
    }
    throw new IOException("connection closed in the middle of a reply");
  }
}
