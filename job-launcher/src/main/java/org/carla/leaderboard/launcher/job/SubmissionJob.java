package org.carla.leaderboard.launcher.job;

import static org.carla.leaderboard.domain.pod.PodEnvironment.ALLOWED_RESUMES;
import static org.carla.leaderboard.domain.pod.PodEnvironment.CARLA_PORT;
import static org.carla.leaderboard.domain.pod.PodEnvironment.CARLA_PYTHON_API_ROOT;
import static org.carla.leaderboard.domain.pod.PodEnvironment.CARLA_PYTHON_API_VOLUME;
import static org.carla.leaderboard.domain.pod.PodEnvironment.CARLA_RENDERER;
import static org.carla.leaderboard.domain.pod.PodEnvironment.CHALLENGE_TRACK_CODENAME;
import static org.carla.leaderboard.domain.pod.PodEnvironment.EXPECTED_ROUTES;
import static org.carla.leaderboard.domain.pod.PodEnvironment.HEARTBEAT_PERIOD;
import static org.carla.leaderboard.domain.pod.PodEnvironment.LEADERBOARD;
import static org.carla.leaderboard.domain.pod.PodEnvironment.LEADERBOARD_ROOT;
import static org.carla.leaderboard.domain.pod.PodEnvironment.LEADERBOARD_VERSION;
import static org.carla.leaderboard.domain.pod.PodEnvironment.LEADERBOARD_VOLUME;
import static org.carla.leaderboard.domain.pod.PodEnvironment.LEDGER_TABLE;
import static org.carla.leaderboard.domain.pod.PodEnvironment.LOGS_DIR;
import static org.carla.leaderboard.domain.pod.PodEnvironment.LOGS_PERIOD;
import static org.carla.leaderboard.domain.pod.PodEnvironment.NODE_NAME;
import static org.carla.leaderboard.domain.pod.PodEnvironment.POD_NAME;
import static org.carla.leaderboard.domain.pod.PodEnvironment.PODS;
import static org.carla.leaderboard.domain.pod.PodEnvironment.PROGRESS_QUEUE_URL;
import static org.carla.leaderboard.domain.pod.PodEnvironment.REPETITIONS;
import static org.carla.leaderboard.domain.pod.PodEnvironment.RESTART_LIMIT;
import static org.carla.leaderboard.domain.pod.PodEnvironment.RESUME;
import static org.carla.leaderboard.domain.pod.PodEnvironment.ROUTES;
import static org.carla.leaderboard.domain.pod.PodEnvironment.RUN;
import static org.carla.leaderboard.domain.pod.PodEnvironment.S3_BUCKET;
import static org.carla.leaderboard.domain.pod.PodEnvironment.SCENARIOS;
import static org.carla.leaderboard.domain.pod.PodEnvironment.SCHEDULE;
import static org.carla.leaderboard.domain.pod.PodEnvironment.SCENARIO_RUNNER_ROOT;
import static org.carla.leaderboard.domain.pod.PodEnvironment.SCENARIO_RUNNER_VOLUME;
import static org.carla.leaderboard.domain.pod.PodEnvironment.STATUS_DIR;
import static org.carla.leaderboard.domain.pod.PodEnvironment.SUBMISSION_ID;
import static org.carla.leaderboard.domain.pod.PodEnvironment.TEAM_ID;
import static org.carla.leaderboard.domain.pod.PodEnvironment.VERSIONS_DIR;
import static org.carla.leaderboard.domain.pod.PodEnvironment.WORKER_ID;
import static org.carla.leaderboard.domain.pod.PodEnvironment.WORKER_PAIRS;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.carla.leaderboard.domain.event.LaunchRequest;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.layout.LogsLayout;
import org.carla.leaderboard.domain.pod.PodEnvironment;
import org.carla.leaderboard.domain.status.StatusFiles.Role;
import org.carla.leaderboard.domain.track.TrackSpec;
import org.carla.leaderboard.launcher.config.LauncherConfig;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.SecurityContextBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.VolumeMountBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;

/**
 * The Kubernetes Job of one submission, built in one place from the launch request (its track carries images, routes,
 * pairs, deadline) and the launcher's cluster configuration. The paths and variables are the contract with pod-runtime
 * and the local Job runner: see the module README.
 */
public final class SubmissionJob {

    static final String POD_RUNTIME_DIR = "/opt/pod-runtime";
    static final String POD_RUNTIME = POD_RUNTIME_DIR + "/pod-runtime";
    static final String POD_RUNTIME_IMAGE_BINARY = "/usr/local/bin/pod-runtime";
    static final String LOGS_PATH = "/tmp/logs";
    static final String STATUS_PATH = LOGS_PATH + "/" + LogsLayout.STATUS_DIR;
    /** Where init mounts the Leaderboard volume. */
    static final String INIT_LEADERBOARD_VOLUME = "/tmp/leaderboard";
    /** Where carla-version and init mount the versions volume, which no other container mounts. */
    static final String VERSIONS_PATH = "/tmp/versions";
    static final int FIRST_CARLA_PORT = 2000;
    static final int CARLA_PORT_STEP = 100;
    static final String LOGCOPY = "logcopy";

    private final LauncherConfig config;

    public SubmissionJob(LauncherConfig config) {
        this.config = config;
        for (String role : List.of("install", "init", "simulator", "agent", "logcopy")) {
            if (!config.resources().containsKey(role)) {
                throw new IllegalStateException("launcher.resources." + role + ".* is not configured");
            }
        }
        LauncherConfig.Users users = config.users();
        Map.of("simulator", users.simulator(), "agent", users.agent(), "pod-runtime", users.podRuntime())
                .forEach((role, user) -> {
                    if (user.uid() < 1 || user.gid() < 1) {
                        throw new IllegalStateException("launcher.users." + role + " must be a non-root uid and gid");
                    }
                });
        if (users.fsGroup() < 1) {
            throw new IllegalStateException("launcher.users.fs-group must not be root's group");
        }
        if (config.agentGpus() < 0) {
            throw new IllegalStateException("launcher.agent-gpus must be 0 or more");
        }
    }

    /** The Kueue LocalQueue of a track, when its admission goes through Kueue. */
    public Optional<String> kueueQueue(TrackSpec track) {
        return Optional.ofNullable(config.kueueQueues().getOrDefault(track.leaderboard(), Map.of()).get(track.track()));
    }

    public Job build(LaunchRequest request) {
        SubmissionIdentity submission = request.submission();
        TrackSpec track = request.trackSpec();
        int pairs = track.effectiveWorkerPairs();
        Optional<String> kueueQueue = kueueQueue(track);

        var labels = new LinkedHashMap<String, String>();
        labels.put(JobMetadata.MANAGED_BY, JobMetadata.LAUNCHER);
        labels.put(JobMetadata.SUBMISSION_ID, JobNames.labelValue(submission.submissionId()));
        labels.put(JobMetadata.TEAM_ID, JobNames.labelValue(Long.toString(submission.teamId())));
        labels.put(JobMetadata.LEADERBOARD, JobNames.labelValue(submission.leaderboard()));
        labels.put(JobMetadata.TRACK, JobNames.labelValue(submission.track()));
        labels.put(JobMetadata.RUN, Integer.toString(request.run()));
        kueueQueue.ifPresent(queue -> labels.put(JobMetadata.KUEUE_QUEUE, JobNames.labelValue(queue)));

        var annotations = new LinkedHashMap<String, String>();
        annotations.put(JobMetadata.SUBMISSION_ID, submission.submissionId());
        annotations.put(JobMetadata.SUBMISSION, JobMetadata.identityJson(submission));
        annotations.put(JobMetadata.WORKER_PAIRS, Integer.toString(pairs));
        annotations.put(JobMetadata.REQUESTED_AT, request.requestedAt().toString());
        annotations.put(JobMetadata.RUN_DEADLINE, Long.toString(track.deadlineSeconds()));

        var podAnnotations = new LinkedHashMap<String, String>();
        // The cluster autoscaler never drains a node in the middle of an evaluation.
        podAnnotations.put(JobMetadata.SAFE_TO_EVICT, "false");
        if (config.aws().skipAgentContainers()) {
            var skipped = new ArrayList<String>();
            skipped.add("install-pod-runtime");
            skipped.add("carla-version");
            for (int i = 1; i <= pairs; i++) {
                skipped.add(Role.SIMULATOR.container(i));
                skipped.add(Role.AGENT.container(i));
            }
            podAnnotations.put(JobMetadata.SKIP_AWS_CONTAINERS, String.join(",", skipped));
        }

        var initContainers = new ArrayList<Container>(List.of(installPodRuntime(track), carlaVersion(track),
                privateContents(request, pairs)));
        // The pairs are sidecars: started in this order once init is done, restarted in place after any exit, stopped
        // once logcopy, the one regular container, has ended. simulator-i right before agent-i: the device plugin's
        // packed policy gives the two the slices of one GPU.
        for (int i = 1; i <= pairs; i++) {
            initContainers.add(sidecar(simulator(request, i, pairs)));
            initContainers.add(sidecar(agent(request, i, pairs)));
        }

        return new JobBuilder()
                .withNewMetadata()
                    .withName(JobNames.forRun(submission, request.run()))
                    .withNamespace(config.namespace())
                    .withLabels(labels)
                    .withAnnotations(annotations)
                    .withFinalizers(JobMetadata.REPORT_FINALIZER)
                .endMetadata()
                .withNewSpec()
                    // Pods that failed for another reason than the two rules below (an init container that failed,
                    // logcopy killed): each is replaced, and its replacement resumes, as often as the track allows.
                    .withBackoffLimit(track.allowedResumes())
                    // logcopy ends the pod with its own code when the pairs spent the crash budget: the run fails
                    // at once. A pod disrupted (its node lost, drained, a spot interruption, an eviction) is replaced
                    // and resumes, not counted against backoffLimit.
                    .withNewPodFailurePolicy()
                        .addNewRule()
                            .withAction("FailJob")
                            .withNewOnExitCodes()
                                .withContainerName(LOGCOPY)
                                .withOperator("In")
                                .withValues(PodEnvironment.RESTART_LIMIT_EXIT_CODE)
                            .endOnExitCodes()
                        .endRule()
                        .addNewRule()
                            .withAction("Ignore")
                            .addNewOnPodCondition().withType("DisruptionTarget").withStatus("True").endOnPodCondition()
                        .endRule()
                    .endPodFailurePolicy()
                    // A run of several pods: one per completion index, all at once, each on its own GPU node; the
                    // Job completes once every index has (job_controller.go), so when the ledger has no route left.
                    .withCompletionMode(track.pods() > 1 ? "Indexed" : null)
                    .withCompletions(track.pods() > 1 ? track.pods() : null)
                    .withParallelism(track.pods() > 1 ? track.pods() : null)
                    .withActiveDeadlineSeconds(RunDeadline.initial(track.deadlineSeconds(),
                            config.longestCapacityWait()))
                    .withTtlSecondsAfterFinished((int) config.ttlAfterFinished().toSeconds())
                    .withSuspend(kueueQueue.isPresent() ? Boolean.TRUE : null)
                    .withNewTemplate()
                        .withNewMetadata()
                            .addToLabels(JobMetadata.WORKLOAD, JobMetadata.WORKLOAD_SUBMISSION)
                            .addToLabels(JobMetadata.SUBMISSION_ID, labels.get(JobMetadata.SUBMISSION_ID))
                            .addToLabels(JobMetadata.RUN, labels.get(JobMetadata.RUN))
                            .withAnnotations(podAnnotations)
                        .endMetadata()
                        .withNewSpec()
                            .withRestartPolicy("Never")
                            .withServiceAccountName(config.serviceAccount())
                            .withAutomountServiceAccountToken(false)
                            .withEnableServiceLinks(false)
                            .addToNodeSelector("node.kubernetes.io/instance-type", track.instanceType())
                            .addNewToleration()
                                .withKey(config.gpuTaintKey()).withOperator("Exists").withEffect("NoSchedule")
                            .endToleration()
                            .withNewSecurityContext()
                                .withRunAsNonRoot(true)
                                // The shared emptyDir volumes belong to this group, which every container is in.
                                .withFsGroup(config.users().fsGroup())
                                .withNewSeccompProfile().withType("RuntimeDefault").endSeccompProfile()
                            .endSecurityContext()
                            .withVolumes(volumes())
                            .withInitContainers(initContainers)
                            .withContainers(logcopy(request, pairs))
                        .endSpec()
                    .endTemplate()
                .endSpec()
                .build();
    }

    private List<Volume> volumes() {
        var volumes = new ArrayList<Volume>();
        for (String name : List.of("pod-runtime", "logs", "leaderboard", "scenario-runner", "carla-python-api",
                "versions")) {
            volumes.add(new VolumeBuilder().withName(name).withNewEmptyDir().endEmptyDir().build());
        }
        return volumes;
    }

    private Container installPodRuntime(TrackSpec track) {
        return new ContainerBuilder()
                .withName("install-pod-runtime")
                .withImage(track.podRuntimeImage())
                .withCommand(POD_RUNTIME_IMAGE_BINARY, "install", POD_RUNTIME_DIR)
                .withVolumeMounts(mount("pod-runtime", POD_RUNTIME_DIR, false))
                .withResources(resources("install", 0))
                .withSecurityContext(runningAs(config.users().podRuntime()))
                .build();
    }

    /**
     * The CARLA server's version, read in the simulator's image before any participant's code runs and left in the
     * versions volume for init; the simulator's user, no AWS credentials, the install's resources.
     */
    private Container carlaVersion(TrackSpec track) {
        return new ContainerBuilder()
                .withName("carla-version")
                .withImage(track.simulatorImage())
                .withCommand(POD_RUNTIME, "carla-version")
                .withEnv(env(VERSIONS_DIR, VERSIONS_PATH))
                .withVolumeMounts(podRuntimeMount(), mount("versions", VERSIONS_PATH, false))
                .withResources(resources("install", 0))
                .withSecurityContext(runningAs(config.users().simulator()))
                .build();
    }

    private Container privateContents(LaunchRequest request, int pairs) {
        TrackSpec track = request.trackSpec();
        return new ContainerBuilder()
                .withName("private-contents")
                .withImage(track.leaderboardImage())
                .withCommand(POD_RUNTIME, "init")
                .withEnv(withRegion(List.of(
                        env(SUBMISSION_ID, request.submission().submissionId()),
                        env(RUN, Integer.toString(request.run())),
                        env(WORKER_PAIRS, Integer.toString(pairs)),
                        env(RESUME, Boolean.toString(request.resume())),
                        env(S3_BUCKET, track.bucket()),
                        env(LOGS_DIR, LOGS_PATH),
                        env(STATUS_DIR, STATUS_PATH),
                        env(LEADERBOARD_VOLUME, INIT_LEADERBOARD_VOLUME),
                        env(SCENARIO_RUNNER_VOLUME, "/tmp/scenario_runner"),
                        env(CARLA_PYTHON_API_VOLUME, "/tmp/CARLA"),
                        env(VERSIONS_DIR, VERSIONS_PATH)), ledgerOfInit(request)))
                .withVolumeMounts(podRuntimeMount(), logsMount(),
                        mount("leaderboard", INIT_LEADERBOARD_VOLUME, false),
                        mount("scenario-runner", "/tmp/scenario_runner", false),
                        mount("carla-python-api", "/tmp/CARLA", false),
                        mount("versions", VERSIONS_PATH, true))
                .withResources(resources("init", 0))
                .withSecurityContext(runningAs(config.users().podRuntime()))
                .build();
    }

    private Container simulator(LaunchRequest request, int worker, int pairs) {
        TrackSpec track = request.trackSpec();
        return new ContainerBuilder()
                .withName(Role.SIMULATOR.container(worker))
                .withImage(track.simulatorImage())
                .withCommand(POD_RUNTIME, "simulator")
                .withEnv(pairEnv(request, worker, pairs, List.of(env(CARLA_RENDERER, track.renderer()))))
                .withVolumeMounts(podRuntimeMount(), logsMount())
                // CARLA renders off-screen (-RenderOffScreen, Vulkan): no X server, no privilege; its GPU comes from
                // the device plugin through the resource request.
                .withResources(resources("simulator", 1))
                .withSecurityContext(runningAs(config.users().simulator()))
                .build();
    }

    /**
     * Pair i's agent: the evaluator of the track's Leaderboard version; it reads the routes file and drives its share
     * of it (pair i of the pairs) by route id.
     */
    private Container agent(LaunchRequest request, int worker, int pairs) {
        TrackSpec track = request.trackSpec();
        var evaluator = new ArrayList<EnvVar>(List.of(
                env(CHALLENGE_TRACK_CODENAME, track.track()),
                env(LEADERBOARD_VERSION, track.leaderboardVersion().text()),
                env(ROUTES, track.routesFile())));
        if (track.leaderboardVersion().takesScenarios()) {
            evaluator.add(env(SCENARIOS, track.scenariosFile()));
        }
        evaluator.addAll(List.of(
                env(REPETITIONS, Integer.toString(track.repetitions())),
                env(EXPECTED_ROUTES, Integer.toString(track.expectedRouteRecords())),
                env(RESUME, Boolean.toString(request.resume())),
                env(LEADERBOARD_ROOT, PodEnvironment.LEADERBOARD_DIR),
                env(SCENARIO_RUNNER_ROOT, "/workspace/scenario_runner"),
                env(CARLA_PYTHON_API_ROOT, "/workspace/CARLA")));
        if (track.claimsRoutes()) {
            evaluator.add(env(LEDGER_TABLE, track.ledgerTable()));
        }
        return new ContainerBuilder()
                .withName(Role.AGENT.container(worker))
                .withImage(request.imageUri())
                .withCommand(POD_RUNTIME, "agent")
                .withEnv(pairEnv(request, worker, pairs, evaluator))
                .withVolumeMounts(podRuntimeMount(), logsMount(),
                        mount("leaderboard", PodEnvironment.LEADERBOARD_DIR, false),
                        mount("scenario-runner", "/workspace/scenario_runner", false),
                        mount("carla-python-api", "/workspace/CARLA", false))
                .withResources(resources("agent", config.agentGpus()))
                .withSecurityContext(runningAs(config.users().agent()))
                .build();
    }

    private Container logcopy(LaunchRequest request, int pairs) {
        SubmissionIdentity submission = request.submission();
        TrackSpec track = request.trackSpec();
        return new ContainerBuilder()
                .withName(LOGCOPY)
                .withImage(track.podRuntimeImage())
                .withCommand(POD_RUNTIME, "logcopy")
                .withEnv(withRegion(List.of(
                        env(SUBMISSION_ID, submission.submissionId()),
                        env(TEAM_ID, Long.toString(submission.teamId())),
                        env(LEADERBOARD, submission.leaderboard()),
                        env(RUN, Integer.toString(request.run())),
                        env(WORKER_PAIRS, Integer.toString(pairs)),
                        env(S3_BUCKET, track.bucket()),
                        env(PROGRESS_QUEUE_URL, config.progressReportsQueueUrl()),
                        env(EXPECTED_ROUTES, Integer.toString(track.expectedRouteRecords())),
                        env(RESTART_LIMIT, Integer.toString(restartLimit(track))),
                        env(LOGS_PERIOD, PodEnvironment.seconds(config.logsPeriod())),
                        env(HEARTBEAT_PERIOD, PodEnvironment.seconds(config.heartbeatPeriod())),
                        env(LOGS_DIR, LOGS_PATH),
                        env(STATUS_DIR, STATUS_PATH)), ledgerOfLogcopy(track)))
                .withVolumeMounts(podRuntimeMount(), logsMount())
                .withResources(resources("logcopy", 0))
                .withSecurityContext(runningAs(config.users().podRuntime()))
                .build();
    }

    /**
     * The variables every pair role shares; WORKER_ID counts from 1. No NVIDIA_VISIBLE_DEVICES: the device plugin
     * sets it for a container that requests a GPU, and a value of ours would override its allocation.
     */
    private List<EnvVar> pairEnv(LaunchRequest request, int worker, int pairs, List<EnvVar> roleEnv) {
        var env = new ArrayList<EnvVar>();
        env.add(env(SUBMISSION_ID, request.submission().submissionId()));
        env.add(env(RUN, Integer.toString(request.run())));
        env.add(env(WORKER_PAIRS, Integer.toString(pairs)));
        env.add(env(WORKER_ID, Integer.toString(worker)));
        env.add(env(CARLA_PORT, Integer.toString(FIRST_CARLA_PORT + CARLA_PORT_STEP * (worker - 1))));
        env.add(env(LOGS_DIR, LOGS_PATH));
        env.add(env(STATUS_DIR, STATUS_PATH));
        env.addAll(roleEnv);
        return env;
    }

    private List<EnvVar> withRegion(List<EnvVar> env) {
        return withRegion(env, List.of());
    }

    /** {@code env}, then {@code more}, then the AWS region when configured. */
    private List<EnvVar> withRegion(List<EnvVar> env, List<EnvVar> more) {
        var all = new ArrayList<>(env);
        all.addAll(more);
        config.aws().region().ifPresent(region -> all.add(env(PodEnvironment.AWS_REGION, region)));
        return all;
    }

    /**
     * logcopy ends the pod once its pair containers' restarts reach the limit. A pair crash restarts two containers:
     * without a ledger, allowedResumes pair crashes restart and the next ends the run; with one, each route has that
     * budget of its own (the ledger gives up on a route past it), so the limit is every route's.
     */
    static int restartLimit(TrackSpec track) {
        int crashes = track.claimsRoutes() ? (track.allowedResumes() + 1) * track.expectedRouteRecords()
                : track.allowedResumes();
        return 2 * crashes + 1;
    }

    /**
     * init makes the run's ledger from the routes file in the Leaderboard volume as it mounts it (the agents' path,
     * under {@code LEADERBOARD_DIR}, moved to init's mount), with the run's shape.
     */
    private static List<EnvVar> ledgerOfInit(LaunchRequest request) {
        TrackSpec track = request.trackSpec();
        if (!track.claimsRoutes()) {
            return List.of();
        }
        return List.of(env(LEDGER_TABLE, track.ledgerTable()), env(SCHEDULE, track.schedule()),
                env(PODS, Integer.toString(track.pods())),
                env(LEADERBOARD, request.submission().leaderboard()),
                env(CHALLENGE_TRACK_CODENAME, track.track()),
                env(ROUTES, INIT_LEADERBOARD_VOLUME + track.routesFile().substring(PodEnvironment.LEADERBOARD_DIR
                        .length())),
                env(REPETITIONS, Integer.toString(track.repetitions())),
                env(EXPECTED_ROUTES, Integer.toString(track.expectedRouteRecords())));
    }

    /**
     * logcopy claims and files the pairs' routes: the ledger, the track's budget per route, the run's pods (each pod's
     * files under its own folder), the node it runs on, its pod's name.
     */
    private static List<EnvVar> ledgerOfLogcopy(TrackSpec track) {
        if (!track.claimsRoutes()) {
            return List.of();
        }
        return List.of(env(LEDGER_TABLE, track.ledgerTable()), env(CHALLENGE_TRACK_CODENAME, track.track()),
                env(ALLOWED_RESUMES, Integer.toString(track.allowedResumes())),
                env(PODS, Integer.toString(track.pods())),
                new EnvVarBuilder().withName(NODE_NAME).withNewValueFrom().withNewFieldRef()
                        .withFieldPath("spec.nodeName").endFieldRef().endValueFrom().build(),
                new EnvVarBuilder().withName(POD_NAME).withNewValueFrom().withNewFieldRef()
                        .withFieldPath("metadata.name").endFieldRef().endValueFrom().build());
    }

    /** A native sidecar: an init container the kubelet restarts after any exit and runs beside the regular ones. */
    private static Container sidecar(Container container) {
        return new ContainerBuilder(container).withRestartPolicy("Always").build();
    }

    private ResourceRequirements resources(String role, int gpus) {
        LauncherConfig.ContainerResources settings = config.resources().get(role);
        var builder = new ResourceRequirementsBuilder()
                .addToRequests("cpu", new Quantity(settings.cpuRequest()))
                .addToRequests("memory", new Quantity(settings.memoryRequest()))
                .addToLimits("cpu", new Quantity(settings.cpuLimit()))
                .addToLimits("memory", new Quantity(settings.memoryLimit()));
        if (gpus > 0) {
            builder.addToRequests(config.gpuResource(), new Quantity(Integer.toString(gpus)))
                    .addToLimits(config.gpuResource(), new Quantity(Integer.toString(gpus)));
        }
        return builder.build();
    }

    /** Pod Security "restricted" for every container, under an explicit non-root user whatever the image says. */
    private static SecurityContext runningAs(LauncherConfig.RunAs user) {
        return new SecurityContextBuilder()
                .withRunAsUser(user.uid())
                .withRunAsGroup(user.gid())
                .withRunAsNonRoot(true)
                .withAllowPrivilegeEscalation(false)
                .withPrivileged(false)
                .withNewCapabilities().withDrop("ALL").endCapabilities()
                .build();
    }

    private static VolumeMount podRuntimeMount() {
        return mount("pod-runtime", POD_RUNTIME_DIR, true);
    }

    private static VolumeMount logsMount() {
        return mount("logs", LOGS_PATH, false);
    }

    private static VolumeMount mount(String volume, String path, boolean readOnly) {
        return new VolumeMountBuilder().withName(volume).withMountPath(path).withReadOnly(readOnly ? true : null)
                .build();
    }

    private static EnvVar env(String name, String value) {
        return new EnvVarBuilder().withName(name).withValue(value).build();
    }
}
