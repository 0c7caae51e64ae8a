package org.carla.leaderboard.localstack.process;

/** A local server did not become ready; {@link #portInUse()} tells whether another port may help. */
public final class ServerStartException extends IllegalStateException {

    private final boolean portInUse;

    public ServerStartException(String message, boolean portInUse) {
        super(message);
        this.portInUse = portInUse;
    }

    public boolean portInUse() {
        return portInUse;
    }
}
