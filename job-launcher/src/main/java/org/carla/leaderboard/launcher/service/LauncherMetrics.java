package org.carla.leaderboard.launcher.service;

import java.time.Duration;
import java.time.Instant;
import java.util.function.IntSupplier;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.JobFinished.Outcome;
import org.carla.leaderboard.domain.metrics.LiveGauge;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

/** What an operator watches: Jobs created, running, finished by outcome, and how long a request waited for its Job. */
@ApplicationScoped
public class LauncherMetrics {

    private final MeterRegistry registry;
    private final Counter created;
    private final Counter repeated;
    private final Timer launchDelay;

    LauncherMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.created = Counter.builder("leaderboard.launcher.jobs.created")
                .description("Submission Jobs created").register(registry);
        this.repeated = Counter.builder("leaderboard.launcher.requests.repeated")
                .description("Launch requests whose Job already existed").register(registry);
        this.launchDelay = Timer.builder("leaderboard.launcher.launch.delay")
                .description("Time from the launch request (requested_at) to its Job created").register(registry);
    }

    void jobCreated(Instant requestedAt, Instant createdAt) {
        created.increment();
        Duration delay = Duration.between(requestedAt, createdAt);
        launchDelay.record(delay.isNegative() ? Duration.ZERO : delay);
    }

    void requestRepeated() {
        repeated.increment();
    }

    void requestRefused(String reason) {
        Counter.builder("leaderboard.launcher.requests.refused").tag("reason", reason)
                .description("Launch requests refused: their run is not the record's current one, has ended, or the "
                        + "record is final or missing")
                .register(registry).increment();
    }

    void runStarted(Duration waitedForCapacity) {
        Timer.builder("leaderboard.launcher.capacity.wait")
                .description("Time from the Job's start to its pod's start: the wait for GPU capacity")
                .register(registry).record(waitedForCapacity.isNegative() ? Duration.ZERO : waitedForCapacity);
    }

    void jobDeleted(String reason) {
        Counter.builder("leaderboard.launcher.jobs.deleted").tag("reason", reason)
                .description("Jobs the launcher deleted before they finished, by reason").register(registry)
                .increment();
    }

    void jobFinished(Outcome outcome, String reason) {
        Counter.builder("leaderboard.launcher.jobs.finished").tag("outcome", outcome.name().toLowerCase())
                .tag("reason", reason == null ? "none" : reason)
                .description("Submission Jobs finished and reported, by outcome").register(registry).increment();
    }

    void jobUnreportable() {
        Counter.builder("leaderboard.launcher.jobs.unreportable")
                .description("Finished Jobs whose submission annotation cannot be read: left for an operator")
                .register(registry).increment();
    }

    void reportFailed() {
        Counter.builder("leaderboard.launcher.reports.failed")
                .description("Attempts to report a finished Job that failed and will be retried").register(registry)
                .increment();
    }

    /** Registers the gauge of the Jobs not finished yet, read from {@code running}. */
    void watchRunning(IntSupplier running) {
        LiveGauge.register(registry, "leaderboard.launcher.jobs.running", Tags.empty(),
                "Submission Jobs not finished yet (running or waiting for admission)", running,
                IntSupplier::getAsInt);
    }
}
