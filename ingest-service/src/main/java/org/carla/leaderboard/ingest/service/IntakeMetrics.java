package org.carla.leaderboard.ingest.service;

import java.time.Duration;
import java.time.Instant;
import java.util.Locale;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.NotLaunched;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * The intake's own meters. Received and dead-lettered (by reason) are counted by the shared consumer
 * ({@code leaderboard_queue_received_total}, {@code leaderboard_queue_dead_lettered_total}).
 */
@ApplicationScoped
public class IntakeMetrics {

    private final MeterRegistry registry;

    IntakeMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    public void launched(boolean resume, Instant announcedAt) {
        Counter.builder("ingest.submissions.launched").tag("resume", Boolean.toString(resume))
                .description("Launch requests published").register(registry).increment();
        handled("launched", announcedAt);
    }

    public void notLaunched(NotLaunched.Reason reason, Instant announcedAt) {
        Counter.builder("ingest.submissions.not.launched").tag("reason", tag(reason))
                .description("Submissions not launched, by reason").register(registry).increment();
        handled("not-launched", announcedAt);
    }

    /** A repeated announcement of a submission whose record has moved on: nothing published. */
    public void repeated(Instant announcedAt) {
        Counter.builder("ingest.submissions.repeated")
                .description("Announcements of submissions already launched, dropped").register(registry).increment();
        handled("repeated", announcedAt);
    }

    private void handled(String outcome, Instant announcedAt) {
        // Clock skew between SQS and this host must not make a negative duration.
        Duration took = Duration.between(announcedAt, Instant.now());
        Timer.builder("ingest.submissions.handling").tag("outcome", outcome)
                .description("From EvalAI's announcement on the queue to the decision published")
                .register(registry).record(took.isNegative() ? Duration.ZERO : took);
    }

    private static String tag(NotLaunched.Reason reason) {
        return reason.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
