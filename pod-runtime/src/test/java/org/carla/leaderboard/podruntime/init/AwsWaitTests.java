package org.carla.leaderboard.podruntime.init;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import software.amazon.awssdk.core.exception.SdkClientException;

/** init waits for S3 with a back-off instead of failing its container (a restart the Job counts) at the first error. */
class AwsWaitTests {

    private final List<Duration> pauses = new ArrayList<>();
    private final AwsWait wait = new AwsWait(Duration.ofSeconds(1), Duration.ofSeconds(30), Duration.ofMinutes(10),
            pauses::add);

    @Test
    void anOutageIsWaitedOutDoublingThePauseToItsMost() {
        var calls = new AtomicInteger();

        boolean answer = wait.untilAnswered("test", () -> {
            if (calls.incrementAndGet() <= 7) {
                throw SdkClientException.create("connection refused");
            }
            return true;
        });

        assertThat(answer).isTrue();
        assertThat(pauses).extracting(Duration::toSeconds).containsExactly(1L, 2L, 4L, 8L, 16L, 30L, 30L);
    }

    @Test
    void anOutageLongerThanThePatienceFailsWithItsError() {
        assertThatThrownBy(() -> wait.untilAnswered("test", () -> {
            throw SdkClientException.create("connection refused");
        })).hasMessageContaining("connection refused");
        assertThat(pauses.stream().mapToLong(Duration::toSeconds).sum()).isLessThanOrEqualTo(600);
    }
}
