package org.carla.leaderboard.localstack.evalai;

import java.util.Map;

/** An answer other than success, with EvalAI's status code and body ({@code {"error": ...}} or {@code {"detail": ...}}). */
final class EvalAiError extends RuntimeException {

    final int status;
    final Map<String, Object> body;

    EvalAiError(int status, String key, String message) {
        super(message, null, false, false);
        this.status = status;
        this.body = Map.of(key, message);
    }

    static EvalAiError badRequest(String error) {
        return new EvalAiError(400, "error", error);
    }
}
