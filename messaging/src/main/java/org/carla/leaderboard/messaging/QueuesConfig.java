package org.carla.leaderboard.messaging;

import java.util.Map;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithParentName;

/**
 * The queues a service talks to: {@code queues.<name>.url} and {@code queues.<name>.dead-letter-url}, with the names
 * {@code submissions} (EvalAI → ingest-service), {@code launch-requests} (ingest-service → job-launcher),
 * {@code submission-events} (lifecycle events: only ingest-service and job-launcher send) and {@code progress-reports}
 * (progress from the submission pods, whose code includes a participant's).
 */
@ConfigMapping(prefix = "queues")
public interface QueuesConfig {

    String SUBMISSIONS = "submissions";
    String LAUNCH_REQUESTS = "launch-requests";
    String SUBMISSION_EVENTS = "submission-events";
    String PROGRESS_REPORTS = "progress-reports";

    /** Every queue of the system, in the order of the flow. */
    java.util.List<String> ALL = java.util.List.of(SUBMISSIONS, LAUNCH_REQUESTS, SUBMISSION_EVENTS, PROGRESS_REPORTS);

    @WithParentName
    Map<String, Queue> queues();

    interface Queue {
        String url();

        String deadLetterUrl();
    }

    /** The queue of that name; fails clearly when the service was not configured with it. */
    default QueueBinding binding(String name) {
        Queue queue = queues().get(name);
        if (queue == null) {
            throw new IllegalStateException("queue '" + name + "' is not configured: set queues." + name
                    + ".url and queues." + name + ".dead-letter-url");
        }
        return new QueueBinding(name, queue.url(), queue.deadLetterUrl());
    }
}
