package org.carla.leaderboard.launcher.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.carla.leaderboard.domain.event.LaunchRequest;
import org.carla.leaderboard.domain.track.LeaderboardVersion;
import org.carla.leaderboard.domain.track.TrackSpec;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.utils.Serialization;

class SubmissionJobTests {

    private final SubmissionJob jobs = new SubmissionJob(SeedsConfiguration.launcherConfig());

    @Test
    void theSeedsJobIsTheGoldenYaml() throws IOException {
        Job actual = jobs.build(SeedsConfiguration.request());

        Job expected;
        try (InputStream in = getClass().getResourceAsStream("/golden/seeds-job.yaml")) {
            expected = Serialization.unmarshal(new String(in.readAllBytes(), StandardCharsets.UTF_8), Job.class);
        }
        JsonNode actualTree = Serialization.jsonMapper().valueToTree(actual);
        JsonNode expectedTree = Serialization.jsonMapper().valueToTree(expected);
        assertThat(actualTree).as("the Job differs from golden/seeds-job.yaml; the Job built is:%n%s",
                Serialization.asYaml(actual)).isEqualTo(expectedTree);
    }

    @Test
    void noParticipantContainerHoldsCredentialsOrPrivileges() {
        Job job = jobs.build(SeedsConfiguration.request());
        var pod = job.getSpec().getTemplate().getSpec();
        List<Container> all = Stream.concat(pod.getInitContainers().stream(), pod.getContainers().stream()).toList();

        assertThat(pod.getAutomountServiceAccountToken()).isFalse();
        for (Container container : all) {
            assertThat(container.getResources().getRequests()).as(container.getName()).containsKeys("cpu", "memory");
            assertThat(container.getResources().getLimits()).as(container.getName()).containsKeys("cpu", "memory");
            assertThat(container.getEnv() == null ? List.<EnvVar>of() : container.getEnv()).as(container.getName())
                    .noneMatch(env -> env.getName().startsWith("AWS_ACCESS") || env.getName().startsWith("AWS_SECRET")
                            || env.getName().toUpperCase().contains("EVALAI") || env.getName().contains("TOKEN")
                            || env.getValueFrom() != null);
        }
        List<String> agents = all.stream().map(Container::getName).filter(name -> name.startsWith("agent-")).toList();
        assertThat(agents).hasSize(4);
        String skipped = job.getSpec().getTemplate().getMetadata().getAnnotations()
                .get(JobMetadata.SKIP_AWS_CONTAINERS);
        assertThat(List.of(skipped.split(","))).containsAll(agents).contains("install-pod-runtime")
                .doesNotContain("logcopy", "private-contents");
    }

    /**
     * What Pod Security "restricted" asks of the pod (the deploy module's checker runs the full profile on the golden
     * YAML): nothing privileged, no host path, every container a given non-root user; and the users are distinct, so
     * the participant's code cannot act as CARLA or as logcopy.
     */
    @Test
    void everyContainerRunsUnprivilegedAsItsOwnNonRootUser() {
        Job job = jobs.build(SeedsConfiguration.request());
        var pod = job.getSpec().getTemplate().getSpec();
        List<Container> all = Stream.concat(pod.getInitContainers().stream(), pod.getContainers().stream()).toList();

        assertThat(pod.getVolumes()).allSatisfy(volume -> assertThat(volume.getEmptyDir()).as(volume.getName())
                .isNotNull());
        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(pod.getSecurityContext().getFsGroup()).isPositive();
        assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        assertThat(pod.getHostNetwork()).isNotEqualTo(Boolean.TRUE);
        assertThat(pod.getHostPID()).isNotEqualTo(Boolean.TRUE);
        assertThat(pod.getHostIPC()).isNotEqualTo(Boolean.TRUE);
        for (Container container : all) {
            var security = container.getSecurityContext();
            assertThat(security.getPrivileged()).as(container.getName()).isFalse();
            assertThat(security.getAllowPrivilegeEscalation()).as(container.getName()).isFalse();
            assertThat(security.getCapabilities().getDrop()).as(container.getName()).containsExactly("ALL");
            assertThat(security.getCapabilities().getAdd()).as(container.getName()).isNullOrEmpty();
            assertThat(security.getRunAsNonRoot()).as(container.getName()).isTrue();
            assertThat(security.getRunAsUser()).as(container.getName()).isPositive();
            assertThat(security.getRunAsGroup()).as(container.getName()).isPositive();
            assertThat(container.getPorts()).as(container.getName()).noneMatch(port -> port.getHostPort() != null);
        }
        assertThat(user(all, "simulator-1")).isNotEqualTo(user(all, "agent-1")).isNotEqualTo(user(all, "logcopy"));
        assertThat(user(all, "agent-1")).isNotEqualTo(user(all, "logcopy"));
        assertThat(all).filteredOn(c -> c.getName().startsWith("simulator-")).extracting(c -> user(all, c.getName()))
                .containsOnly(user(all, "simulator-1"));
    }

    @Test
    void gpusReachEverySimulatorAndAgentThroughTheDevicePluginOnly() {
        Job job = jobs.build(SeedsConfiguration.request());
        var pod = job.getSpec().getTemplate().getSpec();

        for (Container container : PodContainers.specs(pod)) {
            String expected = container.getName().equals("logcopy") ? null : "1";
            var requested = container.getResources().getRequests().get("nvidia.com/gpu");
            assertThat(requested == null ? null : requested.toString()).as(container.getName()).isEqualTo(expected);
            // a value of ours would override the device plugin's allocation
            assertThat(container.getEnv()).as(container.getName())
                    .noneMatch(env -> env.getName().equals("NVIDIA_VISIBLE_DEVICES"));
        }
        var withoutAgentGpus = new SubmissionJob(SeedsConfiguration.launcherConfig(Map.of("launcher.agent-gpus", "0")))
                .build(SeedsConfiguration.request()).getSpec().getTemplate().getSpec();
        assertThat(PodContainers.specs(withoutAgentGpus)).filteredOn(c -> c.getName().startsWith("agent-"))
                .allSatisfy(agent -> assertThat(agent.getResources().getRequests()).doesNotContainKey("nvidia.com/gpu"));
    }

    /**
     * The pairs are sidecars and logcopy the pod's one regular container, so the pod can be {@code Never} and the Job
     * can have a podFailurePolicy: logcopy's restart-limit code fails the run at once, a disrupted pod is not counted.
     */
    @Test
    void thePairsAreSidecarsSoTheJobFailsOnLogcopysRestartLimitAndIgnoresADisruptedPod() {
        Job job = jobs.build(SeedsConfiguration.request());
        var pod = job.getSpec().getTemplate().getSpec();

        assertThat(pod.getRestartPolicy()).isEqualTo("Never");
        assertThat(pod.getContainers()).extracting(Container::getName).containsExactly("logcopy");
        assertThat(pod.getInitContainers()).extracting(Container::getName, Container::getRestartPolicy).containsExactly(
                org.assertj.core.groups.Tuple.tuple("install-pod-runtime", null),
                org.assertj.core.groups.Tuple.tuple("carla-version", null),
                org.assertj.core.groups.Tuple.tuple("private-contents", null),
                org.assertj.core.groups.Tuple.tuple("simulator-1", "Always"),
                org.assertj.core.groups.Tuple.tuple("agent-1", "Always"),
                org.assertj.core.groups.Tuple.tuple("simulator-2", "Always"),
                org.assertj.core.groups.Tuple.tuple("agent-2", "Always"),
                org.assertj.core.groups.Tuple.tuple("simulator-3", "Always"),
                org.assertj.core.groups.Tuple.tuple("agent-3", "Always"),
                org.assertj.core.groups.Tuple.tuple("simulator-4", "Always"),
                org.assertj.core.groups.Tuple.tuple("agent-4", "Always"));
        var rules = job.getSpec().getPodFailurePolicy().getRules();
        assertThat(rules).hasSize(2);
        assertThat(rules.get(0).getAction()).isEqualTo("FailJob");
        assertThat(rules.get(0).getOnExitCodes().getContainerName()).as("a sidecar's exit code must not match")
                .isEqualTo("logcopy");
        assertThat(rules.get(0).getOnExitCodes().getValues())
                .containsExactly(org.carla.leaderboard.domain.pod.PodEnvironment.RESTART_LIMIT_EXIT_CODE);
        assertThat(rules.get(1).getAction()).isEqualTo("Ignore");
        assertThat(rules.get(1).getOnPodConditions()).singleElement().satisfies(condition -> {
            assertThat(condition.getType()).isEqualTo("DisruptionTarget");
            assertThat(condition.getStatus()).isEqualTo("True");
        });
        assertThat(env(pod.getContainers().get(0), "RESTART_LIMIT")).as("2 × 4 resumes + 1").isEqualTo("9");
        assertThat(job.getSpec().getBackoffLimit()).isEqualTo(4);
    }

    @Test
    void aRootUserInTheConfigurationFailsTheStart() {
        assertThatThrownBy(() -> new SubmissionJob(SeedsConfiguration.launcherConfig(
                Map.of("launcher.users.agent.uid", "0")))).hasMessageContaining("launcher.users.agent");
    }

    @Test
    void aTrackWithFewerRoutesThanPairsGetsOnePairPerRoute() {
        var spec = SeedsConfiguration.sensorsTrack();
        var track = new TrackSpec(spec.leaderboard(), spec.track(), spec.bucket(), spec.leaderboardVersion(),
                spec.routesFile(), null, 3, 2, 4, spec.instanceType(), spec.simulatorImage(), spec.leaderboardImage(),
                spec.podRuntimeImage(), spec.renderer(), 600, 1, false, null, Map.of(), null, null, 1);
        LaunchRequest request = LaunchRequest.of(SeedsConfiguration.submission("t"), 2, "agent:1", true, track,
                SeedsConfiguration.request().requestedAt());

        Job job = jobs.build(request);

        var containers = PodContainers.specs(job.getSpec().getTemplate().getSpec());
        assertThat(containers).extracting(Container::getName)
                .containsExactly("simulator-1", "agent-1", "simulator-2", "agent-2", "simulator-3", "agent-3", "logcopy");
        assertThat(env(containers.get(5), "WORKER_ID")).isEqualTo("3");
        assertThat(env(containers.get(5), "WORKER_PAIRS")).isEqualTo("3");
        assertThat(env(containers.get(5), "EXPECTED_ROUTES")).isEqualTo("6");
        assertThat(env(containers.get(5), "RESUME")).isEqualTo("true");
        assertThat(env(containers.get(6), "EXPECTED_ROUTES")).isEqualTo("6");
        assertThat(env(containers.get(6), "WORKER_PAIRS")).isEqualTo("3");
        assertThat(env(containers.get(6), "RESTART_LIMIT")).as("the pairs' restarts that end the run: a crash"
                + " restarts both containers of a pair, and the track allows one resume").isEqualTo("3");
        assertThat(job.getSpec().getBackoffLimit()).as("failed pods replaced: the track's resumes").isEqualTo(1);
        assertThat(job.getSpec().getActiveDeadlineSeconds()).isEqualTo(600 + 12 * 3600);
    }

    @Test
    void aLeaderboardOneAgentIsToldItsVersionAndScenariosFileAndNoAgentItsRoutesByIndex() {
        var spec = SeedsConfiguration.sensorsTrack();
        var track = new TrackSpec("leaderboard-10", "MAP", "carla-leaderboard-10", LeaderboardVersion.V1_0,
                "/workspace/leaderboard/data/routes_testing.xml", "/workspace/leaderboard/data/scenarios.json", 20, 1,
                4, spec.instanceType(), "carla:0.9.10.1", "leaderboard-10:latest", spec.podRuntimeImage(), "opengl",
                600, 1, false, null, Map.of(), null, null, 1);
        var containers = jobs.build(LaunchRequest.of(SeedsConfiguration.submission("t"), 1, "agent:1", false, track,
                SeedsConfiguration.request().requestedAt())).getSpec().getTemplate().getSpec().getInitContainers();

        assertThat(containers).filteredOn(c -> c.getName().startsWith("agent-")).hasSize(4).allSatisfy(agent -> {
            assertThat(env(agent, "LEADERBOARD_VERSION")).isEqualTo("1.0");
            assertThat(env(agent, "SCENARIOS")).isEqualTo("/workspace/leaderboard/data/scenarios.json");
            assertThat(agent.getEnv()).noneMatch(variable -> variable.getName().equals("ROUTES_SUBSET"));
        });
        var seeds = PodContainers.specs(jobs.build(SeedsConfiguration.request()).getSpec().getTemplate().getSpec());
        assertThat(env(seeds.get(1), "LEADERBOARD_VERSION")).isEqualTo("2.0");
        assertThat(seeds.get(1).getEnv()).noneMatch(variable -> variable.getName().equals("SCENARIOS"));
    }

    @Test
    void aTrackWithAScheduleClaimsItsRoutesFromTheLedgerAndGivesEveryRouteItsOwnRetryBudget() {
        var spec = SeedsConfiguration.sensorsTrack();
        var track = new TrackSpec(spec.leaderboard(), spec.track(), spec.bucket(), spec.leaderboardVersion(),
                spec.routesFile(), null, 20, 1, 4, spec.instanceType(), spec.simulatorImage(), spec.leaderboardImage(),
                spec.podRuntimeImage(), spec.renderer(), 600, 1, false, null, Map.of(), "dynamic", "route-ledger", 1);

        Job job = jobs.build(LaunchRequest.of(SeedsConfiguration.submission("t"), 1, "agent:1", false, track,
                SeedsConfiguration.request().requestedAt()));

        var pod = job.getSpec().getTemplate().getSpec();
        Container init = pod.getInitContainers().stream().filter(c -> c.getName().equals("private-contents"))
                .findFirst().orElseThrow();
        assertThat(env(init, "LEDGER_TABLE")).isEqualTo("route-ledger");
        assertThat(env(init, "SCHEDULE")).isEqualTo("dynamic");
        assertThat(env(init, "PODS")).isEqualTo("1");
        assertThat(env(init, "ROUTES")).as("the routes file where init mounts the Leaderboard volume")
                .isEqualTo("/tmp/leaderboard/data/routes_testing.xml");
        assertThat(init.getVolumeMounts()).anySatisfy(mount -> assertThat(mount.getMountPath())
                .isEqualTo("/tmp/leaderboard"));
        assertThat(pod.getInitContainers()).filteredOn(c -> c.getName().startsWith("agent-")).hasSize(4)
                .allSatisfy(agent -> assertThat(env(agent, "LEDGER_TABLE")).isEqualTo("route-ledger"));
        Container logcopy = pod.getContainers().get(pod.getContainers().size() - 1);
        assertThat(env(logcopy, "ALLOWED_RESUMES")).isEqualTo("1");
        assertThat(logcopy.getEnv()).anySatisfy(variable -> {
            assertThat(variable.getName()).isEqualTo("NODE_NAME");
            assertThat(variable.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("spec.nodeName");
        });
        assertThat(logcopy.getEnv()).as("the claimer's pod by its name: an Indexed Job's replacement pod has its"
                + " predecessor's host name").anySatisfy(variable -> {
                    assertThat(variable.getName()).isEqualTo("POD_NAME");
                    assertThat(variable.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("metadata.name");
                });
        assertThat(env(logcopy, "RESTART_LIMIT")).as("two restarts per failed attempt, two attempts per route")
                .isEqualTo(Integer.toString(2 * 2 * 20 + 1));
        assertThat(PodContainers.specs(jobs.build(SeedsConfiguration.request()).getSpec().getTemplate().getSpec()))
                .as("the seeds' track has no ledger").allSatisfy(container -> assertThat(container.getEnv())
                        .noneMatch(variable -> variable.getName().equals("LEDGER_TABLE")));
    }

    @Test
    void aTrackOfSeveralPodsIsAnIndexedJobOfAPodPerNodeAllAtOnce() {
        var spec = SeedsConfiguration.sensorsTrack();
        var track = new TrackSpec(spec.leaderboard(), spec.track(), spec.bucket(), spec.leaderboardVersion(),
                spec.routesFile(), null, 20, 1, 1, "g5.xlarge", spec.simulatorImage(), spec.leaderboardImage(),
                spec.podRuntimeImage(), spec.renderer(), 600, 1, false, null, Map.of(), "dynamic", "route-ledger", 4);

        Job job = jobs.build(LaunchRequest.of(SeedsConfiguration.submission("t"), 1, "agent:1", false, track,
                SeedsConfiguration.request().requestedAt()));

        assertThat(job.getSpec().getCompletionMode()).isEqualTo("Indexed");
        assertThat(job.getSpec().getCompletions()).isEqualTo(4);
        assertThat(job.getSpec().getParallelism()).isEqualTo(4);
        var pod = job.getSpec().getTemplate().getSpec();
        assertThat(PodContainers.specs(pod)).extracting(Container::getName).containsExactly("simulator-1", "agent-1",
                "logcopy");
        Container init = pod.getInitContainers().stream().filter(c -> c.getName().equals("private-contents"))
                .findFirst().orElseThrow();
        assertThat(env(init, "PODS")).as("init makes the run item of 4 pods").isEqualTo("4");
        assertThat(env(pod.getContainers().get(0), "PODS")).as("logcopy mirrors under its pod's folder")
                .isEqualTo("4");
        var single = jobs.build(SeedsConfiguration.request()).getSpec();
        assertThat(List.of(String.valueOf(single.getCompletionMode()), String.valueOf(single.getCompletions())))
                .as("the seeds' layout: one pod, not Indexed").containsExactly("null", "null");
    }

    @Test
    void aKueueTrackIsCreatedSuspendedInItsQueue() {
        var kueue = new SubmissionJob(SeedsConfiguration.launcherConfig(
                Map.of("launcher.kueue-queues.leaderboard-20.SENSORS", "gpu-g5")));

        Job job = kueue.build(SeedsConfiguration.request());

        assertThat(job.getSpec().getSuspend()).isTrue();
        assertThat(job.getMetadata().getLabels()).containsEntry(JobMetadata.KUEUE_QUEUE, "gpu-g5");
        assertThat(jobs.build(SeedsConfiguration.request()).getSpec().getSuspend()).isNull();
    }

    private static String user(List<Container> containers, String name) {
        var security = containers.stream().filter(c -> c.getName().equals(name)).findFirst().orElseThrow()
                .getSecurityContext();
        return security.getRunAsUser() + ":" + security.getRunAsGroup();
    }

    private static String env(Container container, String name) {
        return container.getEnv().stream().filter(e -> e.getName().equals(name)).findFirst().orElseThrow().getValue();
    }
}
