package org.carla.leaderboard.podruntime.supervisor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The processes of one child: the members of its process group (read from {@code /proc/<pid>/stat}, since Java cannot
 * call {@code kill(-pgid)}) plus its descendants (a grandchild that left the group is still found). Signals go through
 * {@link ProcessHandle#destroy()} (SIGTERM) and {@link ProcessHandle#destroyForcibly()} (SIGKILL), pid by pid.
 */
public final class ProcessGroup {

    private static final Path PROC = Path.of("/proc");

    private final long leader;
    private final boolean ownGroup;

    /** {@code ownGroup}: whether the leader was started in a group of its own, as seen when it started. */
    public ProcessGroup(long leader, boolean ownGroup) {
        this.leader = leader;
        this.ownGroup = ownGroup;
    }

    /** The process group of a pid, from field 5 of {@code /proc/<pid>/stat}; empty where there is no /proc. */
    public static OptionalLong groupOf(long pid) {
        try {
            String stat = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"), StandardCharsets.US_ASCII);
            // The command name (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return OptionalLong.of(Long.parseLong(fields[2]));
        } catch (IOException | RuntimeException e) {
            return OptionalLong.empty();
        }
    }

    /**
     * Zombies whose parent is this process: orphans of the child's tree adopted by pod-runtime as PID 1. Java reaps
     * only the children it started, so these stay until the container ends (see the README); counted for the log.
     */
    public static long adoptedZombies() {
        long self = ProcessHandle.current().pid();
        try (Stream<Path> entries = Files.list(PROC)) {
            return entries.map(p -> p.getFileName().toString()).filter(n -> n.chars().allMatch(Character::isDigit))
                    .filter(pid -> {
                        try {
                            String stat = Files.readString(PROC.resolve(pid).resolve("stat"), StandardCharsets.US_ASCII);
                            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                            return fields[0].equals("Z") && Long.parseLong(fields[1]) == self;
                        } catch (IOException | RuntimeException e) {
                            return false;
                        }
                    }).count();
        } catch (IOException e) {
            return 0;
        }
    }

    /** Whether a pid heads a group of its own (as a process started through setsid does). */
    public static boolean leadsOwnGroup(long pid) {
        return groupOf(pid).orElse(-1) == pid;
    }

    /** Every live process of the group and every descendant of the leader; the leader first. */
    public List<ProcessHandle> members() {
        Set<ProcessHandle> members = new LinkedHashSet<>();
        ProcessHandle.of(leader).filter(ProcessHandle::isAlive).ifPresent(handle -> {
            members.add(handle);
            handle.descendants().forEach(members::add);
        });
        if (ownGroup) {
            try (Stream<Path> entries = Files.list(PROC)) {
                entries.map(p -> p.getFileName().toString()).filter(n -> n.chars().allMatch(Character::isDigit))
                        .mapToLong(Long::parseLong)
                        .filter(pid -> pid != ProcessHandle.current().pid() && groupOf(pid).orElse(-1) == leader)
                        .forEach(pid -> ProcessHandle.of(pid).ifPresent(members::add));
            } catch (IOException e) {
                // no /proc: the descendants are all we can reach
            }
        }
        // A zombie is "alive" to ProcessHandle, but it has ended: waiting for it would always take the whole grace.
        return members.stream().filter(ProcessHandle::isAlive).filter(handle -> !ended(handle.pid()))
                .collect(Collectors.toList());
    }

    /** Whether a process has ended and only waits to be reaped (state Z or X in {@code /proc/<pid>/stat}). */
    static boolean ended(long pid) {
        try {
            String stat = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"), StandardCharsets.US_ASCII);
            char state = stat.charAt(stat.lastIndexOf(')') + 2);
            return state == 'Z' || state == 'X';
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    public void terminate() {
        members().forEach(ProcessHandle::destroy);
    }

    public void kill() {
        members().forEach(ProcessHandle::destroyForcibly);
    }
}
