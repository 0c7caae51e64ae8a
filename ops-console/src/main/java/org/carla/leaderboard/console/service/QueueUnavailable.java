package org.carla.leaderboard.console.service;

/** SQS failed before an action changed anything: try again. */
public class QueueUnavailable extends RuntimeException {

    public QueueUnavailable(String message) {
        super(message);
    }
}
