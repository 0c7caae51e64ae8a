package org.carla.leaderboard.relay.client;

/** EvalAI does not show the status the relay just sent yet: the confirmation reads again after a back-off. */
public final class EvalAiNotShownException extends RuntimeException {

    public EvalAiNotShownException(String message) {
        super(message);
    }
}
