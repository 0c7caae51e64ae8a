package org.carla.leaderboard.localstack.process;

/**
 * A local server did not become ready; {@link #retryable()} tells whether another start may help: on another port, or
 * without the class-data archive whose dump stopped it.
 */
public final class ServerStartException extends IllegalStateException {

    private final boolean retryable;

    public ServerStartException(String message, boolean retryable) {
        super(message);
        this.retryable = retryable;
    }

    public boolean retryable() {
        return retryable;
    }
}
