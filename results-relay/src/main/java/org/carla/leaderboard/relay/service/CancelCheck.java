package org.carla.leaderboard.relay.service;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.carla.leaderboard.domain.event.JobStarted;
import org.carla.leaderboard.domain.status.SubmissionStatus;
import org.carla.leaderboard.relay.client.EvalAiClient;
import org.carla.leaderboard.relay.lease.Standby;
import org.carla.leaderboard.relay.service.IndexedRuns.Found;
import org.carla.leaderboard.relay.service.RunningReports.ReadyPartial;
import org.carla.leaderboard.relay.service.StatusReads.PendingConfirm;
import org.carla.leaderboard.relay.service.StatusReads.PendingStart;
import org.carla.leaderboard.relay.store.SubmissionRecord;
import org.carla.leaderboard.relay.store.SubmissionRecords;
import org.jboss.logging.Logger;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.Scheduler;

/**
 * Notices a cancel on EvalAI for every submission whose run is not over (SUBMITTED, PENDING — its pod waits for
 * capacity — or RUNNING), whether or not it reports progress. The records of those runs come from each leaderboard's
 * index by status (a query per status, never a scan), read again every {@code relay.cancel-check.every} (60 s); per
 * challenge, one EvalAI call lists the challenge's cancelled submissions submitted since the oldest of them
 * ({@link EvalAiClient#cancelledSince}), however many of its submissions run. The list is due when one of the
 * challenge's runs has not been asked about for {@code every} ({@link StatusReads}; a run's submission counts as its
 * first ask, and a status read before an update counts), so a lone submission is asked about once per {@code every}
 * of its life. Right after a list that shows them not cancelled, the updates that waited for it are sent: a run's
 * {@code running}, then its partial results; and at each tick the final statuses whose run's turn has come are
 * confirmed ({@link FinalReports#confirm}). The check ticks every {@code every / 60} (at least 1 s; in memory, no call
 * unless one is due), so a run is asked about at most {@code every} plus half a tick after the last time. A run
 * cancelled there is passed on by {@link CancelRequests} (the record's {@code cancel_requested_run}, then the control
 * object), under the submission's lock and on its record read again.
 */
@ApplicationScoped
public class CancelCheck {

    private static final Logger LOG = Logger.getLogger(CancelCheck.class);

    private final IndexedRuns indexed;
    private final SubmissionRecords records;
    private final EvalAiClient evalAi;
    private final CancelRequests cancels;
    private final SubmissionLocks locks;
    private final StatusReads reads;
    private final RunningReports running;
    private final FinalReports finals;
    private final MeterRegistry registry;

    /** The runs not over by challenge, as the index showed them at the last reading. */
    private volatile Map<Long, List<Found>> byChallenge = Map.of();
    private volatile Instant indexRead = Instant.EPOCH;
    /** The challenges whose last list failed (warned once per outage). */
    private final Set<Long> failing = ConcurrentHashMap.newKeySet();

    CancelCheck(IndexedRuns indexed, SubmissionRecords records, EvalAiClient evalAi, CancelRequests cancels,
            SubmissionLocks locks, StatusReads reads, RunningReports running, FinalReports finals,
            MeterRegistry registry) {
        this.indexed = indexed;
        this.records = records;
        this.evalAi = evalAi;
        this.cancels = cancels;
        this.locks = locks;
        this.reads = reads;
        this.running = running;
        this.finals = finals;
        this.registry = registry;
    }

    void schedule(@Observes StartupEvent started, Scheduler scheduler, Standby standby) {
        reads.every().ifPresent(every -> scheduler.newJob("cancel-check").setInterval(reads.grain().toString())
                .setConcurrentExecution(Scheduled.ConcurrentExecution.SKIP).setSkipPredicate(standby)
                .setTask(execution -> tick(every)).schedule());
    }

    /** One tick: the index read again when {@code every} has passed, then each challenge whose list is due listed. */
    void tick(Duration every) {
        Instant now = Instant.now();
        if (!now.isBefore(indexRead.plus(every).minus(reads.grain().dividedBy(2)))) {
            readIndex();
            indexRead = now;
        }
        // Confirmations first: a list would otherwise count as the run's ask and push its confirmation back.
        for (PendingConfirm confirm : reads.dueConfirms(Instant.now())) {
            long pk = confirm.submission().submissionPk();
            locks.run(pk, () -> finals.confirm(confirm));
        }
        byChallenge.forEach((challengePk, runs) -> {
            if (reads.due(runs.stream().map(CancelCheck::pk).toList(), Instant.now())) {
                check(challengePk, runs);
            }
        });
    }

    /**
     * This replica becomes the active relay: its memory of the runs starts over from the records (the index is read at
     * the next tick), so a run another replica started meanwhile is found unseen and told {@code running} if need be.
     */
    public void beginTerm() {
        reads.newTerm();
        indexRead = Instant.EPOCH;
    }

    /** One check of every run not over now, each challenge listed (the tests run it themselves). */
    public void check() {
        readIndex();
        byChallenge.forEach(this::check);
    }

    /** The runs not over read from the index; a leaderboard that cannot be read now waits for the next reading. */
    private void readIndex() {
        var found = new LinkedHashMap<Long, List<Found>>();
        for (Found run : indexed.find(records::notOver, (leaderboard, e) -> {
            LOG.warnf("cancel check: the records of %s cannot be read now: %s", leaderboard, e.getMessage());
            count("unavailable");
        })) {
            found.computeIfAbsent(run.record().identity().orElseThrow().challengePk(),
                    challenge -> new ArrayList<>()).add(run);
        }
        byChallenge = found;
        Instant now = Instant.now();
        found.values().forEach(runs -> runs.forEach(run -> {
            // Only the scheduled check defers running; without it each start is told at once.
            if (reads.seen(run.record(), now) && reads.every().isPresent()) {
                unannounced(run, now).ifPresent(reads::again);
            }
        }));
        reads.keepOnly(found.values().stream().flatMap(List::stream).map(CancelCheck::pk).collect(Collectors.toSet()));
    }

    /**
     * A running run this process had not seen, with no partial results sent: whether EvalAI was told {@code running}
     * is not known here (the process that handled its start may have stopped before its list), so it is told again
     * after the run's next list (the same update: EvalAI shows {@code running} either way).
     */
    private static Optional<PendingStart> unannounced(Found run, Instant now) {
        var record = run.record();
        if (!record.is(SubmissionStatus.RUNNING) || record.lastResultsDigest() != null || record.cancelRequested()
                || record.jobName() == null || record.identity().isEmpty()) {
            return Optional.empty();
        }
        Instant started = record.times().started() != null ? record.times().started() : now;
        return Optional.of(new PendingStart(JobStarted.of(record.identity().get(), record.run(), record.jobName(),
                started, now), run.destination()));
    }

    private static long pk(Found run) {
        return Long.parseLong(run.record().submissionId());
    }

    private void check(long challengePk, List<Found> runs) {
        // The partial updates waiting for this list are made ready first (records and files read): each is then sent
        // right after the list that shows its run not cancelled, which guards it.
        var ready = new ArrayList<ReadyPartial>();
        var starts = new ArrayList<PendingStart>();
        for (Found run : runs) {
            long pk = pk(run);
            reads.takeStart(pk).ifPresent(starts::add);
            reads.take(pk).ifPresent(partial -> locks.run(pk,
                    () -> running.prepareWaiting(partial).ifPresent(ready::add)));
        }
        Set<Long> cancelled;
        Instant sent = Instant.now();
        try {
            cancelled = evalAi.cancelledSince(challengePk, oldest(runs));
        } catch (RuntimeException e) {
            starts.forEach(reads::again);
            ready.forEach(update -> reads.again(update.partial()));
            evalAi.noteFailure(e);
            unavailable(challengePk, runs.size(), e);
            return;
        }
        if (failing.remove(challengePk)) {
            LOG.infof("cancel check: EvalAI lists challenge %d again", challengePk);
        }
        count("checked");
        for (Found run : runs) {
            long pk = pk(run);
            reads.asked(pk, sent);
            if (cancelled.contains(pk)) {
                locks.run(pk, () -> request(run.record(), run.destination()));
            }
        }
        // The list just showed these runs not cancelled: it guards the updates that waited for it, running first.
        for (PendingStart start : starts) {
            long pk = start.event().submission().submissionPk();
            if (!cancelled.contains(pk)) {
                locks.run(pk, () -> running.relayStart(start, sent));
            }
        }
        for (ReadyPartial update : ready) {
            long pk = update.partial().submission().submissionPk();
            if (!cancelled.contains(pk)) {
                locks.run(pk, () -> running.relayReady(update, sent));
            }
        }
    }

    /**
     * A list that failed, its retries spent: a warning when the challenge's list starts failing (its runs' cancels wait
     * for the next list; a cancel there is not lost, only late), then once a list answers again; debug in between.
     */
    private void unavailable(long challengePk, int runs, RuntimeException e) {
        count("unavailable");
        if (failing.add(challengePk)) {
            LOG.warnf("cancel check: EvalAI cannot list challenge %d now (%d runs not over; their cancels wait for the"
                    + " next list): %s", challengePk, runs, e.getMessage());
        } else {
            LOG.debugf("cancel check: EvalAI still cannot list challenge %d: %s", challengePk, e.getMessage());
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
        return runs.stream().map(run -> StatusReads.submitted(run.record())).min(Comparator.naturalOrder())
                .orElse(Instant.EPOCH);
    }

    private void count(String outcome) {
        registry.counter("relay.cancel.checks", "outcome", outcome).increment();
    }
}
