package org.carla.leaderboard.podruntime.supervisor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
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
    /** A wait nothing but the awaited event ends. */
    private static final Duration UNRUNG = Duration.ofSeconds(30);

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

        child.stop(Duration.ofMillis(500));

        assertThat(child.exitCode()).hasValue(137); // SIGKILL: the stop did not wait for a child that ignores SIGTERM
        assertThat(ProcessHandle.of(grandchild).map(ProcessHandle::isAlive)).isNotEqualTo(Optional.of(true));
    }

    @Test
    void outputGoesToTheConsoleAndTheLogAndTheExitCodeIsKept() throws Exception {
        Path log = temp.resolve("child.log");
        Instant before = Instant.now();
        RunningChild child = runner.start(new ChildSpec("ls", List.of("ls", "/definitely-not-here", "/"),
                Optional.empty(), Map.of(), Optional.of(log)));
        await("ls exiting").atMost(Duration.ofSeconds(60)).until(() -> child.exitCode().isPresent());
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
                wakeup.await(UNRUNG, cursor); // only the child's exit rings it
            }
            overshoot.add(System.nanoTime() - start - Duration.ofMillis(300).toNanos());
        }
        java.util.Collections.sort(overshoot);
        Files.writeString(Path.of("target", "reaction-times.txt"), String.format(java.util.Locale.ROOT,
                "dead child → noticed (sleep 0.3 via setsid; includes fork and exec), 5 runs: median %.1f ms, max %.1f ms%n",
                overshoot.get(2) / 1e6, overshoot.get(4) / 1e6), java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
        // Failure detection, not speed (measured above): without the exit's ring each wait would last UNRUNG.
        assertThat(overshoot.get(2)).isLessThan(UNRUNG.dividedBy(2).toNanos());
    }

    private long grandchildOf(RunningChild child) {
        Matcher matcher = awaitConsole("grandchild (\\d+)");
        return Long.parseLong(matcher.group(1));
    }

    private Matcher awaitConsole(String regex) {
        Pattern pattern = Pattern.compile(regex);
        return await("'" + regex + "' on the console").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20))
                .until(() -> pattern.matcher(console.toString(StandardCharsets.UTF_8)), Matcher::find);
    }

    private ChildSpec spec(List<String> argv) {
        return new ChildSpec("test-child", argv, Optional.empty(), Map.of(), Optional.empty());
    }
}
