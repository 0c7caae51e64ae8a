package org.carla.leaderboard.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.carla.leaderboard.localstack.process.FreePort;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Starting and stopping: no server outlives its stack, whether it is closed, signalled or killed. */
class StackLifecycleIT {

    private static final Pattern PID = Pattern.compile("^\\s+sqs\\s+\\S+\\s+pid (\\d+)");

    @Test
    void closingTheStackStopsEveryServerFreesItsPortsAndRemovesItsTemporaryWorkDir() throws Exception {
        int sqsPort = FreePort.onLoopback();
        var stack = LocalStack.builder().components("sqs", "dynamodb", "s3").port("sqs", sqsPort).start();
        List<ProcessHandle> servers = stack.processes();
        var endpoints = List.copyOf(stack.endpoints().values());
        Path workDir = stack.workDir();

        assertThat(servers).hasSize(3).allMatch(ProcessHandle::isAlive);
        assertThat(stack.endpoints().get("sqs")).isEqualTo(URI.create("http://127.0.0.1:" + sqsPort));
        assertThat(workDir.resolve("sqs/sqs.log")).isNotEmptyFile();
        assertThat(workDir.resolve("dynamodb/dynamodb.log")).isNotEmptyFile();
        assertThat(workDir.resolve("s3/s3.log")).isNotEmptyFile();

        stack.close();

        assertThat(servers).noneMatch(ProcessHandle::isAlive);
        for (URI endpoint : endpoints) {
            assertThat(refusesConnections(endpoint)).as("%s refuses connections", endpoint).isTrue();
        }
        assertThat(workDir).doesNotExist();
    }

    @Test
    void aFixedPortAlreadyTakenFailsFastAndLeavesNothingRunning(@TempDir Path workDir) throws Exception {
        try (var taken = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            long started = System.nanoTime();
            var builder = LocalStack.builder().components("sqs").port("sqs", taken.getLocalPort()).workDir(workDir);

            assertThatThrownBy(builder::start).hasMessageContaining("sqs").hasMessageContaining("bind");

            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(60));
            assertThat(ProcessHandle.current().children().map(ProcessHandle::info)
                    .flatMap(info -> info.arguments().stream()).flatMap(Arrays::stream))
                    .noneMatch(argument -> argument.contains(workDir.toString()));
        }
    }

    @Test
    void sigtermStopsTheMainAndItsServers(@TempDir Path workDir) throws Exception {
        var output = workDir.resolve("main.out");
        var main = startMain(workDir, output);
        long server = awaitServerPid(main, output);

        main.destroy();

        assertThat(main.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(Files.readString(output)).as("exit code %d", main.exitValue()).contains("local stack stopped");
        assertThat(ProcessHandle.of(server).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        assertThat(workDir.resolve("stack/sqs/sqs.log")).as("an explicit work dir is kept").isNotEmptyFile();
    }

    @Test
    void aKilledOwnerLeavesNoServerBehind(@TempDir Path workDir) throws Exception {
        var output = workDir.resolve("main.out");
        var main = startMain(workDir, output);
        long server = awaitServerPid(main, output);

        main.destroyForcibly(); // SIGKILL: no shutdown hook runs; the server notices its stdin closing

        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
                .until(() -> ProcessHandle.of(server).map(p -> !p.isAlive()).orElse(true));
    }

    private static Process startMain(Path workDir, Path output) throws IOException {
        var command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), LocalStackMain.class.getName(),
                "--components", "sqs", "--work-dir", workDir.resolve("stack").toString());
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
    }

    private static long awaitServerPid(Process main, Path output) throws IOException {
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
                .failFast("the local stack exited", () -> !main.isAlive())
                .until(() -> Files.readString(output).contains(LocalStackMain.READY_LINE));
        return Files.readAllLines(output).stream().map(PID::matcher).filter(Matcher::find)
                .mapToLong(m -> Long.parseLong(m.group(1))).findFirst().orElseThrow();
    }

    private static boolean refusesConnections(URI endpoint) throws IOException {
        try (var socket = new Socket(endpoint.getHost(), endpoint.getPort())) {
            return false;
        } catch (ConnectException e) {
            return true;
        }
    }
}
