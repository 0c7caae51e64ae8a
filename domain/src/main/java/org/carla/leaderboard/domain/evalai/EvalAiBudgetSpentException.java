package org.carla.leaderboard.domain.evalai;

/**
 * This service's share of EvalAI's throttle is spent for longer than the call may wait ({@link EvalAiBudget}): the
 * call was not made. Transient and ours: the message waits on its queue and comes back when permits are free; EvalAI
 * is not down for it.
 */
public final class EvalAiBudgetSpentException extends RuntimeException {

    public EvalAiBudgetSpentException(String message) {
        super(message);
    }
}
