package org.carla.leaderboard.domain.evalai;

/** {@link EvalAiAnswer#UNAVAILABLE}: no answer, a timeout, 5xx, 408 or 429; worth asking again later. */
public final class EvalAiUnavailableException extends EvalAiException {

    public EvalAiUnavailableException(int status, String message, Throwable cause) {
        super(status, message, cause);
    }

    @Override
    public EvalAiAnswer answer() {
        return EvalAiAnswer.UNAVAILABLE;
    }
}
