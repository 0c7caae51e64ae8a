package org.carla.leaderboard.localstack.evalai;

import java.time.Instant;
import java.util.List;

/**
 * A submission as the host sees it now: its EvalAI status (lower case, as EvalAI stores it), every status it went
 * through, what the evaluation reported ({@code result} is the JSON string received, {@code stdout}, {@code stderr},
 * {@code metadata}), the Job names PATCHed in, and its times.
 */
public record SubmissionView(long pk, long challengePk, long phasePk, long teamId, String teamName, String status,
        List<String> statusHistory, String submittedImageUri, String result, String stdout, String stderr,
        String metadata, List<String> jobNames, Instant submittedAt, Instant startedAt, Instant completedAt,
        Instant rerunResumedAt) {
}
