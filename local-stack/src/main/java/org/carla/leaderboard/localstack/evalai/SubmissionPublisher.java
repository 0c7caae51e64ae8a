package org.carla.leaderboard.localstack.evalai;

/** Where the stand-in puts EvalAI's submission messages (the challenge's {@code submissions} queue). */
@FunctionalInterface
public interface SubmissionPublisher {

    /** Publishes one message body, exactly as EvalAI would; throws when the message could not be sent. */
    void publish(String messageBody);
}
