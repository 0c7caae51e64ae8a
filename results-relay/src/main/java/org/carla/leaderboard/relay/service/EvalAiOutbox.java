package org.carla.leaderboard.relay.service;

import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.carla.leaderboard.domain.evalai.EvalAiRejectedException;
import org.carla.leaderboard.domain.event.JobStarted;
import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.status.EvalAiStatus;
import org.carla.leaderboard.domain.status.SubmissionStatus;
import org.carla.leaderboard.relay.client.EvalAiClient;
import org.carla.leaderboard.relay.client.Evaluation;
import org.carla.leaderboard.relay.config.RelayConfig;
import org.carla.leaderboard.relay.lease.Standby;
import org.carla.leaderboard.relay.service.IndexedRuns.Found;
import org.carla.leaderboard.relay.service.RunningReports.ReadyPartial;
import org.carla.leaderboard.relay.store.SubmissionRecord;
import org.carla.leaderboard.relay.store.SubmissionRecords;
import org.jboss.logging.Logger;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.Scheduler;

/**
 * Every call the relay makes to EvalAI, and when. EvalAI is asked about a run at most once a {@link Cadence} interval
 * ({@code relay.cancel-check.every}, 60 s) of its life, and each update rides on an ask:
 * <ul>
 * <li>per challenge, one list of its cancelled submissions asks about all its runs not over ({@link ListWindows}: one
 * list per group of runs submitted close together), due when one of them is; a run's submission counts as its first
 * ask. The runs not over come from the tables' index by status, read again on the same cadence, and from the updates
 * enqueued meanwhile;</li>
 * <li>a run's {@code running} update and its partial results wait here for the run's next list and go right after the
 * list shows it not cancelled: EvalAI takes either over {@code cancelled} (it has no conditional update), so the list
 * guards them and a cancel made before it is never hidden. The partial update is made ready (record and files read)
 * before the list is sent, so the two follow each other closely; a newer report replaces a waiting one;</li>
 * <li>a final report goes at once ({@link #send}), and the read confirming it at the run's next turn; a final recorded
 * before and maybe sent (a relay killed in between, another replica, the stuck rule) is read first and sent again only
 * if EvalAI shows another status;</li>
 * <li>a run cancelled on EvalAI is passed on ({@link CancelRequests#passOn}).</li>
 * </ul>
 * It ticks every {@link Cadence#tick()} on the injected {@link Clock}, on the active replica only ({@link Standby});
 * what does not fit this service's share of EvalAI's throttle waits for a later tick (the list) or the run's next list
 * (an update). What it holds is in memory: after a restart or a new term the runs are found again in the index, a
 * waiting partial comes again with the run's next report, a {@code running} of a run not seen running before is sent
 * again after its list ({@link RunningReports#unannounced}), and a final not confirmed is left to the stuck rule
 * {@code unconfirmed-final}.
 */
@ApplicationScoped
public class EvalAiOutbox {

    private static final Logger LOG = Logger.getLogger(EvalAiOutbox.class);

    private final EvalAiClient evalAi;
    private final Clock clock;
    private final Cadence cadence;
    private final IndexedRuns indexed;
    private final SubmissionRecords records;
    private final RunningReports running;
    private final FinalReports finals;
    private final CancelRequests cancels;
    private final SubmissionLocks locks;
    private final MeterRegistry registry;

    /** What the outbox knows of each run, by submission pk; guarded by this. */
    private final Map<Long, Turn> turns = new HashMap<>();
    /** When the index of runs not over was last read; guarded by this. */
    private Instant indexRead = Instant.MIN;
    /** The challenges whose last list failed (warned once per outage). */
    private final Set<Long> failing = ConcurrentHashMap.newKeySet();

    EvalAiOutbox(EvalAiClient evalAi, Clock clock, RelayConfig config, IndexedRuns indexed, SubmissionRecords records,
            RunningReports running, FinalReports finals, CancelRequests cancels, SubmissionLocks locks,
            MeterRegistry registry) {
        this.evalAi = evalAi;
        this.clock = clock;
        this.cadence = new Cadence(config.cancelCheck().every());
        this.indexed = indexed;
        this.records = records;
        this.running = running;
        this.finals = finals;
        this.cancels = cancels;
        this.locks = locks;
        this.registry = registry;
    }

    void schedule(@Observes StartupEvent started, Scheduler scheduler, Standby standby) {
        scheduler.newJob("evalai-outbox").setInterval(cadence.tick().toString())
                .setConcurrentExecution(Scheduled.ConcurrentExecution.SKIP).setSkipPredicate(standby)
                .setTask(execution -> tick()).schedule();
    }

    /** The {@code running} update of a run whose pod started: after the run's next list. */
    void start(Start start) {
        synchronized (this) {
            Turn turn = turn(start.record(), start.destination());
            turn.start = start;
            turn.runningSeen = Math.max(turn.runningSeen, start.event().run());
        }
    }

    /** A run's news: its partial update after the run's next list, in place of an older one waiting. */
    void partial(Partial partial) {
        synchronized (this) {
            turn(partial.record(), partial.destination()).partial = partial;
        }
    }

    /** Whether this run's final report waits here for its confirmation (a repeat of the run's end adds nothing). */
    synchronized boolean confirming(long pk, int run) {
        Turn turn = turns.get(pk);
        return turn != null && turn.confirmation != null && turn.confirmation.record().run() == run;
    }

    /**
     * A run's final report, recorded: sent now (the caller's message waits on its queue if it fails), then confirmed at
     * the run's next turn; one recorded before is only read first, at that turn.
     */
    void send(Final report) {
        if (!report.confirmFirst()) {
            evalAi.sendFinal(report.submission(), report.status(), report.evaluation());
            finals.sent(report);
        }
        synchronized (this) {
            Turn turn = turn(report.record(), report.destination());
            turn.confirmation = report;
            turn.over();
        }
    }

    /**
     * This replica becomes the active relay: what it knew of the runs may be stale (another replica acted meanwhile),
     * so it starts over from the index at the next tick; the confirmations of finals it sent are kept.
     */
    public synchronized void beginTerm() {
        indexRead = Instant.MIN;
        turns.values().removeIf(turn -> turn.confirmation == null);
        turns.values().forEach(Turn::over);
    }

    /** One tick: the index read again when due, the confirmations whose turn came, then each challenge due listed. */
    void tick() {
        if (indexDue()) {
            readIndex();
        }
        // Confirmations first: a list would count as the run's ask and push its confirmation back.
        for (Final confirmation : dueConfirmations()) {
            locks.run(confirmation.submission().submissionPk(), () -> confirm(confirmation));
        }
        dueChallenges().forEach(this::list);
    }

    private synchronized boolean indexDue() {
        return cadence.due(indexRead, clock.instant());
    }

    /**
     * The runs not over, as the index shows them now. A run found running that this process has not seen running (not
     * known before, or known only before its start: its start handled by another replica) may need its running again.
     */
    private void readIndex() {
        Instant started = clock.instant();
        boolean[] whole = { true };
        var found = indexed.find(records::notOver, (leaderboard, e) -> {
            whole[0] = false;
            LOG.warnf("EvalAI outbox: the records of %s cannot be read now: %s", leaderboard, e.getMessage());
            count("unavailable");
        });
        synchronized (this) {
            indexRead = started;
            var seen = new HashSet<Long>();
            for (Found run : found) {
                var record = run.record();
                Turn turn = turn(record, run.destination());
                seen.add(turn.pk);
                if (record.is(SubmissionStatus.RUNNING) && turn.runningSeen < record.run()) {
                    turn.runningSeen = record.run();
                    if (turn.start == null) {
                        turn.start = RunningReports.unannounced(run, started).orElse(null);
                    }
                }
            }
            if (whole[0]) {
                forgetOver(seen, started);
            }
        }
    }

    /** The runs the index no longer shows, unless an update said otherwise since the reading began. */
    private void forgetOver(Set<Long> notOver, Instant reading) {
        turns.values().removeIf(turn -> {
            if (notOver.contains(turn.pk) || turn.touched.isAfter(reading)) {
                return false;
            }
            turn.over();
            return turn.confirmation == null;
        });
    }

    /** The confirmations whose run's turn came; each stays in place until it is done (a repeat still finds it). */
    private synchronized List<Final> dueConfirmations() {
        Instant now = clock.instant();
        var due = new ArrayList<Final>();
        for (Turn turn : turns.values()) {
            if (turn.confirmation != null && cadence.due(turn.lastAsk, now)) {
                due.add(turn.confirmation);
            }
        }
        return due;
    }

    /** A confirmation done (confirmed, or no longer the run's): forgotten, with its run if nothing else is pending. */
    private synchronized void done(Final report) {
        long pk = report.submission().submissionPk();
        Turn turn = turns.get(pk);
        if (turn != null && turn.confirmation == report) {
            turn.confirmation = null;
            if (turn.notOver == null) {
                turns.remove(pk);
            }
        }
    }

    /** The runs not over of each challenge of which one is due to be asked about. */
    private synchronized Map<Long, List<Listed>> dueChallenges() {
        Instant now = clock.instant();
        var byChallenge = new LinkedHashMap<Long, List<Listed>>();
        var due = new HashSet<Long>();
        for (Turn turn : turns.values()) {
            if (turn.notOver != null) {
                byChallenge.computeIfAbsent(turn.challengePk, key -> new ArrayList<>())
                        .add(new Listed(turn.pk, turn.submitted, turn.notOver));
                if (cadence.due(turn.lastAsk, now)) {
                    due.add(turn.challengePk);
                }
            }
        }
        byChallenge.keySet().retainAll(due);
        return byChallenge;
    }

    /**
     * One list of the challenge's runs: the updates waiting for it taken and made ready, the lists sent, the cancels
     * passed on, then the updates of the runs not cancelled sent, {@code running} first.
     */
    private void list(long challengePk, List<Listed> runs) {
        var starts = new ArrayList<Start>();
        var partials = new ArrayList<Partial>();
        take(runs, starts, partials);
        var ready = new ArrayList<ReadyPartial>();
        for (Partial partial : partials) {
            locks.run(partial.submission().submissionPk(), () -> prepare(partial).ifPresent(ready::add));
        }
        var groups = ListWindows.cover(runs, Listed::submitted);
        if (evalAi.permits() < groups.size()) {
            // The budget is spent for now: the list and what waits for it go at a later tick.
            starts.forEach(this::again);
            ready.forEach(update -> again(update.partial()));
            return;
        }
        var cancelled = new HashSet<Long>();
        var asked = new HashSet<Long>();
        for (var group : groups) {
            // An attempt counts as the runs' ask whatever its answer: a list EvalAI does not answer is tried again at
            // the runs' next turn, not at every tick.
            asked(group.runs(), clock.instant());
            try {
                cancelled.addAll(evalAi.cancelledIn(challengePk, group.window()));
            } catch (RuntimeException e) {
                evalAi.noteFailure(e);
                unavailable(challengePk, runs.size(), e);
                continue;
            }
            group.runs().forEach(run -> asked.add(run.pk()));
        }
        if (asked.isEmpty()) {
            starts.forEach(this::again);
            ready.forEach(update -> again(update.partial()));
            return;
        }
        if (failing.remove(challengePk)) {
            LOG.infof("EvalAI outbox: EvalAI lists challenge %d again", challengePk);
        }
        count("checked");
        for (Listed run : runs) {
            if (asked.contains(run.pk()) && cancelled.contains(run.pk())) {
                locks.run(run.pk(), () -> cancels.passOn(run.found()));
            }
        }
        for (Start start : starts) {
            relayAfterList(start.event().submission().submissionPk(), asked, cancelled, () -> relayStart(start),
                    () -> again(start));
        }
        for (ReadyPartial update : ready) {
            relayAfterList(update.partial().submission().submissionPk(), asked, cancelled,
                    () -> relayPartial(update), () -> again(update.partial()));
        }
    }

    /** An update of a run the list asked about and did not show cancelled goes now; one not asked about waits. */
    private void relayAfterList(long pk, Set<Long> asked, Set<Long> cancelled, Runnable relay, Runnable wait) {
        if (!asked.contains(pk)) {
            wait.run();
        } else if (!cancelled.contains(pk)) {
            locks.run(pk, relay);
        }
    }

    private synchronized void take(List<Listed> runs, List<Start> starts, List<Partial> partials) {
        for (Listed run : runs) {
            Turn turn = turns.get(run.pk());
            if (turn != null) {
                Optional.ofNullable(turn.start).ifPresent(starts::add);
                Optional.ofNullable(turn.partial).ifPresent(partials::add);
                turn.start = null;
                turn.partial = null;
            }
        }
    }

    private Optional<ReadyPartial> prepare(Partial partial) {
        try {
            return running.prepare(partial);
        } catch (RuntimeException e) {
            again(partial);
            LOG.warnf("submission %d: partial results not relayed yet: %s", partial.submission().submissionPk(),
                    e.getMessage());
            return Optional.empty();
        }
    }

    private void relayStart(Start start) {
        var submission = start.event().submission();
        try {
            if (!running.stillToStart(start)) {
                return;
            }
            if (evalAi.permits() == 0) {
                again(start);
                return;
            }
            evalAi.markRunning(submission, start.event().jobName());
            running.started(start);
        } catch (EvalAiRejectedException e) {
            LOG.errorf("submission %d: EvalAI refuses its running update: %s", submission.submissionPk(),
                    e.getMessage());
        } catch (RuntimeException e) {
            evalAi.noteFailure(e);
            again(start);
            LOG.warnf("submission %d: running not relayed yet: %s", submission.submissionPk(), e.getMessage());
        }
    }

    private void relayPartial(ReadyPartial update) {
        var submission = update.partial().submission();
        try {
            var record = running.stillReady(update);
            if (record.isEmpty()) {
                return;
            }
            if (evalAi.permits() == 0) {
                again(update.partial());
                return;
            }
            evalAi.sendPartial(submission, update.evaluation());
            running.relayed(update, record.get());
        } catch (EvalAiRejectedException e) {
            LOG.errorf("submission %d: EvalAI refuses its partial results (the final report says what the run"
                    + " scored): %s", submission.submissionPk(), e.getMessage());
        } catch (RuntimeException e) {
            evalAi.noteFailure(e);
            again(update.partial());
            LOG.warnf("submission %d: partial results not relayed yet: %s", submission.submissionPk(),
                    e.getMessage());
        }
    }

    /**
     * At the run's turn, on its record read again (still that run, that final status, unconfirmed; a resume meanwhile
     * drops it): one read of what EvalAI shows. The final status, or what only follows it (a resume on EvalAI that
     * ingest-service has not recorded yet) → confirmed; another → the report sent (again), to be confirmed at the
     * run's next turn. A read or send that fails is made again at the run's next turn.
     */
    private void confirm(Final report) {
        long pk = report.submission().submissionPk();
        try {
            if (!finals.unconfirmed(report)) {
                done(report);
                return;
            }
            if (evalAi.permits() == 0) {
                // The budget is spent for now: at a later tick.
                return;
            }
            asked(pk, clock.instant());
            EvalAiStatus shown = evalAi.shownAfterFinal(report.submission());
            if (shown.follows(report.status())) {
                finals.confirmed(report);
                done(report);
                return;
            }
            LOG.warnf("submission %d: EvalAI shows %s, not run %d's final status %s; sending it%s", pk, shown.value(),
                    report.record().run(), report.status().evalAiValue(), report.confirmFirst() ? "" : " again");
            evalAi.sendFinal(report.submission(), report.status(), report.evaluation());
            finals.sent(report);
            again(report, report.sent());
        } catch (EvalAiRejectedException e) {
            // The record stays unconfirmed: the stuck rule unconfirmed-final tells the operators.
            done(report);
            LOG.errorf("submission %d: EvalAI refuses the final report of run %d (%s)", pk, report.record().run(),
                    e.getMessage());
        } catch (RuntimeException e) {
            evalAi.noteFailure(e);
            LOG.warnf("submission %d: the final status of run %d not confirmed yet: %s", pk, report.record().run(),
                    e.getMessage());
        }
    }

    private synchronized void again(Start start) {
        Turn turn = turns.get(start.event().submission().submissionPk());
        if (turn != null && turn.notOver != null && turn.start == null) {
            turn.start = start;
        }
    }

    private synchronized void again(Partial partial) {
        Turn turn = turns.get(partial.submission().submissionPk());
        if (turn != null && turn.notOver != null && turn.partial == null) {
            turn.partial = partial;
        }
    }

    /** The confirmation {@code report} gives way to {@code next} (the same report, sent now by this process). */
    private synchronized void again(Final report, Final next) {
        Turn turn = turns.get(report.submission().submissionPk());
        if (turn != null && turn.confirmation == report) {
            turn.confirmation = next;
        }
    }

    private synchronized void asked(List<Listed> runs, Instant sent) {
        runs.forEach(run -> asked(run.pk(), sent));
    }

    private synchronized void asked(long pk, Instant sent) {
        Turn turn = turns.get(pk);
        if (turn != null && sent.isAfter(turn.lastAsk)) {
            turn.lastAsk = sent;
        }
    }

    /** The run's turn, made or brought up to date from its record: not over, as of now. Under this. */
    private Turn turn(SubmissionRecord record, Destination destination) {
        Instant now = clock.instant();
        Turn turn = turns.computeIfAbsent(pk(record), pk -> new Turn(pk, record, now, cadence));
        turn.notOver = new Found(record, destination);
        turn.touched = now;
        return turn;
    }

    /**
     * A list that failed, its retries spent: a warning when the challenge's list starts failing (its runs' cancels and
     * updates wait for the next list; a cancel there is not lost, only late), then once a list answers again.
     */
    private void unavailable(long challengePk, int runs, RuntimeException e) {
        count("unavailable");
        if (failing.add(challengePk)) {
            LOG.warnf("EvalAI outbox: EvalAI cannot list challenge %d now (%d runs not over; their cancels and updates"
                    + " wait for the next list): %s", challengePk, runs, e.getMessage());
        } else {
            LOG.debugf("EvalAI outbox: EvalAI still cannot list challenge %d: %s", challengePk, e.getMessage());
        }
    }

    private void count(String outcome) {
        registry.counter("relay.cancel.checks", "outcome", outcome).increment();
    }

    private static long pk(SubmissionRecord record) {
        return Long.parseLong(record.submissionId());
    }

    /** EvalAI's {@code submitted_at} as recorded; empty when it is not recorded readably. */
    static Optional<Instant> submitted(SubmissionRecord record) {
        try {
            return Optional.ofNullable(record.submittedTime()).map(Instant::parse);
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    /** A run not over as one of its challenge's lists covers it. */
    record Listed(long pk, Optional<Instant> submitted, Found found) {
    }

    /** The {@code running} update of a run whose pod started ({@code record}: as read when it was made RUNNING). */
    record Start(SubmissionRecord record, JobStarted event, Destination destination) {
    }

    /** A believed report with news. */
    record Partial(SubmissionRecord record, SubmissionIdentity submission, Progress report, Destination destination) {
    }

    /**
     * A run's final report, recorded ({@code record}: as read before, for the conditional {@code evalai_final_sent});
     * {@code type}: what asked for it (an event's type, a stuck rule); {@code confirmFirst}: recorded before and maybe
     * sent already.
     */
    record Final(SubmissionRecord record, SubmissionIdentity submission, SubmissionStatus status, Evaluation evaluation,
            Destination destination, String type, boolean confirmFirst) {

        /** The same report, sent by this process: what follows is its confirmation. */
        Final sent() {
            return new Final(record, submission, status, evaluation, destination, type, false);
        }
    }

    /** One run as the outbox knows it. Guarded by the outbox. */
    private static final class Turn {
        final long pk;
        final long challengePk;
        final Optional<Instant> submitted;
        /** When EvalAI was last asked about the run (its submission, before the first ask). */
        Instant lastAsk;
        /** The run not over, as last read, and where it lives; null once over. Its challenge's lists cover it. */
        Found notOver;
        /** When an update or the index last showed the run not over. */
        Instant touched;
        /** The last run this process saw running, by its start or in the index; 0 when none. */
        int runningSeen;
        Start start;
        Partial partial;
        Final confirmation;

        Turn(long pk, SubmissionRecord record, Instant now, Cadence cadence) {
            this.pk = pk;
            this.challengePk = record.identity().map(SubmissionIdentity::challengePk).orElse(0L);
            this.submitted = EvalAiOutbox.submitted(record);
            this.lastAsk = cadence.firstAsk(submitted.orElse(null), now);
            this.touched = now;
        }

        /** The run is over: no list covers it, no update of it goes. */
        void over() {
            notOver = null;
            start = null;
            partial = null;
        }
    }
}
