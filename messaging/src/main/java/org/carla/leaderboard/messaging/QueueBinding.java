package org.carla.leaderboard.messaging;

/**
 * A queue and its dead-letter queue.
 *
 * @param name          the queue's name in logs and metrics ({@code submissions})
 * @param url           the queue's URL
 * @param deadLetterUrl the URL of its dead-letter queue
 */
public record QueueBinding(String name, String url, String deadLetterUrl) {

    public QueueBinding {
        if (name == null || url == null || deadLetterUrl == null) {
            throw new IllegalArgumentException("a queue binding needs a name, a URL and a dead-letter URL");
        }
    }
}
