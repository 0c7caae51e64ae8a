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

    /**
     * The extended resource of one GPU (or one time-slice of a GPU) that the NVIDIA device plugin advertises: every
     * simulator requests one, every agent {@link #agentGpus()}.
     */
    @WithDefault("nvidia.com/gpu")
    String gpuResource();

    /** How many {@link #gpuResource()} each agent requests: 1 (a GPU, or a time-slice of one), or 0 for none. */
    @WithDefault("1")
    int agentGpus();

    /** The key of the GPU nodes' taint, tolerated by the pod. */
    @WithDefault("nvidia.com/gpu")
    String gpuTaintKey();

    /** The users the containers run as, given explicitly in the Job (none is root). */
    Users users();

    /** How long a run's pod may wait for GPU capacity before the run ends; see {@code job/RunDeadline}. */
    @WithDefault("PT12H")
    Duration longestCapacityWait();

    /**
     * How long a container of a run's pod may fail to pull its image before the run ends (reason ImagePullFailed): the
     * kubelet has tried several pulls by then (10 s back-off, doubling), and a missing image or a refused pull never
     * succeeds.
     */
    Duration imagePullGrace();

    /** Requests and limits by role: {@code install}, {@code init}, {@code simulator}, {@code agent}, {@code logcopy}. */
    Map<String, ContainerResources> resources();

    /** Optional Kueue admission: leaderboard id → track codename → LocalQueue name. */
    Map<String, Map<String, String>> kueueQueues();

    AwsAccess aws();

    Watch watch();

    Reconcile reconcile();

    /** How launch-requests is consumed: {@code launcher.consumer.*}, messaging's group and defaults. */
    ConsumerConfig consumer();

    interface ContainerResources {
        String cpuRequest();

        String memoryRequest();

        String cpuLimit();

        String memoryLimit();
    }

    /** A user and its primary group. */
    interface RunAs {
        long uid();

        long gid();
    }

    interface Users {
        /** CARLA's image's own user ({@code carla}, 1000:1000 in CARLA's release images). */
        RunAs simulator();

        /** The participant's image, forced to a non-root user of our choice whatever its {@code USER} says. */
        RunAs agent();

        /** install-pod-runtime, private-contents and logcopy: pod-runtime's image user. */
        RunAs podRuntime();

        /** The pod's {@code fsGroup}: every container's supplementary group, owner group of the shared volumes. */
        long fsGroup();
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

    interface Reconcile {
        /** How often every Job of the launcher is compared with its submission's record and its pod. */
        @WithDefault("PT30S")
        Duration interval();

        /** How long a cancelled run's running pod may take to stop by itself before its Job is deleted. */
        @WithDefault("PT5M")
        Duration cancelGrace();
    }
}
