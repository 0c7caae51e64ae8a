package org.carla.leaderboard.deploy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;

import io.fabric8.kubernetes.api.model.Capabilities;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EphemeralContainer;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SELinuxOptions;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;

/**
 * The Pod Security Standards (kubernetes.io/docs/concepts/security/pod-security-standards, the policies of Kubernetes
 * 1.31) as code: the rules the admission controller applies to a pod for the level its namespace enforces. Each
 * violation is one line naming the rule and where it is broken, e.g. "privileged containers: simulator-1".
 */
final class PodSecurityStandards {

    /** The levels of the label pod-security.kubernetes.io/enforce. */
    enum Level {
        PRIVILEGED, BASELINE, RESTRICTED;

        static Level of(String label) {
            return valueOf(label.toUpperCase(java.util.Locale.ROOT));
        }
    }

    private static final Set<String> BASELINE_CAPABILITIES = Set.of("AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER",
            "FSETID", "KILL", "MKNOD", "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT");
    private static final Set<String> SAFE_SYSCTLS = Set.of("kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range",
            "net.ipv4.ip_unprivileged_port_start", "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range",
            "net.ipv4.ip_local_reserved_ports", "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout",
            "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes");
    private static final Set<String> SELINUX_TYPES = Set.of("", "container_t", "container_init_t", "container_kvm_t",
            "container_engine_t");
    private static final String APPARMOR_ANNOTATION = "container.apparmor.security.beta.kubernetes.io/";

    /** One container of any kind, with what the rules read of it. */
    private record Box(String name, SecurityContext context, List<ContainerPort> ports) {
    }

    private PodSecurityStandards() {
    }

    /** Every rule of the level (and of the levels below it) that the pod breaks; empty when the level admits it. */
    static List<String> violations(ObjectMeta podMetadata, PodSpec pod, Level level) {
        List<String> violations = new ArrayList<>();
        if (level == Level.PRIVILEGED) {
            return violations;
        }
        PodSecurityContext podContext = pod.getSecurityContext() == null ? new PodSecurityContext() : pod.getSecurityContext();
        List<Box> boxes = boxes(pod);
        baseline(podMetadata, pod, podContext, boxes, violations);
        if (level == Level.RESTRICTED) {
            restricted(pod, podContext, boxes, violations);
        }
        return violations;
    }

    private static void baseline(ObjectMeta podMetadata, PodSpec pod, PodSecurityContext podContext, List<Box> boxes,
            List<String> violations) {
        if (podContext.getWindowsOptions() != null && isTrue(podContext.getWindowsOptions().getHostProcess())) {
            violations.add("HostProcess: pod");
        }
        boxes.stream().filter(box -> box.context().getWindowsOptions() != null
                && isTrue(box.context().getWindowsOptions().getHostProcess()))
                .forEach(box -> violations.add("HostProcess: " + box.name()));
        for (var namespace : Map.of("hostNetwork", pod.getHostNetwork() != null && pod.getHostNetwork(),
                "hostPID", pod.getHostPID() != null && pod.getHostPID(),
                "hostIPC", pod.getHostIPC() != null && pod.getHostIPC()).entrySet()) {
            if (namespace.getValue()) {
                violations.add("host namespaces: " + namespace.getKey());
            }
        }
        boxes.stream().filter(box -> isTrue(box.context().getPrivileged()))
                .forEach(box -> violations.add("privileged containers: " + box.name()));
        for (Box box : boxes) {
            added(box).stream().filter(capability -> !BASELINE_CAPABILITIES.contains(capability))
                    .forEach(capability -> violations.add("capabilities: " + box.name() + " adds " + capability));
        }
        volumes(pod).stream().filter(volume -> volume.getHostPath() != null)
                .forEach(volume -> violations.add("HostPath volumes: " + volume.getName()));
        for (Box box : boxes) {
            box.ports().stream().filter(port -> port.getHostPort() != null && port.getHostPort() != 0)
                    .forEach(port -> violations.add("host ports: " + box.name() + " " + port.getHostPort()));
        }
        appArmor(podMetadata, podContext, boxes, violations);
        seLinux("pod", podContext.getSeLinuxOptions(), violations);
        boxes.forEach(box -> seLinux(box.name(), box.context().getSeLinuxOptions(), violations));
        boxes.stream().filter(box -> box.context().getProcMount() != null && !"Default".equals(box.context().getProcMount()))
                .forEach(box -> violations.add("/proc mount type: " + box.name()));
        if (podContext.getSeccompProfile() != null && "Unconfined".equals(podContext.getSeccompProfile().getType())) {
            violations.add("seccomp: pod Unconfined");
        }
        boxes.stream().filter(box -> box.context().getSeccompProfile() != null
                && "Unconfined".equals(box.context().getSeccompProfile().getType()))
                .forEach(box -> violations.add("seccomp: " + box.name() + " Unconfined"));
        list(podContext.getSysctls()).stream().filter(sysctl -> !SAFE_SYSCTLS.contains(sysctl.getName()))
                .forEach(sysctl -> violations.add("sysctls: " + sysctl.getName()));
    }

    private static void restricted(PodSpec pod, PodSecurityContext podContext, List<Box> boxes, List<String> violations) {
        for (Volume volume : volumes(pod)) {
            boolean allowed = volume.getConfigMap() != null || volume.getCsi() != null || volume.getDownwardAPI() != null
                    || volume.getEmptyDir() != null || volume.getEphemeral() != null
                    || volume.getPersistentVolumeClaim() != null || volume.getProjected() != null || volume.getSecret() != null;
            if (!allowed) {
                violations.add("volume types: " + volume.getName());
            }
        }
        boxes.stream().filter(box -> !Boolean.FALSE.equals(box.context().getAllowPrivilegeEscalation()))
                .forEach(box -> violations.add("privilege escalation: " + box.name() + " does not set allowPrivilegeEscalation false"));
        for (Box box : boxes) {
            Boolean nonRoot = box.context().getRunAsNonRoot() != null ? box.context().getRunAsNonRoot() : podContext.getRunAsNonRoot();
            if (!isTrue(nonRoot)) {
                violations.add("running as non-root: " + box.name() + " (runAsNonRoot is not true)");
            }
        }
        if (Objects.equals(podContext.getRunAsUser(), 0L)) {
            violations.add("running as non-root user: pod runAsUser 0");
        }
        boxes.stream().filter(box -> Objects.equals(box.context().getRunAsUser(), 0L))
                .forEach(box -> violations.add("running as non-root user: " + box.name() + " runAsUser 0"));
        for (Box box : boxes) {
            var profile = box.context().getSeccompProfile() != null ? box.context().getSeccompProfile() : podContext.getSeccompProfile();
            if (profile == null || !Set.of("RuntimeDefault", "Localhost").contains(profile.getType())) {
                violations.add("seccomp: " + box.name() + " has no RuntimeDefault or Localhost profile");
            }
        }
        for (Box box : boxes) {
            Capabilities capabilities = box.context().getCapabilities();
            if (capabilities == null || !list(capabilities.getDrop()).contains("ALL")) {
                violations.add("capabilities: " + box.name() + " does not drop ALL");
            }
            added(box).stream().filter(capability -> !capability.equals("NET_BIND_SERVICE"))
                    .forEach(capability -> violations.add("capabilities: " + box.name() + " adds " + capability + " (restricted)"));
        }
    }

    private static void appArmor(ObjectMeta podMetadata, PodSecurityContext podContext, List<Box> boxes, List<String> violations) {
        Function<String, Boolean> allowedType = type -> type == null || Set.of("RuntimeDefault", "Localhost").contains(type);
        if (podContext.getAppArmorProfile() != null && !allowedType.apply(podContext.getAppArmorProfile().getType())) {
            violations.add("AppArmor: pod " + podContext.getAppArmorProfile().getType());
        }
        boxes.stream().filter(box -> box.context().getAppArmorProfile() != null
                && !allowedType.apply(box.context().getAppArmorProfile().getType()))
                .forEach(box -> violations.add("AppArmor: " + box.name() + " " + box.context().getAppArmorProfile().getType()));
        Map<String, String> annotations = podMetadata == null || podMetadata.getAnnotations() == null ? Map.of()
                : podMetadata.getAnnotations();
        annotations.forEach((key, value) -> {
            if (key.startsWith(APPARMOR_ANNOTATION) && !value.equals("runtime/default") && !value.startsWith("localhost/")) {
                violations.add("AppArmor: " + key.substring(APPARMOR_ANNOTATION.length()) + " " + value);
            }
        });
    }

    private static void seLinux(String where, SELinuxOptions options, List<String> violations) {
        if (options == null) {
            return;
        }
        if (options.getType() != null && !SELINUX_TYPES.contains(options.getType())) {
            violations.add("SELinux: " + where + " type " + options.getType());
        }
        if (options.getUser() != null && !options.getUser().isEmpty() || options.getRole() != null && !options.getRole().isEmpty()) {
            violations.add("SELinux: " + where + " sets a user or role");
        }
    }

    private static List<Box> boxes(PodSpec pod) {
        Stream<Box> containers = Stream.concat(list(pod.getInitContainers()).stream(), list(pod.getContainers()).stream())
                .map(PodSecurityStandards::box);
        Stream<Box> ephemeral = list(pod.getEphemeralContainers()).stream().map(PodSecurityStandards::box);
        return Stream.concat(containers, ephemeral).toList();
    }

    private static Box box(Container container) {
        return new Box(container.getName(), context(container.getSecurityContext()), list(container.getPorts()));
    }

    private static Box box(EphemeralContainer container) {
        return new Box(container.getName(), context(container.getSecurityContext()), list(container.getPorts()));
    }

    private static SecurityContext context(SecurityContext context) {
        return context == null ? new SecurityContext() : context;
    }

    private static List<String> added(Box box) {
        return box.context().getCapabilities() == null ? List.of() : list(box.context().getCapabilities().getAdd());
    }

    private static List<Volume> volumes(PodSpec pod) {
        return list(pod.getVolumes());
    }

    private static boolean isTrue(Boolean value) {
        return Boolean.TRUE.equals(value);
    }

    private static <T> List<T> list(List<T> items) {
        return items == null ? List.of() : items;
    }
}
