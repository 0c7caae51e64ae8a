package org.carla.leaderboard.domain.evalai;

/**
 * A call to EvalAI's host API that did not succeed, by what its answer means ({@link EvalAiAnswer}); the exceptions
 * ingest-service's and results-relay's EvalAI clients throw.
 */
public abstract class EvalAiException extends RuntimeException {

    private final int status;

    EvalAiException(int status, String message, Throwable cause) {
        super(message, cause);
        this.status = status;
    }

    /** The HTTP status EvalAI answered; 0 when it did not answer. */
    public int status() {
        return status;
    }

    public abstract EvalAiAnswer answer();
}
