package io.shipstream.failover.activities.hooks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.shipstream.failover.kube.SecretCredentialsProvider;
import io.shipstream.failover.workflows.activities.HookActivities;
import io.shipstream.failover.workflows.contract.FailureTypes;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;

/**
 * POSTs a failover's JSON description to a webhook of {@code spec.hooks}, with the JDK's HTTP
 * client. The bearer token is read from its Secret here, on every call (a rotated token is used
 * at once), so it never travels through Temporal. Each call waits at most its own timeout for the
 * answer; the workflow's retry options decide whether it is tried again. Redirects are not
 * followed: a hook answers where it is configured.
 */
public final class HookActivitiesImpl implements HookActivities {
  /** How much of an answer's body is kept: enough to say why a hook refused, no more. */
  static final int BODY_SHOWN = 200;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final KubernetesClient kubernetes;
  private final HttpClient http;

  public HookActivitiesImpl(KubernetesClient kubernetes) {
    this(kubernetes, HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build());
  }

  HookActivitiesImpl(KubernetesClient kubernetes, HttpClient http) {
    this.kubernetes = Objects.requireNonNull(kubernetes, "kubernetes");
    this.http = Objects.requireNonNull(http, "http");
  }

  @Override
  public Answer post(Call call) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(call.url()))
        .timeout(Duration.ofMillis(Math.max(1, call.timeoutMillis())))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofByteArray(json(call.body())));
    if (call.bearerTokenSecret() != null) {
      request.header("Authorization", "Bearer " + token(call));
    }
    HttpResponse<InputStream> response;
    String shown;
    try {
      response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
      shown = firstChars(response.body());
    } catch (HttpTimeoutException e) {
      throw ApplicationFailure.newFailure("gave no answer within " + call.timeoutMillis() + " ms",
          FailureTypes.HOOK_UNREACHABLE);
    } catch (IOException e) {
      throw ApplicationFailure.newFailure("could not be reached: " + e.getClass().getSimpleName()
          + (e.getMessage() == null ? "" : ": " + e.getMessage()), FailureTypes.HOOK_UNREACHABLE);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ApplicationFailure.newFailure("interrupted while waiting for the answer", FailureTypes.HOOK_UNREACHABLE);
    }
    int status = response.statusCode();
    if (status / 100 != 2) {
      throw ApplicationFailure.newFailure("answered " + status + (shown.isEmpty() ? "" : ": " + shown),
          FailureTypes.HOOK_REFUSED);
    }
    return new Answer(status, shown);
  }

  private static byte[] json(Body body) {
    try {
      return JSON.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw ApplicationFailure.newNonRetryableFailure("cannot write the hook's body: " + e.getMessage(),
          e.getClass().getName());
    }
  }

  /** The token from the Secret in the group's namespace; a Secret that cannot be read is retryable. */
  private String token(Call call) {
    String namespace = call.group().namespace();
    String where = "Secret " + namespace + "/" + call.bearerTokenSecret();
    Secret secret;
    try {
      secret = kubernetes.secrets().inNamespace(namespace).withName(call.bearerTokenSecret()).get();
    } catch (KubernetesClientException e) {
      throw ApplicationFailure.newFailure("cannot read the hook's " + where + ": HTTP " + e.getCode() + " "
          + e.getMessage(), FailureTypes.CREDENTIALS_UNAVAILABLE);
    }
    if (secret == null) {
      throw ApplicationFailure.newFailure("the hook's " + where + " not found", FailureTypes.CREDENTIALS_UNAVAILABLE);
    }
    String token = SecretCredentialsProvider.value(secret, call.bearerTokenKey());
    if (token == null || token.isBlank()) {
      throw ApplicationFailure.newFailure("the hook's " + where + " lacks the key " + call.bearerTokenKey(),
          FailureTypes.CREDENTIALS_UNAVAILABLE);
    }
    return token.strip();
  }

  /** The first {@link #BODY_SHOWN} characters of the answer, read no further, on one line. */
  private static String firstChars(InputStream body) throws IOException {
    try (body) {
      byte[] head = body.readNBytes(BODY_SHOWN * 4);
      String text = new String(head, StandardCharsets.UTF_8).replaceAll("\\s+", " ").strip();
      return text.length() > BODY_SHOWN ? text.substring(0, BODY_SHOWN) : text;
    }
  }
}
