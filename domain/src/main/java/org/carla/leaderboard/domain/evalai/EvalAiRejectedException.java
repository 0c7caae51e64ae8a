package org.carla.leaderboard.domain.evalai;

/** {@link EvalAiAnswer#REJECTED}: another 4xx; asking again the same way will never succeed. */
public class EvalAiRejectedException extends EvalAiException {

    public EvalAiRejectedException(int status, String message) {
        super(status, message, null);
    }

    @Override
    public EvalAiAnswer answer() {
        return EvalAiAnswer.REJECTED;
    }
}
