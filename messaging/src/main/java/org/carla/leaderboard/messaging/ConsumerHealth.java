package org.carla.leaderboard.messaging;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.Liveness;
import org.eclipse.microprofile.health.Readiness;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.arc.properties.IfBuildProperty;
import io.smallrye.health.api.Wellness;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The health checks of a service that takes its work from queues, and its one {@link Dependencies}: alive while its
 * consumers poll; ready while the queues it needs answer; degraded ({@code /q/health/well},
 * {@code leaderboard_dependency_up}) while a dependency is down, which never makes it unready (the work waits on its
 * queue). A service with a {@link QueueService} bean switches it on at build time with
 * {@code messaging.consumer-health=on}; the other users of this module (ops-console, pod-runtime) get none of it. Its
 * checks stand beside the service's own (a service's table or API server readiness, for one).
 */
@IfBuildProperty(name = ConsumerHealth.SWITCH, stringValue = "on")
@Singleton
public class ConsumerHealth {

    /** The build-time property that switches the checks on. */
    public static final String SWITCH = "messaging.consumer-health";

    @Produces
    @Singleton
    Dependencies dependencies(MeterRegistry registry) {
        return new Dependencies(registry);
    }

    @Produces
    @Liveness
    @Singleton
    HealthCheck consumersPoll(QueueService service) {
        return service.liveness();
    }

    @Produces
    @Readiness
    @Singleton
    HealthCheck queuesAnswer(QueueService service, SqsClient sqs, QueuesConfig queues, Dependencies dependencies) {
        return new QueuesReadiness(sqs, service.neededQueues().stream().map(queues::binding).toList(), dependencies);
    }

    @Produces
    @Wellness
    @Singleton
    HealthCheck dependenciesAnswer(Dependencies dependencies) {
        return dependencies.wellness();
    }
}
