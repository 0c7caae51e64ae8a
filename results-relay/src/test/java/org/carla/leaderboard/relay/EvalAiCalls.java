package org.carla.leaderboard.relay;

import java.util.List;

import org.carla.leaderboard.localstack.evalai.RecordedCall;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** The calls the EvalAI stand-in received about one submission, by endpoint. */
final class EvalAiCalls {

    private static final ObjectMapper JSON = new ObjectMapper();

    private EvalAiCalls() {
    }

    static List<RecordedCall> finalUpdates(List<RecordedCall> calls, long pk) {
        return about(calls, pk, "PUT", "/update_submission/");
    }

    static List<RecordedCall> partialUpdates(List<RecordedCall> calls, long pk) {
        return about(calls, pk, "PUT", "/update_partially_evaluated_submission/");
    }

    static List<RecordedCall> runningUpdates(List<RecordedCall> calls, long pk) {
        return about(calls, pk, "PATCH", "/update_submission/");
    }

    static JsonNode body(RecordedCall call) {
        try {
            return JSON.readTree(call.body());
        } catch (JsonProcessingException e) {
            throw new AssertionError("EvalAI received a body that is not JSON: " + call.body(), e);
        }
    }

    private static List<RecordedCall> about(List<RecordedCall> calls, long pk, String method, String pathEnd) {
        return calls.stream()
                .filter(call -> call.method().equals(method) && call.path().endsWith(pathEnd))
                .filter(call -> body(call).path("submission").asLong() == pk)
                .toList();
    }
}
