package org.carla.leaderboard.console.service;

/** An action that makes no sense now (cancel a finished submission, resume a running one); nothing was changed. */
public class ActionRefused extends RuntimeException {

    public ActionRefused(String message) {
        super(message);
    }
}
