package org.carla.leaderboard.relay.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.status.SubmissionStatus;
import org.carla.leaderboard.relay.store.SubmissionRecord;
import org.carla.leaderboard.relay.service.StatusReads.PendingPartial;
import org.junit.jupiter.api.Test;

/** The cancel check's cadence: a status read stands in for a list, and no run goes unasked longer than the bound. */
class StatusReadsTests {

    private static final Duration EVERY = Duration.ofSeconds(60);
    private static final Duration GRAIN = Duration.ofSeconds(1);
    private static final Instant START = Instant.parse("2026-11-23T18:00:00Z");
    private static final long PK = 7;
    private static final SubmissionIdentity SUBMISSION = new SubmissionIdentity(PK, 2, 3, 4, "team",
            "leaderboard-20", "SENSORS");

    @Test
    void aNeverAskedRunIsDueAtOnce() {
        assertThat(new StatusReads(Optional.of(EVERY)).due(List.of(PK), START)).isTrue();
    }

    @Test
    void aStatusReadDefersTheListByEveryLessHalfAGrain() {
        var reads = new StatusReads(Optional.of(EVERY));
        reads.asked(PK, START);

        assertThat(reads.due(List.of(PK), START.plusMillis(59_400))).isFalse();
        assertThat(reads.due(List.of(PK), START.plusMillis(59_500))).isTrue();
    }

    @Test
    void aChallengeIsDueWhenAnyOfItsRunsIs() {
        var reads = new StatusReads(Optional.of(EVERY));
        reads.asked(PK, START.plusSeconds(50));
        reads.asked(8, START);

        assertThat(reads.due(List.of(PK, 8L), START.plusSeconds(60))).isTrue();
        assertThat(reads.due(List.of(PK), START.plusSeconds(60))).isFalse();
    }

    @Test
    void anOlderAnswerNeverMovesTheLastAskBack() {
        var reads = new StatusReads(Optional.of(EVERY));
        reads.asked(PK, START.plusSeconds(30));
        reads.asked(PK, START);

        assertThat(reads.due(List.of(PK), START.plusSeconds(80))).isFalse();
    }

    @Test
    void aForgottenRunIsDueAgain() {
        var reads = new StatusReads(Optional.of(EVERY));
        reads.asked(PK, START);
        reads.keepOnly(Set.of(8L));

        assertThat(reads.due(List.of(PK), START.plusSeconds(1))).isTrue();
    }

    @Test
    void aPartialUpdateWaitsForTheListOnlyWhileTheRunIsNotDue() {
        var reads = new StatusReads(Optional.of(EVERY));
        var partial = new PendingPartial(SUBMISSION, null, null);

        assertThat(reads.waits(partial, START)).as("never asked: its own read is the check's ask").isFalse();
        reads.asked(PK, START);
        assertThat(reads.waits(partial, START.plusSeconds(10))).isTrue();
        assertThat(reads.take(PK)).contains(partial);
        assertThat(reads.take(PK)).as("taken once").isEmpty();
        assertThat(reads.waits(partial, START.plusSeconds(60))).as("due: read now").isFalse();
    }

    @Test
    void withTheCheckOffEveryUpdateIsGuardedByItsOwnRead() {
        var reads = new StatusReads(Optional.empty());
        reads.asked(PK, START);

        assertThat(reads.waits(new PendingPartial(SUBMISSION, null, null), START.plusSeconds(1))).isFalse();
    }

    /**
     * An hour of a lone running submission with 17 news reports at odd moments, on a tick of a sixtieth of the interval:
     * each waits for the run's next list, so it is asked about 60 times (the former cadence: 60 lists and a status read
     * before each of the 17 updates), never more than 60.5 s apart, and each update follows its news within 60.5 s.
     */
    @Test
    void aLoneSubmissionsReadsReplaceItsListsAndKeepTheBound() {
        var reads = new StatusReads(Optional.of(EVERY));
        var asks = new ArrayList<Instant>();
        var news = new ArrayList<Instant>();
        for (int i = 1; i <= 17; i++) {
            news.add(START.plusMillis(i * 211_337L));
        }
        var waiting = new ArrayList<Instant>();
        for (Instant now = START; now.isBefore(START.plus(Duration.ofHours(1))); now = now.plus(GRAIN)) {
            for (Instant report : news) {
                if (!report.isBefore(now) && report.isBefore(now.plus(GRAIN))) {
                    assertThat(reads.waits(new PendingPartial(SUBMISSION, null, null), report)).isTrue();
                    waiting.add(report);
                }
            }
            if (reads.due(List.of(PK), now)) {
                reads.asked(PK, now);
                asks.add(now);
                if (reads.take(PK).isPresent()) {
                    for (Instant report : waiting) {
                        assertThat(Duration.between(report, now)).isLessThanOrEqualTo(Duration.ofMillis(60_500));
                    }
                    waiting.clear();
                }
            }
        }

        assertThat(asks).hasSize(60);
        for (int i = 1; i < asks.size(); i++) {
            assertThat(Duration.between(asks.get(i - 1), asks.get(i))).isLessThanOrEqualTo(Duration.ofMillis(60_500));
        }
    }

    /**
     * A run's submission counts as its first ask: the run is first due a whole interval after EvalAI's submitted_at,
     * so a life of L minutes on a tick of a second costs at most L asks (lists, guard reads, the confirming read).
     */
    @Test
    void aRunsLifeOfTwoHoursIsAskedAboutAtMostOnceAMinuteFromItsSubmission() {
        var reads = new StatusReads(Optional.of(EVERY));
        Instant submitted = START.plusMillis(300);
        assertThat(reads.seen(record(submitted), submitted.plusSeconds(5))).as("first seen").isTrue();
        assertThat(reads.seen(record(submitted), submitted.plusSeconds(6))).as("seen before").isFalse();

        var asks = new ArrayList<Instant>();
        Instant end = submitted.plus(Duration.ofHours(2));
        for (Instant now = START; !now.isAfter(end); now = now.plus(GRAIN)) {
            if (reads.due(List.of(PK), now)) {
                // A call is sent a little after its tick.
                reads.asked(PK, now.plusMillis(40));
                asks.add(now);
            }
        }

        assertThat(asks.get(0)).as("the first ask").isAfterOrEqualTo(submitted.plus(EVERY))
                .isBeforeOrEqualTo(submitted.plus(EVERY).plus(GRAIN));
        assertThat(asks.size()).as("asks in 120 minutes").isLessThanOrEqualTo(120);
        for (int i = 1; i < asks.size(); i++) {
            assertThat(Duration.between(asks.get(i - 1), asks.get(i))).as("between two asks").isEqualTo(EVERY);
        }
    }

    /** A final status waiting for its confirmation keeps its run's last ask, though the run is no longer not over. */
    @Test
    void aConfirmationWaitsForTheRunsTurnEvenAfterTheRunIsOver() {
        var reads = new StatusReads(Optional.of(EVERY));
        var confirm = new StatusReads.PendingConfirm(SUBMISSION, record(START), null, null, null);
        assertThat(reads.waits(confirm, START)).as("never asked: confirmed at once").isFalse();
        reads.asked(PK, START);
        assertThat(reads.waits(confirm, START.plusSeconds(10))).isTrue();
        assertThat(reads.confirming(PK, 1)).isTrue();
        assertThat(reads.confirming(PK, 2)).as("another run's").isFalse();

        reads.keepOnly(Set.of());

        assertThat(reads.dueConfirms(START.plusSeconds(30))).as("not its turn yet").isEmpty();
        assertThat(reads.dueConfirms(START.plusSeconds(60))).containsExactly(confirm);
        assertThat(reads.confirming(PK, 1)).as("taken").isFalse();
    }

    private static SubmissionRecord record(Instant submitted) {
        return new SubmissionRecord(Optional.of(SUBMISSION), 4, Long.toString(PK), 1, SubmissionStatus.RUNNING, false,
                0, OptionalInt.empty(), OptionalInt.empty(), null, null, OptionalInt.empty(), submitted.toString(), null,
                List.of(), 0, new SubmissionRecord.RunTimes(null, null, null, null), null, "job");
    }
}
