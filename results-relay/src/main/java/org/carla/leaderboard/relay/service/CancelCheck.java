package org.carla.leaderboard.relay.service;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.relay.client.EvalAiClient;
import org.carla.leaderboard.relay.service.IndexedRuns.Found;
import org.carla.leaderboard.relay.store.SubmissionRecord;
import org.carla.leaderboard.relay.store.SubmissionRecords;
import org.jboss.logging.Logger;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.scheduler.Scheduled;

/**
 * Notices a cancel on EvalAI for every submission whose run is not over (SUBMITTED, PENDING — its pod waits for
 * capacity — or RUNNING), whether or not it reports progress, every {@code relay.cancel-check.every} (60 s). The
 * records of those runs come from each leaderboard's index by status (a query per status, never a scan); per
 * challenge, one EvalAI call lists the challenge's cancelled submissions submitted since the oldest of them
 * ({@link EvalAiClient#cancelledSince}), however many of its submissions run. A run cancelled there is passed on by {@link CancelRequests} (the record's
 * {@code cancel_requested_run}, then the control object), under the submission's lock and on its record read again.
 */
@ApplicationScoped
public class CancelCheck {

    private static final Logger LOG = Logger.getLogger(CancelCheck.class);

    private final IndexedRuns indexed;
    private final SubmissionRecords records;
    private final EvalAiClient evalAi;
    private final CancelRequests cancels;
    private final SubmissionLocks locks;
    private final MeterRegistry registry;

    CancelCheck(IndexedRuns indexed, SubmissionRecords records, EvalAiClient evalAi, CancelRequests cancels,
            SubmissionLocks locks, MeterRegistry registry) {
        this.indexed = indexed;
        this.records = records;
        this.evalAi = evalAi;
        this.cancels = cancels;
        this.locks = locks;
        this.registry = registry;
    }

    @Scheduled(identity = "cancel-check", every = "${relay.cancel-check.every}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void scheduled() {
        check();
    }

    /** One check of every run not over; a leaderboard or challenge that cannot be read now waits for the next. */
    public void check() {
        var byChallenge = new LinkedHashMap<Long, List<Found>>();
        for (Found run : indexed.find(records::notOver, (leaderboard, e) -> {
            LOG.warnf("cancel check: the records of %s cannot be read now: %s", leaderboard, e.getMessage());
            count("unavailable");
        })) {
            byChallenge.computeIfAbsent(run.record().identity().orElseThrow().challengePk(),
                    challenge -> new ArrayList<>()).add(run);
        }
        byChallenge.forEach(this::check);
    }

    private void check(long challengePk, List<Found> runs) {
        Set<Long> cancelled;
        try {
            cancelled = evalAi.cancelledSince(challengePk, oldest(runs));
        } catch (RuntimeException e) {
            evalAi.noteFailure(e);
            LOG.debugf("cancel check: EvalAI cannot list challenge %d now: %s", challengePk, e.getMessage());
            count("unavailable");
            return;
        }
        count("checked");
        for (Found run : runs) {
            long pk = Long.parseLong(run.record().submissionId());
            if (cancelled.contains(pk)) {
                locks.run(pk, () -> request(run.record(), run.destination()));
            }
        }
    }

    private void request(SubmissionRecord seen, Destination destination) {
        try {
            records.find(destination.table(), seen.teamId(), seen.submissionId())
                    .filter(record -> record.run() == seen.run() && !record.isTerminal())
                    .ifPresent(record -> cancels.request(record, destination));
        } catch (RuntimeException e) {
            LOG.warnf("cancel check: submission %s cancelled on EvalAI, not passed on yet: %s", seen.submissionId(),
                    e.getMessage());
        }
    }

    /** When the oldest of them was submitted; a record without a readable time lists the whole challenge. */
    private static Instant oldest(List<Found> runs) {
        return runs.stream().map(run -> submitted(run.record())).min(Comparator.naturalOrder())
                .orElse(Instant.EPOCH);
    }

    private static Instant submitted(SubmissionRecord record) {
        try {
            return record.submittedTime() == null ? Instant.EPOCH : Instant.parse(record.submittedTime());
        } catch (DateTimeParseException e) {
            return Instant.EPOCH;
        }
    }

    private void count(String outcome) {
        registry.counter("relay.cancel.checks", "outcome", outcome).increment();
    }
}
