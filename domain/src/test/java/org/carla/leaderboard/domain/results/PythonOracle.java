package org.carla.leaderboard.domain.results;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a short Python 3 script as the oracle of Python's own float semantics ({@code round}, {@code repr}, the
 * order of float additions). The scripts are re-statements of {@code docs/results.md}, not the
 * Leaderboard's code. Tests that need it are skipped where no {@code python3} is installed.
 */
final class PythonOracle {

    private PythonOracle() {
    }

    static String run(Path workDir, String script, String input) throws IOException, InterruptedException {
        String python = System.getenv().getOrDefault("PYTHON3", "python3");
        Path scriptFile = workDir.resolve("oracle.py");
        Path inputFile = workDir.resolve("oracle-input.txt");
        Path outputFile = workDir.resolve("oracle-output.txt");
        Files.writeString(scriptFile, script, StandardCharsets.UTF_8);
        Files.writeString(inputFile, input, StandardCharsets.UTF_8);
        Process process;
        try {
            process = new ProcessBuilder(List.of(python, scriptFile.toString()))
                    .redirectInput(inputFile.toFile())
                    .redirectOutput(outputFile.toFile())
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
        } catch (IOException e) {
            assumeTrue(false, "no python3 here: " + e.getMessage());
            throw e;
        }
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("the Python oracle did not finish in 60 s");
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException("the Python oracle failed with exit code " + process.exitValue());
        }
        return Files.readString(outputFile, StandardCharsets.UTF_8);
    }
}
