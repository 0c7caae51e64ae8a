package org.carla.leaderboard.ingest.client;

import org.carla.leaderboard.domain.evalai.EvalAiRejectedException;

/** EvalAI answered 404: it does not know the submission, and asking again will not change that. */
public final class SubmissionNotFoundException extends EvalAiRejectedException {

    public SubmissionNotFoundException(long submissionPk) {
        super(404, "EvalAI does not know submission " + submissionPk + " (404)");
    }
}
