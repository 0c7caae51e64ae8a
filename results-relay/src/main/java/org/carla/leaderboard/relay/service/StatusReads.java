package org.carla.leaderboard.relay.service;

import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.carla.leaderboard.domain.event.JobStarted;
import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.status.SubmissionStatus;
import org.carla.leaderboard.relay.client.Evaluation;
import org.carla.leaderboard.relay.config.RelayConfig;
import org.carla.leaderboard.relay.store.SubmissionRecord;

import io.quarkus.runtime.configuration.DurationConverter;

/**
 * When EvalAI is next asked about each run: the cancel check's list of its challenge, or a read of the submission (the
 * guard before an update, the confirmation after the final one), and any of them stands in for the others. EvalAI is
 * asked about a run at most once per {@code relay.cancel-check.every} (less half a grain: the check's tick, a sixtieth
 * of it), counted from EvalAI's {@code submitted_at} for a run never asked about (the creation stands for an ask, so a
 * cancel is still noticed within one interval of it). Whatever needs EvalAI's answer about a run that was asked about
 * less than that ago waits here for the run's next ask: the {@code running} update and the partial updates wait for
 * the run's next list, which is their guard (EvalAI has no conditional update: the list shows the run not cancelled
 * right before the update); the read confirming a final status waits for the run's next turn. So a lone submission
 * costs one call per {@code every} of its life and one per update. Times are when a call was sent.
 */
@ApplicationScoped
class StatusReads {

    // Quarkus's scheduler runs no job more often than once a second.
    private static final Duration SMALLEST_GRAIN = Duration.ofSeconds(1);

    private final Map<Long, Instant> asked = new ConcurrentHashMap<>();
    private final Map<Long, PendingPartial> pending = new ConcurrentHashMap<>();
    private final Map<Long, PendingStart> starts = new ConcurrentHashMap<>();
    private final Map<Long, PendingConfirm> confirms = new ConcurrentHashMap<>();
    private final Optional<Duration> every;

    @Inject
    StatusReads(RelayConfig config) {
        this(every(config.cancelCheck().every()));
    }

    StatusReads(Optional<Duration> every) {
        this.every = every;
    }

    /** The scheduled cancel check's interval; empty when it is off (each update is then guarded by its own read). */
    Optional<Duration> every() {
        return every;
    }

    /** The check's tick: a sixtieth of {@code every}, at least 1 s. */
    Duration grain() {
        Duration grain = every.orElse(Duration.ZERO).dividedBy(60);
        return grain.compareTo(SMALLEST_GRAIN) < 0 ? SMALLEST_GRAIN : grain;
    }

    /** EvalAI was asked about submission {@code pk} at {@code sent} (its answer read: cancelled or not). */
    void asked(long pk, Instant sent) {
        asked.merge(pk, sent, (before, now) -> now.isAfter(before) ? now : before);
    }

    /**
     * The run of {@code record} is known to be not over: never asked about yet, it counts as asked about at EvalAI's
     * {@code submitted_at} (or now, if that is later or not recorded readably). True when this process had not seen it.
     */
    boolean seen(SubmissionRecord record, Instant now) {
        Instant submitted = submitted(record);
        // Half a grain on: the first ask then comes at the first tick a whole interval after the submission, not before.
        Instant first = (submitted.isAfter(now) ? now : submitted).plus(grain().dividedBy(2));
        return asked.putIfAbsent(Long.parseLong(record.submissionId()), first) == null;
    }

    /** EvalAI's {@code submitted_at} as recorded; the epoch when it is not recorded readably. */
    static Instant submitted(SubmissionRecord record) {
        try {
            return record.submittedTime() == null ? Instant.EPOCH : Instant.parse(record.submittedTime());
        } catch (DateTimeParseException e) {
            return Instant.EPOCH;
        }
    }

    /**
     * Whether the list of the challenge of {@code pks} is due at {@code now}: one of them never asked about, or last asked
     * about {@code every − grain / 2} or longer ago. On a tick of {@code grain}, a run is asked about at most
     * {@code every + grain / 2} after the last time, and a challenge listed alone is listed every {@code every}.
     */
    boolean due(Collection<Long> pks, Instant now) {
        Instant before = now.minus(every.orElse(Duration.ZERO)).plus(grain().dividedBy(2));
        return pks.stream().anyMatch(pk -> {
            Instant last = asked.get(pk);
            return last == null || !last.isAfter(before);
        });
    }

    /**
     * Whether a partial update of {@code pk} at {@code now} waits for the run's next list: only while the scheduled
     * check runs and the run is not due; the newest waiting update replaces an older one.
     */
    boolean waits(PendingPartial partial, Instant now) {
        return waits(pending, partial.submission().submissionPk(), partial, now);
    }

    /** A partial update taken for a list that could not relay it waits for the next one, unless a newer one does. */
    void again(PendingPartial partial) {
        pending.putIfAbsent(partial.submission().submissionPk(), partial);
    }

    /** The partial update waiting for this run's list, taken (at most once). */
    Optional<PendingPartial> take(long pk) {
        return Optional.ofNullable(pending.remove(pk));
    }

    /** Whether the {@code running} update of a run whose pod started waits for the run's next list (as a partial does). */
    boolean waits(PendingStart start, Instant now) {
        return waits(starts, start.event().submission().submissionPk(), start, now);
    }

    /**
     * A {@code running} update for the run's next list whatever its turn: one this process may not have sent (it had not
     * seen the run), and one taken for a list that could not relay it.
     */
    void again(PendingStart start) {
        starts.putIfAbsent(start.event().submission().submissionPk(), start);
    }

    /** The {@code running} update waiting for this run's list, taken (at most once). */
    Optional<PendingStart> takeStart(long pk) {
        return Optional.ofNullable(starts.remove(pk));
    }

    /**
     * Whether the read confirming a final status just sent waits for the run's next turn: only while the scheduled
     * check runs and the run was asked about less than an interval ago. The run is kept (its last ask with it) until
     * the confirmation is taken, although it is over.
     */
    boolean waits(PendingConfirm confirm, Instant now) {
        return waits(confirms, confirm.submission().submissionPk(), confirm, now);
    }

    /** Whether {@code item} of run {@code pk} waits in {@code slot}: only while the check runs and the run is not due. */
    private <T> boolean waits(Map<Long, T> slot, long pk, T item, Instant now) {
        if (every.isEmpty() || due(List.of(pk), now)) {
            return false;
        }
        slot.put(pk, item);
        return true;
    }

    /** Whether the final status of this run of {@code pk} was sent and waits for its confirming read. */
    boolean confirming(long pk, int run) {
        var confirm = confirms.get(pk);
        return confirm != null && confirm.record().run() == run;
    }

    /** The confirmations whose run is due at {@code now}, taken (a confirmation that fails is put back, {@link #again}). */
    List<PendingConfirm> dueConfirms(Instant now) {
        var due = confirms.values().stream().filter(c -> due(List.of(c.submission().submissionPk()), now)).toList();
        due.forEach(c -> confirms.remove(c.submission().submissionPk(), c));
        return due;
    }

    /** A confirming read that EvalAI did not answer is due again at the next tick. */
    void again(PendingConfirm confirm) {
        confirms.putIfAbsent(confirm.submission().submissionPk(), confirm);
    }

    /**
     * A new term of this replica as the active relay (it held the Lease before, another replica since): what it knew of
     * its runs may be stale, so it starts from the records as a restarted relay does; the confirmations of final
     * statuses it sent are kept, and made at the next tick.
     */
    void newTerm() {
        asked.clear();
        pending.clear();
        starts.clear();
    }

    /**
     * Forgets the runs not in {@code notOver} (over, or no longer found), with their waiting updates; a run whose final
     * status waits for its confirmation keeps its last ask.
     */
    void keepOnly(Collection<Long> notOver) {
        var kept = new HashSet<>(notOver);
        kept.addAll(confirms.keySet());
        asked.keySet().retainAll(kept);
        pending.keySet().retainAll(notOver);
        starts.keySet().retainAll(notOver);
    }

    private static Optional<Duration> every(String every) {
        String value = every.trim();
        return value.equalsIgnoreCase("off") ? Optional.empty() : Optional.of(DurationConverter.parseDuration(value));
    }

    /** A believed report with news, waiting for its run's next list to be relayed. */
    record PendingPartial(SubmissionIdentity submission, Progress report, Destination destination) {
    }

    /** A run's pod started (its record RUNNING): its {@code running} update waits for the run's next list. */
    record PendingStart(JobStarted event, Destination destination) {
    }

    /**
     * A final status sent to EvalAI ({@code record}: the run's record as read before, for the conditional
     * {@code evalai_final_sent}), its confirming read waiting for the run's
     * next turn; sent again with the same evaluation if EvalAI then shows another status.
     */
    record PendingConfirm(SubmissionIdentity submission, SubmissionRecord record, SubmissionStatus status,
            Evaluation evaluation, Destination destination) {
    }
}
