package org.carla.leaderboard.domain.evalai;

/** {@link EvalAiAnswer#REFUSED}: 401 or 403, EvalAI does not take our host token; ours to fix, the message waits. */
public final class EvalAiRefusedException extends EvalAiException {

    public EvalAiRefusedException(int status, String message) {
        super(status, message, null);
    }

    @Override
    public EvalAiAnswer answer() {
        return EvalAiAnswer.REFUSED;
    }
}
