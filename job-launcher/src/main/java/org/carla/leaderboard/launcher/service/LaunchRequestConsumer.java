package org.carla.leaderboard.launcher.service;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.carla.leaderboard.launcher.config.LauncherConfig;
import org.carla.leaderboard.messaging.ConsumerOptions;
import org.carla.leaderboard.messaging.QueueConsumer;
import org.carla.leaderboard.messaging.QueuesConfig;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import software.amazon.awssdk.services.sqs.SqsClient;

/** Runs the team's queue consumer on {@code launch-requests} for the life of the service, after the watcher started. */
@ApplicationScoped
public class LaunchRequestConsumer {

    private final QueueConsumer consumer;
    private final JobWatcher watcher;

    LaunchRequestConsumer(SqsClient sqs, QueuesConfig queues, SubmissionLauncher launcher, LauncherConfig config,
            MeterRegistry registry, JobWatcher watcher) {
        this.watcher = watcher;
        ConsumerOptions options = ConsumerOptions.defaults()
                .withMaxInFlight(config.consumer().maxInFlight())
                .withWaitTime(config.consumer().waitTime())
                .withVisibilityTimeout(config.consumer().visibilityTimeout());
        this.consumer = new QueueConsumer(sqs, queues.binding(QueuesConfig.LAUNCH_REQUESTS), launcher, options,
                registry);
    }

    void onStart(@Observes StartupEvent event) {
        watcher.start();
        consumer.start();
    }

    void onStop(@Observes ShutdownEvent event) {
        consumer.close();
        watcher.stop();
    }

    /** Whether the launch-requests queue answers. */
    public boolean reachable() {
        return consumer.reachable();
    }
}
