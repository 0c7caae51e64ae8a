package org.carla.leaderboard.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;

import org.carla.leaderboard.deploy.PodSecurityStandards.Level;

/**
 * The Pod Security Standards checker finds each rule's violation at the level that has the rule, and admits a pod
 * written to the restricted level.
 */
class PodSecurityStandardsTests {

    /** Two containers and an init container that meet every restricted rule. */
    private static final String RESTRICTED_POD = """
            apiVersion: v1
            kind: Pod
            metadata:
              name: compliant
            spec:
              securityContext:
                runAsNonRoot: true
                runAsUser: 1000
                seccompProfile: {type: RuntimeDefault}
              volumes:
                - {name: logs, emptyDir: {}}
                - {name: config, configMap: {name: c}}
              initContainers:
                - name: init
                  image: i
                  securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
              containers:
                - name: simulator-1
                  image: s
                  resources: {limits: {nvidia.com/gpu: "1"}}
                  securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
                - name: agent-1
                  image: a
                  ports: [{containerPort: 8080}]
                  securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL], add: [NET_BIND_SERVICE]}}
            """;

    @Test
    void aPodWrittenToTheRestrictedLevelPassesEveryLevel() {
        Pod pod = pod(change -> { });

        for (Level level : Level.values()) {
            assertThat(PodSecurityStandards.violations(pod.getMetadata(), pod.getSpec(), level)).as(level.name()).isEmpty();
        }
    }

    static Stream<Arguments> baselineViolations() {
        return Stream.of(
                Arguments.of("privileged containers: simulator-1", change(p -> container(p, 1).getSecurityContext().setPrivileged(true))),
                Arguments.of("HostPath volumes: x11", change(p -> p.getSpec().getVolumes().add(Serialization.unmarshal(
                        "{\"name\": \"x11\", \"hostPath\": {\"path\": \"/tmp/.X11-unix\"}}", io.fabric8.kubernetes.api.model.Volume.class)))),
                Arguments.of("host namespaces: hostNetwork", change(p -> p.getSpec().setHostNetwork(true))),
                Arguments.of("host namespaces: hostPID", change(p -> p.getSpec().setHostPID(true))),
                Arguments.of("host namespaces: hostIPC", change(p -> p.getSpec().setHostIPC(true))),
                Arguments.of("capabilities: agent-1 adds SYS_ADMIN",
                        change(p -> container(p, 2).getSecurityContext().getCapabilities().setAdd(List.of("SYS_ADMIN")))),
                Arguments.of("host ports: agent-1 2000", change(p -> container(p, 2).getPorts().get(0).setHostPort(2000))),
                Arguments.of("seccomp: init Unconfined", change(p -> container(p, 0).getSecurityContext().setSeccompProfile(
                        Serialization.unmarshal("{\"type\": \"Unconfined\"}", io.fabric8.kubernetes.api.model.SeccompProfile.class)))),
                Arguments.of("AppArmor: agent-1 unconfined", change(p -> p.getMetadata().setAnnotations(
                        Map.of("container.apparmor.security.beta.kubernetes.io/agent-1", "unconfined")))),
                Arguments.of("SELinux: simulator-1 type spc_t", change(p -> container(p, 1).getSecurityContext().setSeLinuxOptions(
                        Serialization.unmarshal("{\"type\": \"spc_t\"}", io.fabric8.kubernetes.api.model.SELinuxOptions.class)))),
                Arguments.of("/proc mount type: agent-1", change(p -> container(p, 2).getSecurityContext().setProcMount("Unmasked"))),
                Arguments.of("sysctls: kernel.msgmax", change(p -> p.getSpec().getSecurityContext().setSysctls(List.of(
                        Serialization.unmarshal("{\"name\": \"kernel.msgmax\", \"value\": \"1\"}", io.fabric8.kubernetes.api.model.Sysctl.class))))),
                Arguments.of("HostProcess: agent-1", change(p -> container(p, 2).getSecurityContext().setWindowsOptions(
                        Serialization.unmarshal("{\"hostProcess\": true}", io.fabric8.kubernetes.api.model.WindowsSecurityContextOptions.class)))));
    }

    @ParameterizedTest(name = "baseline refuses {0}")
    @MethodSource("baselineViolations")
    void baselineAndRestrictedRefuseWhatBaselineForbids(String violation, Consumer<Pod> change) {
        Pod pod = pod(change);

        assertThat(PodSecurityStandards.violations(pod.getMetadata(), pod.getSpec(), Level.BASELINE)).containsExactly(violation);
        assertThat(PodSecurityStandards.violations(pod.getMetadata(), pod.getSpec(), Level.RESTRICTED)).contains(violation);
        assertThat(PodSecurityStandards.violations(pod.getMetadata(), pod.getSpec(), Level.PRIVILEGED)).isEmpty();
    }

    static Stream<Arguments> restrictedViolations() {
        return Stream.of(
                Arguments.of("privilege escalation: simulator-1 does not set allowPrivilegeEscalation false",
                        change(p -> container(p, 1).getSecurityContext().setAllowPrivilegeEscalation(null))),
                Arguments.of("running as non-root: agent-1 (runAsNonRoot is not true)",
                        change(p -> container(p, 2).getSecurityContext().setRunAsNonRoot(false))),
                Arguments.of("running as non-root user: init runAsUser 0",
                        change(p -> container(p, 0).getSecurityContext().setRunAsUser(0L))),
                Arguments.of("seccomp: simulator-1 has no RuntimeDefault or Localhost profile",
                        change(p -> { p.getSpec().getSecurityContext().setSeccompProfile(null);
                            container(p, 0).getSecurityContext().setSeccompProfile(Serialization.unmarshal(
                                    "{\"type\": \"RuntimeDefault\"}", io.fabric8.kubernetes.api.model.SeccompProfile.class));
                            container(p, 2).getSecurityContext().setSeccompProfile(Serialization.unmarshal(
                                    "{\"type\": \"Localhost\", \"localhostProfile\": \"p.json\"}", io.fabric8.kubernetes.api.model.SeccompProfile.class)); })),
                Arguments.of("capabilities: simulator-1 does not drop ALL",
                        change(p -> container(p, 1).getSecurityContext().getCapabilities().setDrop(List.of("NET_RAW")))),
                Arguments.of("capabilities: agent-1 adds CHOWN (restricted)",
                        change(p -> container(p, 2).getSecurityContext().getCapabilities().setAdd(List.of("CHOWN")))),
                Arguments.of("volume types: leaderboard", change(p -> p.getSpec().getVolumes().add(Serialization.unmarshal(
                        "{\"name\": \"leaderboard\", \"nfs\": {\"server\": \"x\", \"path\": \"/\"}}", io.fabric8.kubernetes.api.model.Volume.class)))));
    }

    @ParameterizedTest(name = "only restricted refuses {0}")
    @MethodSource("restrictedViolations")
    void onlyRestrictedRefusesWhatOnlyRestrictedForbids(String violation, Consumer<Pod> change) {
        Pod pod = pod(change);

        assertThat(PodSecurityStandards.violations(pod.getMetadata(), pod.getSpec(), Level.RESTRICTED)).containsExactly(violation);
        assertThat(PodSecurityStandards.violations(pod.getMetadata(), pod.getSpec(), Level.BASELINE)).isEmpty();
    }

    @Test
    void aContainerMayRunAsNonRootOnItsOwnWhenThePodDoesNotSaySo() {
        Pod pod = pod(p -> {
            p.getSpec().getSecurityContext().setRunAsNonRoot(null);
            p.getSpec().getInitContainers().forEach(c -> c.getSecurityContext().setRunAsNonRoot(true));
            p.getSpec().getContainers().forEach(c -> c.getSecurityContext().setRunAsNonRoot(true));
        });

        assertThat(PodSecurityStandards.violations(pod.getMetadata(), pod.getSpec(), Level.RESTRICTED)).isEmpty();
    }

    @Test
    void theLevelsAreReadFromTheirLabelValues() {
        assertThat(Level.of("baseline")).isEqualTo(Level.BASELINE);
        assertThat(Level.of("restricted")).isEqualTo(Level.RESTRICTED);
        assertThat(Level.of("privileged")).isEqualTo(Level.PRIVILEGED);
    }

    private static Pod pod(Consumer<Pod> change) {
        Pod pod = Serialization.unmarshal(RESTRICTED_POD, Pod.class);
        if (pod.getMetadata() == null) {
            pod.setMetadata(new ObjectMeta());
        }
        change.accept(pod);
        return pod;
    }

    /** 0: the init container, 1: simulator-1, 2: agent-1. */
    private static io.fabric8.kubernetes.api.model.Container container(Pod pod, int index) {
        return index == 0 ? pod.getSpec().getInitContainers().get(0) : pod.getSpec().getContainers().get(index - 1);
    }

    private static Consumer<Pod> change(Consumer<Pod> change) {
        return change;
    }
}
