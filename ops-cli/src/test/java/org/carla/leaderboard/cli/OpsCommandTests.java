package org.carla.leaderboard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.quarkus.test.junit.main.Launch;
import io.quarkus.test.junit.main.LaunchResult;
import io.quarkus.test.junit.main.QuarkusMainLauncher;
import io.quarkus.test.junit.main.QuarkusMainTest;

/**
 * The command line as an operator meets it before any console answers: its help, its refusals of bad usage, no token,
 * an unreachable console. Its work against a real ops-console is tested in ops-console's local run test.
 */
@QuarkusMainTest
class OpsCommandTests {

    @Test
    @Launch("--help")
    void helpListsEveryCommand(LaunchResult result) {
        assertThat(result.exitCode()).isZero();
        assertThat(result.getOutput()).contains("submissions", "show", "cancel", "resume", "stuck", "health",
                "dead-letters", "redrive", "Exit status");
    }

    @Test
    void redriveNeedsTheMessagesOrAll(QuarkusMainLauncher launcher) {
        LaunchResult result = launcher.launch("redrive", "submissions");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.getErrorOutput()).contains("--message", "--all");
    }

    @Test
    void aSubmissionIsANumber(QuarkusMainLauncher launcher) {
        LaunchResult result = launcher.launch("cancel", "12;rm");

        assertThat(result.exitCode()).isEqualTo(2);
        assertThat(result.getErrorOutput()).contains("SUBMISSION");
    }

    @Test
    void withoutATokenNothingIsSent(QuarkusMainLauncher launcher) {
        LaunchResult result = launcher.launch("stuck", "--url", "http://127.0.0.1:1");

        // The test JVM has no OPS_TOKEN (CI sets none): the token is asked for before any connection.
        assertThat(System.getenv("OPS_TOKEN")).isNull();
        assertThat(result.exitCode()).isEqualTo(1);
        assertThat(result.getErrorOutput()).contains("no operator token: set OPS_TOKEN or pass --token-file FILE");
    }

    @Test
    void anUnreachableConsoleIsSaidSo(QuarkusMainLauncher launcher, @TempDir Path dir) throws Exception {
        Path token = Files.writeString(dir.resolve("token"), "some-operator-token-value\n");

        LaunchResult result = launcher.launch("health", "--url", "http://127.0.0.1:1", "--token-file",
                token.toString());

        assertThat(result.exitCode()).isEqualTo(3);
        assertThat(result.getErrorOutput()).contains("cannot reach ops-console at http://127.0.0.1:1/")
                .doesNotContain("some-operator-token-value");
    }

    @Test
    void tokensComeFromTheFileFirstThenTheEnvironment(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("token"), "  from-file \n");

        assertThat(ConsoleApi.token(file, Map.of("OPS_TOKEN", "from-env"))).isEqualTo("from-file");
        assertThat(ConsoleApi.token(null, Map.of("OPS_TOKEN", "from-env"))).isEqualTo("from-env");
    }

    @Test
    void aPairOfARunOfSeveralPodsIsNamedWithItsPod() throws Exception {
        var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
        assertThat(ShowCommand.pairLine(mapper.readTree(
                "{\"pair\": 1, \"state\": \"running\", \"attempt\": 2, \"crashes\": 1, \"pod\": 3}")))
                .isEqualTo("  pod 3 pair 1: running, attempt 2, 1 crash files");
        assertThat(ShowCommand.pairLine(mapper.readTree(
                "{\"pair\": 2, \"state\": \"done\", \"attempt\": 1, \"crashes\": 0, \"pod\": null}")))
                .isEqualTo("  pair 2: done, attempt 1, 0 crash files");
    }

    @Test
    void hostileTextIsPrintedWithoutItsControlCharacters() {
        assertThat(Text.printable("Team\u0000\u001b[31mred\uFFFE")).isEqualTo("Team??[31mred?");
    }
}
