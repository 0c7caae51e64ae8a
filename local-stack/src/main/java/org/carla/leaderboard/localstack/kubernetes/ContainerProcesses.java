package org.carla.leaderboard.localstack.kubernetes;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The processes of a container run. In a cluster they share a PID namespace that the kernel empties (SIGKILL to
 * every one) when its first process ends; here there is none, so each container's processes carry
 * {@code LOCAL_STACK_CONTAINER=<run id>} in their environment, inherited by everything they start, and are found by
 * it in {@code /proc} — also those whose parent died and that were re-parented, which a walk of descendants misses.
 * A process that drops the variable from its children's environment escapes (none of the stack's programs do).
 * Without {@code /proc} (not Linux) a container is its main process and its live descendants.
 */
final class ContainerProcesses {

    static final String VARIABLE = "LOCAL_STACK_CONTAINER";
    private static final Path PROC = Path.of("/proc");
    private static final Duration GONE_BOUND = Duration.ofSeconds(5);
    /** Looks for processes started while the others were being stopped, this many times at most. */
    private static final int STOP_ROUNDS = 5;

    private ContainerProcesses() {
    }

    /** The id of one run of a container: unique per pod (its name has a random suffix), container and restart. */
    static String runId(String podName, String container, int restarts) {
        return podName + "/" + container + "/" + restarts;
    }

    /**
     * Starts a container's main process as its user ({@link ContainerUser}), marked with its run id, stdin from
     * {@code /dev/null}, stdout and stderr appended to its log. A program that is not there is refused first, as the
     * runtime's exec would refuse it (the kubelet's StartError), rather than started and failing.
     */
    static Process start(PodLayout.Launch launch, String runId, Optional<Path> setpriv) throws IOException {
        requireExecutable(launch);
        var builder = new ProcessBuilder(launch.user().argv(launch.argv(), setpriv))
                .directory(launch.workingDirectory().toFile())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(launch.logFile().toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        builder.environment().clear();
        builder.environment().putAll(launch.env());
        builder.environment().put(VARIABLE, runId);
        return builder.start();
    }

    private static void requireExecutable(PodLayout.Launch launch) throws IOException {
        String program = launch.argv().get(0);
        if (program.contains("/")) {
            if (!Files.isExecutable(launch.workingDirectory().resolve(program))) {
                throw new IOException("exec: \"" + program + "\": no such executable file");
            }
            return;
        }
        for (String folder : launch.env().getOrDefault("PATH", "").split(":")) {
            if (!folder.isEmpty() && Files.isExecutable(Path.of(folder, program))) {
                return;
            }
        }
        throw new IOException("exec: \"" + program + "\": executable file not found in $PATH");
    }

    /** The live processes of each run id asked for (zombies excluded: their environment reads empty). */
    static Map<String, List<ProcessHandle>> find(Map<String, ProcessHandle> mains) {
        Map<String, List<ProcessHandle>> found = new HashMap<>();
        mains.keySet().forEach(id -> found.put(id, new ArrayList<>()));
        if (!Files.isDirectory(PROC)) {
            mains.forEach((id, main) -> {
                if (main.isAlive()) {
                    found.get(id).add(main);
                    main.descendants().forEach(found.get(id)::add);
                }
            });
            return found;
        }
        Set<String> ids = mains.keySet();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(PROC, entry -> isPid(entry.getFileName()))) {
            for (Path entry : entries) {
                String id = runIdOf(entry);
                if (id != null && ids.contains(id)) {
                    ProcessHandle.of(Long.parseLong(entry.getFileName().toString())).filter(ProcessHandle::isAlive)
                            .ifPresent(found.get(id)::add);
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot list " + PROC, e);
        }
        // The main process is the container's own even while its environment reads empty: during an exec (setpriv
        // exec'ing the program) the kernel has no memory to read it from.
        mains.forEach((id, main) -> {
            if (main.isAlive() && found.get(id).stream().noneMatch(p -> p.pid() == main.pid())) {
                found.get(id).add(main);
            }
        });
        return found;
    }

    /** SIGKILL to every process of the run at once, as when its PID namespace goes; returns once they are gone. */
    static void kill(String runId, ProcessHandle main) {
        killAll(Map.of(runId, main));
    }

    /**
     * Every process of those runs ended at once, as a node gone ends them: first each is stopped (SIGSTOP, looked for
     * again until none runs), then all are SIGKILLed. A stopped process cannot see another end, so none acts on it.
     * Returns once all are gone (bounded).
     */
    static void killAll(Map<String, ProcessHandle> mains) {
        Set<ProcessHandle> stopped = new LinkedHashSet<>();
        for (int round = 0; round < STOP_ROUNDS; round++) {
            List<ProcessHandle> running = new ArrayList<>();
            find(mains).values().forEach(found -> found.stream().filter(process -> !stopped.contains(process))
                    .forEach(running::add));
            if (running.isEmpty()) {
                break;
            }
            stop(running);
            stopped.addAll(running);
        }
        stopped.forEach(ProcessHandle::destroyForcibly);
        await(stopped, GONE_BOUND);
    }

    /** SIGSTOP to each, in one {@code kill} (Java has no API for it); one gone meanwhile is no matter. */
    private static void stop(List<ProcessHandle> processes) {
        var argv = new ArrayList<>(List.of("kill", "-STOP"));
        processes.forEach(process -> argv.add(Long.toString(process.pid())));
        try {
            Process kill = new ProcessBuilder(argv).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!kill.waitFor(GONE_BOUND.toMillis(), TimeUnit.MILLISECONDS)) {
                kill.destroyForcibly();
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot stop the processes " + processes, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The kubelet's stop of containers: SIGTERM to each main process only, then, once it has ended or the grace
     * period is over, SIGKILL to every process left of those runs. Returns once all are gone (bounded).
     */
    static void stop(Map<String, ProcessHandle> mains, Duration grace) {
        mains.values().stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroy);
        await(mains.values(), grace);
        List<ProcessHandle> left = new ArrayList<>();
        find(mains).values().forEach(left::addAll);
        left.forEach(ProcessHandle::destroyForcibly);
        await(left, GONE_BOUND);
    }

    private static boolean isPid(Path name) {
        String text = name.toString();
        return !text.isEmpty() && text.chars().allMatch(Character::isDigit);
    }

    /** The run id in a process's environment; null when it has none or cannot be read (gone, another user's). */
    private static String runIdOf(Path process) {
        byte[] environment;
        try {
            environment = Files.readAllBytes(process.resolve("environ"));
        } catch (IOException | SecurityException e) {
            return null;
        }
        String prefix = VARIABLE + "=";
        for (String entry : new String(environment, StandardCharsets.UTF_8).split("\0")) {
            if (entry.startsWith(prefix)) {
                return entry.substring(prefix.length());
            }
        }
        return null;
    }

    private static void await(Collection<ProcessHandle> processes, Duration timeout) {
        CompletableFuture<?> gone = CompletableFuture.allOf(processes.stream().map(ProcessHandle::onExit)
                .toArray(CompletableFuture[]::new));
        try {
            gone.get(Math.max(0, timeout.toMillis()), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // the caller goes on: SIGKILL comes next, or the bound is reached
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
