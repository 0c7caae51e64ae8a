package org.carla.leaderboard.launcher.config;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import org.carla.leaderboard.messaging.ConsumerConfig;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * The cluster side of a submission's Job: where it runs, under which identity, with which resources. What the
 * submission itself needs (images, routes, pairs, deadline) comes with the launch request's track.
 */
@ConfigMapping(prefix = "launcher")
public interface LauncherConfig {

    /** The namespace of the submissions' Jobs. */
    String namespace();

    /** The service account of the submission pods (IRSA / pod identity: S3 and submission-events only). */
    @WithDefault("submission-worker")
    String serviceAccount();

    /** Safety net: Kubernetes deletes a finished Job after this even if the launcher never did. */
    @WithDefault("PT24H")
    Duration ttlAfterFinished();

    /** The progress-reports queue as logcopy reaches it (by default {@code queues.progress-reports.url}). */
    String progressReportsQueueUrl();

    /** How long logcopy stays silent when nothing changed before it sends a heartbeat. */
    @WithDefault("PT5M")
    Duration heartbeatPeriod();

    /** How often logcopy uploads the logs and reports progress. */
    @WithDefault("PT10S")
    Duration logsPeriod();

    /** The node's X11 socket folder, mounted into the simulators as in the original Job. */
    @WithDefault("/tmp/.X11-unix")
    String x11HostPath();

    /** The extended resource of one GPU, requested by every simulator and tolerated by the pod. */
    @WithDefault("nvidia.com/gpu")
    String gpuResource();

    /** Requests and limits by role: {@code install}, {@code init}, {@code simulator}, {@code agent}, {@code logcopy}. */
    Map<String, ContainerResources> resources();

    /** Optional Kueue admission: leaderboard id → track codename → LocalQueue name. */
    Map<String, Map<String, String>> kueueQueues();

    AwsAccess aws();

    Watch watch();

    /** How launch-requests is consumed: {@code launcher.consumer.*}, messaging's group and defaults. */
    ConsumerConfig consumer();

    interface ContainerResources {
        String cpuRequest();

        String memoryRequest();

        String cpuLimit();

        String memoryLimit();
    }

    interface AwsAccess {
        /**
         * Annotate the pod so the EKS pod identity webhook injects no AWS credentials into the agent containers
         * ({@code eks.amazonaws.com/skip-containers}): install-pod-runtime, the simulators and the agents. Only
         * private-contents and logcopy get them.
         */
        @WithDefault("true")
        boolean skipAgentContainers();

        /** AWS_REGION for the containers that use AWS (init, logcopy); unset: the webhook's or the SDK's default. */
        Optional<String> region();
    }

    interface Watch {
        /** How often every Job is looked at again; a report that failed is retried then. */
        @WithDefault("PT1M")
        Duration resync();
    }
}
