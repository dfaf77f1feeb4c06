package io.shipstream.failover.workflows;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.common.converter.JacksonJsonPayloadConverter;

/**
 * The data converter of every payload the worker and the watcher exchange through Temporal: a
 * workflow's input and result, a signal's and a query's, an activity's arguments and result. In a
 * rolling upgrade the two ends are different releases (a watcher of N+1 starts a run a worker of N
 * runs; a workflow task on one worker schedules an activity another executes), so a reader ignores
 * the fields it does not know: the SDK's default JSON converter, with {@code
 * FAIL_ON_UNKNOWN_PROPERTIES} off. The SDK's default fails on an unknown field, so a field added to
 * any payload record would fail every reader of the release before. {@code
 * WorkflowPayloadCompatibilityTest} decodes every payload with a field of a later release added.
 */
public final class PayloadConverter {
  /** The SDK's default converter but for JSON, which ignores unknown fields. */
  public static final DataConverter INSTANCE = DefaultDataConverter.newDefaultInstance()
      .withPayloadConverterOverrides(new JacksonJsonPayloadConverter(mapper()));

  private PayloadConverter() {}

  private static ObjectMapper mapper() {
    ObjectMapper mapper = JacksonJsonPayloadConverter.newDefaultObjectMapper();
    mapper.configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    return mapper;
  }

  /** The options of a worker's or a watcher's {@code WorkflowClient}: the namespace, and this converter. */
  public static WorkflowClientOptions.Builder clientOptions(String namespace) {
    return WorkflowClientOptions.newBuilder().setNamespace(namespace).setDataConverter(INSTANCE);
  }
}
