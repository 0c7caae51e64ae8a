package org.carla.leaderboard.podruntime.supervisor;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import org.carla.leaderboard.podruntime.volume.SharedFiles;
import org.jboss.logging.Logger;

/**
 * Starts the child in a process group of its own by exec'ing it through {@code setsid} (util-linux or busybox) when
 * that exists; Java has no setsid(2). Without it the child shares our group and is stopped through its descendants.
 * stdout and stderr are merged and copied line by line to the console and to the log file.
 */
public final class ProcessRunner implements Runner {

    private static final Logger LOG = Logger.getLogger(ProcessRunner.class);
    /** How often a stopping group is re-read once its leader is gone. */
    private static final Duration STOP_POLL = Duration.ofMillis(20);
    /** How long an exited child's output may still be drained before its exit is reported. */
    private static final Duration DRAIN = Duration.ofSeconds(1);
    private static final List<Path> SETSID = List.of(Path.of("/usr/bin/setsid"), Path.of("/bin/setsid"),
            Path.of("/usr/sbin/setsid"), Path.of("/sbin/setsid"));

    private final Wakeup wakeup;
    private final PrintStream console;
    private final Clock clock;
    private final Optional<Path> setsid;

    /** {@code clock} times the child's output ({@link RunningChild#lastOutput()}), as the supervisor reads it. */
    public ProcessRunner(Wakeup wakeup, PrintStream console, Clock clock) {
        this.wakeup = wakeup;
        this.console = console;
        this.clock = clock;
        this.setsid = SETSID.stream().filter(Files::isExecutable).findFirst();
    }

    @Override
    public RunningChild start(ChildSpec spec) throws IOException {
        List<String> argv = new ArrayList<>();
        setsid.ifPresent(path -> argv.add(path.toString()));
        argv.addAll(spec.argv());
        ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true);
        spec.workingDirectory().ifPresent(dir -> builder.directory(dir.toFile()));
        builder.environment().putAll(spec.environment());
        OutputStream log = spec.logFile().isPresent() ? Files.newOutputStream(spec.logFile().get(),
                StandardOpenOption.CREATE, StandardOpenOption.APPEND) : OutputStream.nullOutputStream();
        Process process;
        try {
            if (spec.logFile().isPresent()) {
                SharedFiles.setMode(spec.logFile().get(), SharedFiles.READABLE); // logcopy uploads it as another user
            }
            log.write(("# " + spec.name() + " started at " + Instant.now() + ": " + String.join(" ", spec.argv()) + "\n")
                    .getBytes(StandardCharsets.UTF_8));
            process = builder.start();
        } catch (IOException e) {
            log.close();
            throw e;
        }
        // setsid(1) execs in place when its caller is not a group leader (a fresh child never is): same pid.
        boolean ownGroup = setsid.isPresent() && awaitOwnGroup(process);
        Child child = new Child(process, new ProcessGroup(process.pid(), ownGroup), log, clock);
        Thread pump = new Thread(() -> {
            child.pump(console);
            wakeup.ring();
        }, spec.name() + "-output");
        pump.setDaemon(true);
        child.pump = pump;
        pump.start();
        process.onExit().thenRun(wakeup::ring);
        LOG.debugf("%s started: pid %d, own process group %s", spec.name(), process.pid(), ownGroup);
        return child;
    }

    /** Between fork and setsid's own setsid(2) call the child is briefly in our group; a few ms at most. */
    private static boolean awaitOwnGroup(Process process) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
        while (System.nanoTime() < deadline && process.isAlive()) {
            if (ProcessGroup.leadsOwnGroup(process.pid())) {
                return true;
            }
            Thread.onSpinWait();
        }
        return ProcessGroup.leadsOwnGroup(process.pid());
    }

    private static final class Child implements RunningChild {

        private final Process process;
        private final ProcessGroup group;
        private final OutputStream log;
        private final Clock clock;
        private final AtomicReference<Instant> lastOutput;
        private volatile Thread pump;
        private volatile long exitSeen;

        Child(Process process, ProcessGroup group, OutputStream log, Clock clock) {
            this.process = process;
            this.group = group;
            this.log = log;
            this.clock = clock;
            this.lastOutput = new AtomicReference<>(clock.instant());
        }

        void pump(PrintStream console) {
            try (log; BufferedReader reader = new BufferedReader(
                    new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = reader.readLine()) != null) {
                    lastOutput.set(clock.instant());
                    console.println(line);
                    log.write((line + "\n").getBytes(StandardCharsets.UTF_8));
                    log.flush();
                }
            } catch (IOException e) {
                LOG.debugf("output of pid %d: %s", process.pid(), e);
            }
        }

        @Override
        public long pid() {
            return process.pid();
        }

        @Override
        public OptionalInt exitCode() {
            if (process.isAlive()) {
                return OptionalInt.empty();
            }
            // Its last lines reach the log first, unless a leftover grandchild holds the pipe open.
            if (exitSeen == 0) {
                exitSeen = System.nanoTime();
            }
            if (pump != null && pump.isAlive() && System.nanoTime() - exitSeen < DRAIN.toNanos()) {
                return OptionalInt.empty();
            }
            return OptionalInt.of(process.exitValue());
        }

        @Override
        public Instant lastOutput() {
            return lastOutput.get();
        }

        @Override
        public void stop(Duration grace) {
            long deadline = System.nanoTime() + grace.toNanos();
            // The child first, at once; the scan of /proc for the rest of its group takes a moment.
            process.destroy();
            group.terminate();
            List<ProcessHandle> left = List.of();
            try {
                // The leader's exit is an event; its group's other members are polled.
                long remaining = deadline - System.nanoTime();
                if (remaining > 0) {
                    process.waitFor(remaining, TimeUnit.NANOSECONDS);
                }
                left = group.members();
                while (!left.isEmpty() && System.nanoTime() < deadline) {
                    LockSupport.parkNanos(STOP_POLL.toNanos());
                    left = group.members();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (!left.isEmpty()) {
                LOG.warnf("%d process(es) of pid %d still alive after %d ms: SIGKILL", left.size(), process.pid(),
                        grace.toMillis());
                group.kill();
            }
            try {
                process.waitFor(1, TimeUnit.SECONDS);
                if (pump != null) {
                    pump.join(DRAIN.toMillis());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
