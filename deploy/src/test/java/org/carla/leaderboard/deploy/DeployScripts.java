package org.carla.leaderboard.deploy;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Runs a script of deploy/ as an operator does: bash, arguments as they are (no shell string), output kept apart. */
final class DeployScripts {

    record Run(int exitCode, String out, String err) {
    }

    private DeployScripts() {
    }

    static Run run(String script, String... arguments) {
        return run(null, script, arguments);
    }

    /** With {@code aws} on the PATH answered by the fake, when there is one. */
    static Run run(FakeAwsCli aws, String script, String... arguments) {
        List<String> command = new ArrayList<>(List.of("bash", DeployFiles.deploy(script).toString()));
        command.addAll(List.of(arguments));
        ProcessBuilder builder = new ProcessBuilder(command);
        if (aws != null) {
            builder.environment().put("PATH", aws.folder() + ":" + System.getenv("PATH"));
            builder.environment().put("FAKE_AWS_ANSWERS", aws.folder().toString());
        }
        try {
            Process process = builder.start();
            process.getOutputStream().close();
            CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
            String out = read(process.getInputStream());
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError(script + " did not finish within 60 s");
            }
            return new Run(process.exitValue(), out, err.join());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static String read(InputStream stream) {
        try {
            return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
