package org.carla.leaderboard.localstack.kubernetes;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;

/**
 * Where a Job's pod lives on this machine, and how a container's view maps onto it: every volume is a folder
 * {@code <workRoot>/<job>/pods/<pod>/volumes/<name>}, the pod's own (emptyDir as in Kubernetes, mode 0777, with
 * {@code fsGroup} group-owned by it and setgid; other kinds start the same, so a hostPath never reaches the real host;
 * a replacement pod starts with empty ones, and the folders stay for a look once the pod is gone), every container logs
 * to {@code <workRoot>/<job>/logs/<container>.log} (every pod of the Job, appended), and every env value, command
 * argument and working directory that starts with a mount path is rewritten to the local folder of that mount. Who each container runs as is
 * {@link ContainerUser}'s.
 */
final class PodLayout {

    /** Kubernetes' DNS-1123 label: what names of Jobs, volumes and containers must be, so they are safe as folders. */
    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
    private static final Pattern DNS_SUBDOMAIN = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");
    /** Kubernetes' {@code $(VAR)} expansion in command and args; {@code $$} escapes. */
    private static final Pattern VARIABLE = Pattern.compile("\\$\\$|\\$\\(([A-Za-z_][A-Za-z0-9_.-]*)\\)");
    /** What a local process inherits from the runner: enough to find programs and a JVM, nothing else. */
    private static final List<String> INHERITED_ENV = List.of("PATH", "HOME", "LANG", "LC_ALL", "TZ", "JAVA_HOME", "USER");

    private static final int TRAVERSABLE = 0755;
    private static final int WORLD_WRITABLE = 0777;
    private static final int SETGID = 02000;

    private final Path jobFolder;
    private final Path podFolder;
    private final PodSpec spec;
    private final Map<String, Path> volumes = new HashMap<>();
    private final List<String> portVariables;
    /** The first port of the pod's {@link PortBlocks} block, -1 when it has none. */
    private int portBlock = -1;
    private final int portShift;
    private final boolean switchUsers;

    /** A container resolved to a local process: argv, env, working directory, log file and the user it runs as. */
    record Launch(List<String> argv, Map<String, String> env, Path workingDirectory, Path logFile, ContainerUser user) {
    }

    PodLayout(Path workRoot, String jobName, String podName, PodSpec spec) throws IOException {
        this(workRoot, jobName, podName, spec, List.of(), false);
    }

    /**
     * With {@code portVariables}: their ports are shifted for this pod so that the lowest lands on a free port. With
     * {@code switchUsers} (the runner is root) volumes get the {@code fsGroup} and each container's working folder
     * belongs to its user.
     */
    PodLayout(Path workRoot, String jobName, String podName, PodSpec spec, List<String> portVariables,
            boolean switchUsers) throws IOException {
        requireName(jobName, DNS_SUBDOMAIN, "Job name");
        requireName(podName, DNS_SUBDOMAIN, "pod name");
        this.spec = spec;
        this.switchUsers = switchUsers;
        this.portVariables = List.copyOf(portVariables);
        this.portShift = portShift(spec, this.portVariables);
        this.jobFolder = workRoot.resolve(jobName);
        this.podFolder = jobFolder.resolve("pods").resolve(podName);
        // Every container's user must reach its volumes and working folder, whatever the runner's umask.
        for (Path folder : List.of(jobFolder, jobFolder.resolve("logs"), jobFolder.resolve("pods"), podFolder,
                podFolder.resolve("volumes"), podFolder.resolve("containers"))) {
            Files.createDirectories(folder);
            mode(folder, TRAVERSABLE);
        }
        Long fsGroup = spec.getSecurityContext() == null ? null : spec.getSecurityContext().getFsGroup();
        for (Volume volume : spec.getVolumes() == null ? List.<Volume>of() : spec.getVolumes()) {
            requireName(volume.getName(), DNS_LABEL, "volume name");
            Path folder = podFolder.resolve("volumes").resolve(volume.getName());
            // A volume lives as long as its pod: another pod of the Job, or of a later Job, never sees its files.
            deleteRecursively(folder);
            Files.createDirectories(folder);
            // The kubelet's emptyDir: world-writable; with fsGroup, group-owned by it and setgid (files inherit it).
            if (fsGroup != null && switchUsers) {
                Files.setAttribute(folder, "unix:gid", fsGroup.intValue());
                mode(folder, SETGID | WORLD_WRITABLE);
            } else {
                mode(folder, WORLD_WRITABLE);
            }
            volumes.put(volume.getName(), folder);
        }
    }

    private static void mode(Path path, int mode) throws IOException {
        Files.setAttribute(path, "unix:mode", mode);
    }

    private static void deleteRecursively(Path folder) throws IOException {
        if (!Files.exists(folder)) {
            return;
        }
        try (var paths = Files.walk(folder)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }

    /**
     * How far this pod's declared ports move: the lowest to the first port of a block of its own ({@link PortBlocks});
     * when no block is free, to a free port the kernel picks (as another process may take it meanwhile, the fallback).
     */
    private int portShift(PodSpec spec, List<String> names) throws IOException {
        var containers = new ArrayList<Container>();
        if (spec.getInitContainers() != null) {
            containers.addAll(spec.getInitContainers());
        }
        if (spec.getContainers() != null) {
            containers.addAll(spec.getContainers());
        }
        List<Integer> declared = containers.stream().flatMap(c -> c.getEnv() == null
                        ? java.util.stream.Stream.<EnvVar>empty() : c.getEnv().stream())
                .filter(v -> names.contains(v.getName())).map(v -> port(v.getValue())).filter(p -> p != null)
                .distinct().toList();
        if (declared.isEmpty()) {
            return 0;
        }
        int lowest = declared.stream().mapToInt(Integer::intValue).min().orElseThrow();
        portBlock = PortBlocks.take(declared);
        if (portBlock >= 0) {
            return portBlock - lowest;
        }
        try (var socket = new java.net.ServerSocket(0, 0, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort() - lowest;
        }
    }

    /** Gives back the pod's block of ports: the pod has ended. */
    void releasePorts() {
        if (portBlock >= 0) {
            PortBlocks.release(portBlock);
            portBlock = -1;
        }
    }

    private static Integer port(String value) {
        if (value == null || !value.matches("[0-9]{1,5}")) {
            return null;
        }
        return Integer.valueOf(value);
    }

    Path podFolder() {
        return podFolder;
    }

    Path logFile(String containerName) {
        return jobFolder.resolve("logs").resolve(containerName + ".log");
    }

    Launch launch(Container container, ImageProfile profile, String podName, Map<String, String> podFields)
            throws IOException {
        return launch(container, profile, podName, podFields, Map.of());
    }

    /**
     * Resolves a container to a local process, with the environment the cluster adds to it ({@code identity}: its
     * AWS credentials), or throws {@link IllegalArgumentException} saying why it cannot run.
     */
    Launch launch(Container container, ImageProfile profile, String podName, Map<String, String> podFields,
            Map<String, String> identity) throws IOException {
        requireName(container.getName(), DNS_LABEL, "container name");
        ContainerUser user = ContainerUser.of(spec, container, profile,
                podName + "_" + podFields.getOrDefault("metadata.namespace", "") + "("
                        + podFields.getOrDefault("metadata.uid", "") + ")");
        List<Map.Entry<String, Path>> mounts = mounts(container);

        Map<String, String> env = new LinkedHashMap<>();
        INHERITED_ENV.forEach(name -> {
            String value = System.getenv(name);
            if (value != null) {
                env.put(name, value);
            }
        });
        if (switchUsers && user.uid() != 0) {
            // The runner's home is not this user's; a runtime sets HOME=/ for a user the image's passwd lacks.
            env.remove("USER");
            env.put("HOME", "/");
        }
        // The runtime's HOSTNAME is the pod sandbox's host name: spec.hostname when set (an Indexed Job's pod), else
        // the pod's name.
        env.put("HOSTNAME", spec.getHostname() == null || spec.getHostname().isBlank() ? podName : spec.getHostname());
        env.putAll(profile.env());
        for (EnvVar variable : container.getEnv() == null ? List.<EnvVar>of() : container.getEnv()) {
            if (variable.getValueFrom() != null) {
                var field = variable.getValueFrom().getFieldRef();
                String value = field == null ? null : podFields.get(field.getFieldPath());
                // Secrets, config maps and resource fields have no local source: the container sees them unset.
                if (value != null) {
                    env.put(variable.getName(), value);
                }
                continue;
            }
            String value = expand(variable.getValue() == null ? "" : variable.getValue(), env);
            env.put(variable.getName(), rewrite(value, mounts));
        }
        env.putAll(profile.overrideEnv());
        env.putAll(identity);
        for (String name : portVariables) {
            Integer port = port(env.get(name));
            if (port != null) {
                env.put(name, Integer.toString(port + portShift));
            }
        }

        List<String> declared = new ArrayList<>();
        if (container.getCommand() != null && !container.getCommand().isEmpty()) {
            declared.addAll(container.getCommand());
        } else {
            declared.addAll(profile.entrypoint());
        }
        if (container.getArgs() != null) {
            declared.addAll(container.getArgs());
        }
        if (declared.isEmpty()) {
            throw new IllegalArgumentException("container " + container.getName() + " has no command and image "
                    + container.getImage() + " no entrypoint in its profile");
        }
        List<String> argv = new ArrayList<>();
        List<String> program = profile.commands().get(declared.get(0));
        if (program != null) {
            argv.addAll(program);
        } else {
            argv.add(rewrite(expand(declared.get(0), env), mounts));
        }
        for (String argument : declared.subList(1, declared.size())) {
            argv.add(rewrite(expand(argument, env), mounts));
        }

        Path workingDirectory;
        if (container.getWorkingDir() != null && !container.getWorkingDir().isBlank()
                && !rewrite(container.getWorkingDir(), mounts).equals(container.getWorkingDir())) {
            workingDirectory = Path.of(rewrite(container.getWorkingDir(), mounts));
        } else {
            // An image's own folders do not exist here; each container gets a private working folder instead.
            workingDirectory = podFolder.resolve("containers").resolve(container.getName());
        }
        boolean created = Files.notExists(workingDirectory);
        Files.createDirectories(workingDirectory);
        boolean privateFolder = workingDirectory.startsWith(podFolder.resolve("containers"));
        if (switchUsers && (created || privateFolder)) {
            // An image's WORKDIR is usually its user's: the program may write relative files there.
            Files.setAttribute(workingDirectory, "unix:uid", (int) user.uid());
            Files.setAttribute(workingDirectory, "unix:gid", (int) user.gid());
        }
        return new Launch(List.copyOf(argv), Map.copyOf(env), workingDirectory, logFile(container.getName()), user);
    }

    /** The container's mounts as (mountPath, local folder), longest mount path first so nested mounts win. */
    private List<Map.Entry<String, Path>> mounts(Container container) throws IOException {
        List<Map.Entry<String, Path>> mounts = new ArrayList<>();
        for (VolumeMount mount : container.getVolumeMounts() == null ? List.<VolumeMount>of() : container.getVolumeMounts()) {
            Path folder = volumes.get(mount.getName());
            if (folder == null) {
                throw new IllegalArgumentException("container " + container.getName() + " mounts unknown volume "
                        + mount.getName());
            }
            String mountPath = trimTrailingSlash(mount.getMountPath());
            if (mountPath == null || !mountPath.startsWith("/")) {
                throw new IllegalArgumentException("mountPath must be absolute: " + mount.getMountPath());
            }
            String subPath = mount.getSubPath();
            if (subPath != null && !subPath.isEmpty()) {
                Path relative = Path.of(subPath).normalize();
                if (relative.isAbsolute() || relative.startsWith("..")) {
                    throw new IllegalArgumentException("subPath must stay inside its volume: " + subPath);
                }
                Path volume = folder;
                folder = folder.resolve(relative);
                Path topmostMissing = null;
                for (Path missing = folder; !missing.equals(volume) && Files.notExists(missing);
                        missing = missing.getParent()) {
                    topmostMissing = missing;
                }
                Files.createDirectories(folder);
                // The kubelet creates a missing subPath with its volume's mode and group.
                for (Path created = folder; topmostMissing != null; created = created.getParent()) {
                    Files.setAttribute(created, "unix:gid", Files.getAttribute(volume, "unix:gid"));
                    mode(created, (Integer) Files.getAttribute(volume, "unix:mode") & 07777);
                    if (created.equals(topmostMissing)) {
                        break;
                    }
                }
            }
            mounts.add(Map.entry(mountPath, folder));
        }
        mounts.sort(Comparator.comparingInt((Map.Entry<String, Path> entry) -> entry.getKey().length()).reversed());
        return mounts;
    }

    /** The local form of a value that starts with a mount path ({@code /tmp/logs/x} → {@code <logs folder>/x}). */
    static String rewrite(String value, List<Map.Entry<String, Path>> mounts) {
        for (Map.Entry<String, Path> mount : mounts) {
            String mountPath = mount.getKey();
            if (value.equals(mountPath)) {
                return mount.getValue().toString();
            }
            if (value.startsWith(mountPath + "/") || "/".equals(mountPath)) {
                String rest = value.substring(mountPath.length()).replaceFirst("^/+", "");
                return rest.isEmpty() ? mount.getValue().toString() : mount.getValue().resolve(rest).toString();
            }
        }
        return value;
    }

    private static String expand(String value, Map<String, String> env) {
        Matcher matcher = VARIABLE.matcher(value);
        StringBuilder out = new StringBuilder();
        while (matcher.find()) {
            String replacement;
            if (matcher.group(1) == null) {
                replacement = "$";
            } else {
                replacement = env.getOrDefault(matcher.group(1), matcher.group());
            }
            matcher.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        matcher.appendTail(out);
        return out.toString();
    }

    private static String trimTrailingSlash(String path) {
        if (path == null || path.length() <= 1) {
            return path;
        }
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    private static void requireName(String name, Pattern pattern, String what) {
        if (name == null || !pattern.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " is not a valid Kubernetes name: " + name);
        }
    }
}
