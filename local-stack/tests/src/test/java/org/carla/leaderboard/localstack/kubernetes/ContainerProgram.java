package org.carla.leaderboard.localstack.kubernetes;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * A container's program for the runner's tests, run as a real process: {@code stamp FILE MILLIS} writes its start
 * and end times; {@code fail FILE CODE} appends a line and exits with CODE; {@code env FILE NAME...} writes the named
 * variables and its arguments; {@code spawn FILE} starts a child {@code sleep} and writes both pids, then waits;
 * {@code orphan FILE} does the same and exits at once, leaving the child behind; {@code files DIR ID} writes an
 * owner-only status file (createTempFile, moved) and a plain log into DIR and its identity to ID; {@code read DIR OUT}
 * writes whether it could read each of them, and its identity, to OUT; {@code mkdir DIR} makes a world-writable
 * folder; {@code identity FILE} writes its identity;
 * {@code install DIR} copies {@code /bin/true} to {@code DIR/pod-runtime}; {@code say TEXT [CODE]} prints TEXT on
 * stdout and stderr and exits with CODE; {@code serve FILE} runs until SIGTERM, on which it appends
 * {@code stop MILLIS} (and the JVM exits 143), and appends {@code start MILLIS} once it would; {@code await FILE [OUT]}
 * exits 0 once FILE exists, after appending the time to OUT.
 */
public final class ContainerProgram {

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "stamp" -> {
                long start = System.currentTimeMillis();
                Thread.sleep(Long.parseLong(args[2]));
                append(Path.of(args[1]), start + " " + System.currentTimeMillis());
            }
            case "fail" -> {
                append(Path.of(args[1]), "run");
                System.exit(Integer.parseInt(args[2]));
            }
            case "env" -> {
                var out = new StringBuilder();
                for (String name : Arrays.copyOfRange(args, 2, args.length)) {
                    out.append(name).append('=').append(System.getenv(name)).append('\n');
                }
                out.append("cwd=").append(Path.of("").toAbsolutePath()).append('\n');
                Files.writeString(Path.of(args[1]), out);
            }
            case "spawn" -> {
                Process child = new ProcessBuilder("sleep", "300").start();
                append(Path.of(args[1]), ProcessHandle.current().pid() + " " + child.pid());
                child.waitFor();
            }
            case "orphan" -> {
                // A child in a session of its own (as pod-runtime starts the real program), left behind on exit.
                Process child = new ProcessBuilder("setsid", "sleep", "300").start();
                append(Path.of(args[1]), ProcessHandle.current().pid() + " " + child.pid());
            }
            case "files" -> {
                // A status file written the way the production bug wrote it (createTempFile: owner-only, then moved)
                // and a log written plainly (mode from the umask).
                Path dir = Path.of(args[1]);
                Path temporary = Files.createTempFile(dir, ".agent-1.done", ".tmp");
                Files.move(temporary, dir.resolve("agent-1.done"), StandardCopyOption.ATOMIC_MOVE);
                Files.writeString(dir.resolve("leaderboard.log"), "route 1 done\n");
                Files.writeString(Path.of(args[2]), identity());
            }
            case "read" -> {
                var out = new StringBuilder();
                for (String name : new String[] { "agent-1.done", "leaderboard.log" }) {
                    try {
                        Files.readString(Path.of(args[1]).resolve(name));
                        out.append(name).append(": read\n");
                    } catch (AccessDeniedException e) {
                        out.append(name).append(": denied\n");
                    }
                }
                Files.writeString(Path.of(args[2]), out.append(identity()));
            }
            case "mkdir" -> {
                // As the init container prepares the logs volume: a world-writable folder.
                Path dir = Files.createDirectories(Path.of(args[1]));
                Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
            }
            case "identity" -> Files.writeString(Path.of(args[1]), identity());
            case "install" -> {
                // Like pod-runtime's install: puts an executable (here /bin/true) into the shared volume.
                Path target = Path.of(args[1]).resolve("pod-runtime");
                Files.copy(Path.of("/bin/true"), target);
                target.toFile().setExecutable(true);
            }
            case "say" -> {
                System.out.println("out: " + args[1]);
                System.err.println("err: " + args[1]);
                System.exit(args.length > 2 ? Integer.parseInt(args[2]) : 0);
            }
            case "serve" -> {
                Path file = Path.of(args[1]);
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    try {
                        append(file, "stop " + System.currentTimeMillis());
                    } catch (IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                }));
                append(file, "start " + System.currentTimeMillis());
                Thread.sleep(300_000);
            }
            case "await" -> {
                while (!Files.exists(Path.of(args[1]))) {
                    Thread.sleep(50);
                }
                if (args.length > 2) {
                    append(Path.of(args[2]), Long.toString(System.currentTimeMillis()));
                }
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    /** Who this process is, as the kernel says: the Uid, Gid, Groups, NoNewPrivs and Umask lines of its status. */
    private static String identity() throws IOException {
        var out = new StringBuilder();
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.matches("(Uid|Gid|Groups|NoNewPrivs|Umask):.*")) {
                out.append(line.replaceAll("\\s+", " ").trim()).append('\n');
            }
        }
        return out.toString();
    }

    private static void append(Path file, String line) throws IOException {
        Files.writeString(file, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
}
