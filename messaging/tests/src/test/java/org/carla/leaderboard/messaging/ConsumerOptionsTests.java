package org.carla.leaderboard.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;

/** The back-off that makes a queue ride out an outage, and the configuration group every service nests. */
class ConsumerOptionsTests {

    /** The queues' redrive policy (deploy/aws, local-stack): moved to the dead-letter queue on the 201st receive. */
    static final int MAX_RECEIVE_COUNT = 200;

    @ConfigMapping(prefix = "service")
    interface ServiceConfig {
        ConsumerConfig consumer();

        ConsumerConfig progress();
    }

    @Test
    void theBackOffDoublesFromTwoSecondsUpToFifteenMinutes() {
        var options = ConsumerOptions.defaults();
        assertThat(IntStream.rangeClosed(1, 11).mapToObj(options::backoffAfter).map(Duration::toSeconds))
                .containsExactly(2L, 4L, 8L, 16L, 32L, 64L, 128L, 256L, 512L, 900L, 900L);
        assertThat(options.backoffAfter(MAX_RECEIVE_COUNT)).isEqualTo(Duration.ofMinutes(15));
        assertThat(options.backoffAfter(Integer.MAX_VALUE)).isEqualTo(Duration.ofMinutes(15));
    }

    @Test
    void twoHundredReceivesRideOutAboutFiftyHoursOfOutage() {
        var options = ConsumerOptions.defaults();
        // The waits after receives 1..200; the handling time of each attempt comes on top.
        Duration waited = IntStream.rangeClosed(1, MAX_RECEIVE_COUNT).mapToObj(options::backoffAfter)
                .reduce(Duration.ZERO, Duration::plus);
        assertThat(waited.toSeconds()).isEqualTo(1022 + 191 * 900);
        assertThat(waited).isBetween(Duration.ofHours(47), Duration.ofHours(49));
        assertThat(waited).isLessThan(Duration.ofDays(14)); // the queues' retention
    }

    @Test
    void aBackOffSqsCannotHonourIsRefused() {
        var options = ConsumerOptions.defaults();
        assertThatThrownBy(() -> options.withRetryBackoff(Duration.ofSeconds(2), Duration.ofHours(13)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("12 h");
        assertThatThrownBy(() -> options.withRetryBackoff(Duration.ofMinutes(2), Duration.ofMinutes(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> options.withLivenessMargin(Duration.ofMillis(10)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void noStepOfAHealthyPollLoopReachesTheLivenessBound() {
        var options = ConsumerOptions.defaults();
        assertThat(options.stalledAfter()).isEqualTo(Duration.ofSeconds(80));
        assertThat(options.receiveTimeout()).isEqualTo(Duration.ofSeconds(50)).isLessThan(options.stalledAfter());
        assertThat(options.pollStep()).isEqualTo(Duration.ofSeconds(30)).isLessThan(options.stalledAfter());
    }

    @Test
    void theGroupNestedInAServiceMappingHasTheDefaultsAndTakesOverrides() {
        var config = new SmallRyeConfigBuilder().withMapping(ServiceConfig.class)
                .withSources(new PropertiesConfigSource(Map.of(
                        "service.consumer.max-in-flight", "4",
                        "service.consumer.visibility-timeout", "PT60S",
                        "service.progress.wait-time", "PT5S"), "test", 100))
                .build().getConfigMapping(ServiceConfig.class);

        assertThat(config.consumer().options()).isEqualTo(ConsumerOptions.defaults().withMaxInFlight(4)
                .withVisibilityTimeout(Duration.ofSeconds(60)));
        assertThat(config.progress().options()).isEqualTo(ConsumerOptions.defaults()
                .withWaitTime(Duration.ofSeconds(5)));
    }

    @Test
    @SuppressWarnings("removal")
    void theOptionsBeforeTheGroupNoLongerCountReceives() {
        var options = new ConsumerOptions(10, Duration.ofSeconds(20), Duration.ofSeconds(60), 5,
                Duration.ofSeconds(5), Duration.ofMinutes(5));
        assertThat(options.backoffAfter(6)).isEqualTo(Duration.ofMinutes(2).plusSeconds(40));
        assertThat(options.livenessMargin()).isEqualTo(ConsumerOptions.defaults().livenessMargin());
    }
}
