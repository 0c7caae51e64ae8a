package org.carla.leaderboard.localstack.evalai;

import java.time.Instant;

/** One call the stand-in's EvalAI API received: method, path (with query), body, the status it answered, when. */
public record RecordedCall(String method, String path, String body, int status, Instant time) {
}
