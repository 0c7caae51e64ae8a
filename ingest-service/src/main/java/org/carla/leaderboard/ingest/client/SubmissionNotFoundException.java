package org.carla.leaderboard.ingest.client;

/** EvalAI answered 404: it does not know the submission, and asking again will not change that. */
public final class SubmissionNotFoundException extends RuntimeException {

    public SubmissionNotFoundException(long submissionPk) {
        super("EvalAI does not know submission " + submissionPk + " (404)");
    }
}
