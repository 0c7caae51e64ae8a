package org.carla.leaderboard.localstack.kubernetes;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SecurityContext;

/**
 * Who a container's processes run as, as the kubelet and the container runtime decide it: {@code runAsUser},
 * {@code runAsGroup} and {@code runAsNonRoot} of the container over the pod's; without {@code runAsUser} the image's
 * user (its profile's {@code user}, else root); without {@code runAsGroup} the image user's group when that is the
 * user, else 0; the pod's {@code fsGroup} and {@code supplementalGroups} as supplementary groups;
 * {@code allowPrivilegeEscalation: false} as no_new_privs. A container that would run as root with
 * {@code runAsNonRoot} is refused with the kubelet's message (CreateContainerConfigError).
 */
record ContainerUser(long uid, long gid, List<Long> groups, boolean noNewPrivileges) {

    private static final List<Path> SETPRIV = List.of(Path.of("/usr/bin/setpriv"), Path.of("/bin/setpriv"));
    /** What a container runtime sets, whatever the runner's own umask. */
    private static final String UMASK = "022";

    ContainerUser {
        groups = List.copyOf(groups);
    }

    /** @throws IllegalArgumentException with the kubelet's message when {@code runAsNonRoot} forbids the user */
    static ContainerUser of(PodSpec pod, Container container, ImageProfile profile, String podRef) {
        PodSecurityContext podContext = Objects.requireNonNullElseGet(pod.getSecurityContext(), PodSecurityContext::new);
        SecurityContext own = Objects.requireNonNullElseGet(container.getSecurityContext(), SecurityContext::new);
        Long runAsUser = first(own.getRunAsUser(), podContext.getRunAsUser());
        Boolean runAsNonRoot = first(own.getRunAsNonRoot(), podContext.getRunAsNonRoot());
        long uid = runAsUser != null ? runAsUser : profile.user().map(ImageProfile.User::uid).orElse(0L);
        if (Boolean.TRUE.equals(runAsNonRoot) && uid == 0) {
            throw new IllegalArgumentException(runAsUser != null
                    ? "container's runAsUser breaks non-root policy (pod: \"" + podRef + "\", container: "
                            + container.getName() + ")"
                    : "container has runAsNonRoot and image will run as root (pod: \"" + podRef + "\", container: "
                            + container.getName() + ")");
        }
        Long runAsGroup = first(own.getRunAsGroup(), podContext.getRunAsGroup());
        long gid = runAsGroup != null ? runAsGroup
                : profile.user().filter(user -> user.uid() == uid).map(ImageProfile.User::gid).orElse(0L);
        var groups = new LinkedHashSet<Long>();
        if (podContext.getFsGroup() != null) {
            groups.add(podContext.getFsGroup());
        }
        if (podContext.getSupplementalGroups() != null) {
            groups.addAll(podContext.getSupplementalGroups());
        }
        return new ContainerUser(uid, gid, new ArrayList<>(groups),
                Boolean.FALSE.equals(own.getAllowPrivilegeEscalation()));
    }

    /**
     * The argv that runs {@code program} as this user with umask 022: {@code sh -c 'umask 022 && exec "$0" "$@"'}
     * (a fixed script, the program's words are its arguments and never parsed), then util-linux {@code setpriv}
     * when {@code setpriv} is given (the runner is root), else the program as the runner's own user.
     */
    List<String> argv(List<String> program, Optional<Path> setpriv) {
        List<String> argv = new ArrayList<>(List.of("/bin/sh", "-c", "umask " + UMASK + " && exec \"$0\" \"$@\""));
        setpriv.ifPresent(path -> {
            argv.add(path.toString());
            argv.add("--reuid=" + uid);
            argv.add("--regid=" + gid);
            argv.add(groups.isEmpty() ? "--clear-groups"
                    : "--groups=" + String.join(",", groups.stream().map(String::valueOf).toList()));
            if (noNewPrivileges) {
                argv.add("--no-new-privs");
            }
            argv.add("--");
        });
        argv.addAll(program);
        return argv;
    }

    /** {@code setpriv} when this JVM runs as root and can switch users; empty otherwise (containers run as it). */
    static Optional<Path> switcher() {
        if (!runnerIsRoot()) {
            return Optional.empty();
        }
        return SETPRIV.stream().filter(Files::isExecutable).findFirst();
    }

    static boolean runnerIsRoot() {
        try {
            return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return "root".equals(System.getProperty("user.name"));
        }
    }

    private static <T> T first(T containerValue, T podValue) {
        return containerValue != null ? containerValue : podValue;
    }
}
