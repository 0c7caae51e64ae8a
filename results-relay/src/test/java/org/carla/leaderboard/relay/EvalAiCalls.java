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

    /** The reads of one submission ({@code GET /api/jobs/submission/{pk}}). */
    static List<RecordedCall> reads(List<RecordedCall> calls, long pk) {
        return calls.stream().filter(call -> call.method().equals("GET")
                && call.path().equals("/api/jobs/submission/" + pk)).toList();
    }

    /** The lists of a challenge's submissions ({@code GET /api/jobs/challenge/{pk}/submission/?...}). */
    static List<RecordedCall> lists(List<RecordedCall> calls, long challengePk) {
        return calls.stream().filter(call -> call.method().equals("GET")
                && call.path().startsWith("/api/jobs/challenge/" + challengePk + "/submission/")).toList();
    }

    /** Every call about one submission: its reads and the updates naming it. */
    static List<RecordedCall> about(List<RecordedCall> calls, long pk) {
        return calls.stream().filter(call -> reads(List.of(call), pk).size() == 1
                || !call.body().isBlank() && body(call).path("submission").asLong() == pk).toList();
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
