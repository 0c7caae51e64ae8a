package org.carla.leaderboard.launcher.service;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.carla.leaderboard.launcher.config.LauncherConfig;
import org.carla.leaderboard.messaging.QueueConsumer;
import org.carla.leaderboard.messaging.QueueConsumers;
import org.carla.leaderboard.messaging.QueueService;
import org.carla.leaderboard.messaging.QueuesConfig;
import org.eclipse.microprofile.health.HealthCheck;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import software.amazon.awssdk.services.sqs.SqsClient;

/** Runs the team's queue consumer on {@code launch-requests} for the life of the service, after the watcher started. */
@ApplicationScoped
public class LaunchRequestConsumer implements QueueService {

    private final QueueConsumers consumers;
    private final JobWatcher watcher;

    LaunchRequestConsumer(SqsClient sqs, QueuesConfig queues, SubmissionLauncher launcher, LauncherConfig config,
            MeterRegistry registry, JobWatcher watcher) {
        this.watcher = watcher;
        this.consumers = QueueConsumers.of(new QueueConsumer(sqs, queues.binding(QueuesConfig.LAUNCH_REQUESTS),
                launcher, config.consumer().options(), registry));
    }

    void onStart(@Observes StartupEvent event) {
        watcher.start();
        consumers.start();
    }

    void onStop(@Observes ShutdownEvent event) {
        consumers.close();
        watcher.stop();
    }

    @Override
    public HealthCheck liveness() {
        return consumers.liveness();
    }

    /** The queue it reads and the one it publishes to ({@code KubernetesApiCheck} adds the API server). */
    @Override
    public List<String> neededQueues() {
        return List.of(QueuesConfig.LAUNCH_REQUESTS, QueuesConfig.SUBMISSION_EVENTS);
    }
}
