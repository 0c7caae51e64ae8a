package org.carla.leaderboard.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Benchmarks 2 to 7 at smoke size, as {@code benchmarks/run.sh --smoke --only N} runs them: a change that breaks a
 * benchmark (it fails, or measures nothing) fails the build. The figures are not judged: a smoke run on a busy build
 * machine misses targets; what it must do is measure. Benchmark 1, which mostly waits on its baseline's sleeps, runs
 * beside these in a JVM of its own ({@link SupervisionSmokeIT}).
 */
class BenchmarkSmokeIT {

    /** Failsafe runs in the module's folder; the harness works from the repository's. */
    static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern ROW = Pattern.compile("^\\| (\\w+) \\|", Pattern.MULTILINE);

    static Stream<Arguments> benchmarks() {
        return Stream.of(Arguments.of(2, List.of("2a", "2b")),
                Arguments.of(3, List.of("3a", "3b", "3c", "3d", "4c", "4d")),
                Arguments.of(4, List.of("4a", "4b")),
                Arguments.of(5, List.of("5a", "5b")),
                Arguments.of(6, List.of("6a", "6b", "6c", "6d", "6e", "6f")),
                Arguments.of(7, List.of("7a", "7b")));
    }

    @ParameterizedTest(name = "benchmark {0}")
    @MethodSource("benchmarks")
    void measuresEachOfItsRows(int benchmark, List<String> rows) throws Exception {
        assertMeasured(smoke(benchmark, "benchmark-" + benchmark), rows);
    }

    /** Runs benchmark {@code n} as {@code --smoke --only n}; its table goes to {@code target/smoke/<name>.md}. */
    static BenchmarkRun.Result smoke(int n, String name, String... more) throws Exception {
        var args = Stream.concat(Stream.of("--smoke", "--only", Integer.toString(n), "--repo", REPO.toString(),
                "--out", REPO.resolve("benchmarks/target/smoke/" + name + ".md").toString()), Stream.of(more))
                .toArray(String[]::new);
        return BenchmarkRun.run(BenchmarkRun.Options.parse(args));
    }

    /** Measured: no reason against its figures, and exactly its rows in the table. */
    static void assertMeasured(BenchmarkRun.Result result, List<String> rows) {
        assertThat(result.reasons()).as("why the figures cannot be trusted, in\n%s", result.text()).isEmpty();
        assertThat(ROW.matcher(result.text()).results().map(row -> row.group(1)).distinct())
                .as(result.text()).containsExactlyElementsOf(rows);
    }
}
