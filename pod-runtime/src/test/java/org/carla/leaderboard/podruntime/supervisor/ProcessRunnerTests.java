package org.carla.leaderboard.podruntime.supervisor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.carla.leaderboard.podruntime.fixture.ForkingChild;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcessRunnerTests {

    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

    @TempDir
    Path temp;

    private final ByteArrayOutputStream console = new ByteArrayOutputStream();
    private final Wakeup wakeup = new Wakeup();
    private final ProcessRunner runner = new ProcessRunner(wakeup, new PrintStream(console, true, StandardCharsets.UTF_8),
            Clock.systemUTC());

    @Test
    void theChildLeadsAProcessGroupOfItsOwn() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setsid")) && Files.isDirectory(Path.of("/proc")));
        RunningChild child = runner.start(spec(List.of("sleep", "30")));
        try {
            assertThat(ProcessGroup.groupOf(child.pid())).hasValue(child.pid());
            assertThat(ProcessGroup.groupOf(ProcessHandle.current().pid())).isNotEqualTo(ProcessGroup.groupOf(child.pid()));
        } finally {
            child.stop(Duration.ofSeconds(1));
        }
    }

    @Test
    void stopReachesAGrandchildTheChildLeavesBehind() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc")));
        RunningChild child = runner.start(spec(List.of(JAVA, "-cp", System.getProperty("java.class.path"),
                ForkingChild.class.getName())));
        long grandchild = grandchildOf(child);

        child.stop(Duration.ofSeconds(5));

        assertThat(child.exitCode()).isPresent();
        assertThat(ProcessHandle.of(grandchild).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));
    }

    @Test
    void aChildThatIgnoresSigtermIsKilledAfterTheGrace() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc")));
        RunningChild child = runner.start(spec(List.of(JAVA, "-cp", System.getProperty("java.class.path"),
                ForkingChild.class.getName(), "ignore-term")));
        long grandchild = grandchildOf(child);
        awaitConsole("grandchild");

        long start = System.nanoTime();
        child.stop(Duration.ofMillis(500));

        assertThat(child.exitCode()).hasValue(137); // SIGKILL
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
        assertThat(ProcessHandle.of(grandchild).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));
    }

    @Test
    void outputGoesToTheConsoleAndTheLogAndTheExitCodeIsKept() throws Exception {
        Path log = temp.resolve("child.log");
        Instant before = Instant.now();
        RunningChild child = runner.start(new ChildSpec("ls", List.of("ls", "/definitely-not-here", "/"),
                Optional.empty(), Map.of(), Optional.of(log)));
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (child.exitCode().isEmpty() && System.nanoTime() < deadline) {
            wakeup.await(Duration.ofMillis(100), wakeup.cursor());
        }
        awaitConsole("definitely-not-here");

        assertThat(child.exitCode()).hasValue(2);
        assertThat(Files.readString(log)).startsWith("# ls started at").contains("definitely-not-here").contains("proc");
        assertThat(console.toString(StandardCharsets.UTF_8)).contains("definitely-not-here");
        assertThat(child.lastOutput()).isAfterOrEqualTo(before);
    }

    @Test
    void aDeadChildIsNoticedAtOnce() throws Exception {
        List<Long> overshoot = new java.util.ArrayList<>();
        for (int i = 0; i < 5; i++) {
            long start = System.nanoTime();
            RunningChild child = runner.start(spec(List.of("sleep", "0.3")));
            long[] cursor = wakeup.cursor();
            while (child.exitCode().isEmpty()) {
                wakeup.await(Duration.ofSeconds(5), cursor);
            }
            overshoot.add(System.nanoTime() - start - Duration.ofMillis(300).toNanos());
        }
        java.util.Collections.sort(overshoot);
        Files.writeString(Path.of("target", "reaction-times.txt"), String.format(java.util.Locale.ROOT,
                "dead child → noticed (sleep 0.3 via setsid; includes fork and exec), 5 runs: median %.1f ms, max %.1f ms%n",
                overshoot.get(2) / 1e6, overshoot.get(4) / 1e6), java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
        assertThat(overshoot.get(2)).isLessThan(Duration.ofMillis(250).toNanos());
    }

    private long grandchildOf(RunningChild child) throws InterruptedException {
        Matcher matcher = awaitConsole("grandchild (\\d+)");
        return Long.parseLong(matcher.group(1));
    }

    private Matcher awaitConsole(String regex) throws InterruptedException {
        Pattern pattern = Pattern.compile(regex);
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            Matcher matcher = pattern.matcher(console.toString(StandardCharsets.UTF_8));
            if (matcher.find()) {
                return matcher;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no '" + regex + "' in " + console.toString(StandardCharsets.UTF_8));
    }

    private ChildSpec spec(List<String> argv) {
        return new ChildSpec("test-child", argv, Optional.empty(), Map.of(), Optional.empty());
    }
}
