package org.carla.leaderboard.podruntime.it;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A root file system holding nothing but the pod-runtime executable at {@code /pod-runtime}, the inputs a test puts
 * in it, and what a container runtime gives every container, even one of an image {@code FROM scratch}: {@code /proc},
 * the four character devices, and the {@code /etc/hosts} Kubernetes writes. No libc, no loader, no shell, no
 * {@code /tmp}. A role runs in it through {@code unshare --mount-proc} (a mount namespace of its own, so the proc
 * mount goes with the process) and {@code chroot}; both need root.
 */
final class EmptyRoot {

    static final String EXECUTABLE = "/pod-runtime";

    final Path root;

    private EmptyRoot(Path root) {
        this.root = root;
    }

    /** A new root in {@code folder} with {@code executable} at {@code /pod-runtime}. */
    static EmptyRoot of(Path folder, Path executable) throws IOException, InterruptedException {
        var empty = new EmptyRoot(Files.createDirectories(folder));
        Files.copy(executable, empty.path(EXECUTABLE), StandardCopyOption.COPY_ATTRIBUTES);
        Files.createDirectories(empty.path("/proc"));
        Path dev = Files.createDirectories(empty.path("/dev"));
        // What the container runtime creates in every container's /dev (runc's default devices).
        for (var device : Map.of("null", "1 3", "zero", "1 5", "random", "1 8", "urandom", "1 9").entrySet()) {
            String[] numbers = device.getValue().split(" ");
            run(List.of(tool("mknod"), "-m", "666", dev.resolve(device.getKey()).toString(), "c", numbers[0], numbers[1]));
        }
        // The kubelet's /etc/hosts: localhost and the pod's own name (here the host's: the same UTS namespace).
        String hostName = new String(Files.readAllBytes(Path.of("/proc/sys/kernel/hostname"))).trim();
        Files.writeString(Files.createDirectories(empty.path("/etc")).resolve("hosts"),
                "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n127.0.0.1\t" + hostName + "\n");
        return empty;
    }

    /** {@code path} (absolute inside the root) on the host. */
    Path path(String path) {
        return root.resolve(path.startsWith("/") ? path.substring(1) : path);
    }

    /** The command line that runs {@code program ARGS...} (a path inside the root) inside the root. */
    List<String> command(String program, String... args) {
        // unshare runs chroot with the role's environment, which has no PATH: chroot by its full name
        List<String> command = new ArrayList<>(List.of(tool("unshare"), "--mount-proc=" + path("/proc"), "--fork",
                tool("chroot"), root.toString(), program));
        command.addAll(List.of(args));
        return command;
    }

    /** Starts {@code /pod-runtime ARGS...} inside the root with {@code env} only; its console goes to {@code out}. */
    Process start(Map<String, String> env, Path out, String... args) throws IOException {
        return startProgram(EXECUTABLE, env, out, args);
    }

    /** Starts {@code program ARGS...} inside the root with {@code env} only; its console goes to {@code out}. */
    Process startProgram(String program, Map<String, String> env, Path out, String... args) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command(program, args)).redirectErrorStream(true)
                .redirectOutput(out.toFile());
        builder.environment().clear();
        builder.environment().putAll(env);
        return builder.start();
    }

    /** Runs {@code /pod-runtime ARGS...} inside the root to its end, at most {@code within}; its exit code. */
    int run(Map<String, String> env, Path out, Duration within, String... args)
            throws IOException, InterruptedException {
        return Pod.exit(start(env, out, args), within);
    }

    /** True when the ELF file asks for no program interpreter (no {@code PT_INTERP}): it needs no loader, no libc. */
    static boolean needsNoLoader(Path executable) throws IOException {
        try (FileChannel file = FileChannel.open(executable)) {
            ByteBuffer header = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
            file.read(header, 0);
            if (header.getInt(0) != 0x464c457f || header.get(4) != 2) {
                throw new IOException(executable + " is not a 64-bit ELF file");
            }
            long programHeaders = header.getLong(0x20);
            int entrySize = Short.toUnsignedInt(header.getShort(0x36));
            int entries = Short.toUnsignedInt(header.getShort(0x38));
            ByteBuffer entry = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < entries; i++) {
                entry.clear();
                file.read(entry, programHeaders + (long) i * entrySize);
                if (entry.getInt(0) == 3) { // PT_INTERP
                    return false;
                }
            }
            return true;
        }
    }

    private static String tool(String name) {
        return java.util.stream.Stream.of("/usr/sbin", "/usr/bin", "/sbin", "/bin").map(dir -> Path.of(dir, name))
                .filter(Files::isExecutable).findFirst().map(Path::toString)
                .orElseThrow(() -> new IllegalStateException(name + " not found (util-linux, coreutils)"));
    }

    private static void run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output;
        try (InputStream in = process.getInputStream()) {
            output = new String(in.readAllBytes());
        }
        if (process.waitFor() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + output);
        }
    }
}
