package org.carla.leaderboard.localstack.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerProcessTests {

    private static final String EARLIER_START = "== java ... (the start before)\n"
            + "Exception in thread \"main\" java.net.BindException: Address already in use\n";

    @TempDir
    Path work;

    /**
     * A start that lost its port to another process leaves its BindException in the server's log, and the retry on
     * another port appends to that log: the retry is judged on its own lines, so it comes up.
     */
    @Test
    void aRetryIsNotFailedByTheBindErrorOfTheStartBefore() throws Exception {
        Path log = Files.writeString(work.resolve("sqs.log"), EARLIER_START);
        ServerProcess retry = ServerProcess.start("sqs", List.of("/bin/sh", "-c", "echo listening; exec sleep 30"),
                work, log);
        try {
            retry.awaitReady(Duration.ofSeconds(20), () -> {
                if (!Files.readString(log).contains("listening")) {
                    throw new IllegalStateException("not yet");
                }
            });
            assertThat(retry.isAlive()).isTrue();
        } finally {
            retry.kill();
        }
    }

    @Test
    void aStartThatCannotBindItsPortFailsRetryably() throws Exception {
        Path log = work.resolve("sqs.log");
        ServerProcess start = ServerProcess.start("sqs", List.of("/bin/sh", "-c",
                "echo 'java.net.BindException: Address already in use'; exec sleep 30"), work, log);
        try {
            assertThatThrownBy(() -> start.awaitReady(Duration.ofSeconds(20), () -> {
                throw new IllegalStateException("no listener");
            })).isInstanceOfSatisfying(ServerStartException.class, e -> {
                assertThat(e.retryable()).isTrue();
                assertThat(e.getMessage()).contains("could not bind its port");
            });
        } finally {
            start.kill();
        }
    }
}
