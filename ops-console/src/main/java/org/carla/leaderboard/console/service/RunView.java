package org.carla.leaderboard.console.service;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.carla.leaderboard.console.SubmissionRecord;
import org.carla.leaderboard.console.SubmissionRecord.StatusChange;
import org.carla.leaderboard.domain.status.SubmissionStatus;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * One run of a submission, from its status changes: when it was submitted (or resumed), when its Job waited for
 * capacity (PENDING), when its pod ran (RUNNING), and how and when it ended.
 */
@RegisterForReflection
public record RunView(int run, Instant submittedAt, Instant pendingAt, Instant runningAt, Instant endedAt,
        String outcome) {

    /**
     * Every run of the record. From {@code status_history} when it has entries; otherwise only the current run, from
     * the record's times (records written before the history existed).
     */
    public static List<RunView> of(SubmissionRecord record) {
        if (record.history().isEmpty()) {
            return List.of(new RunView(record.run(), record.runSince(), record.launchedTime(), record.runStart(),
                    record.terminal() ? record.endTime() : null,
                    record.terminal() ? record.status().name() : null));
        }
        Map<Integer, List<StatusChange>> byRun = new LinkedHashMap<>();
        for (StatusChange change : record.history()) {
            byRun.computeIfAbsent(Math.max(1, change.run()), run -> new ArrayList<>()).add(change);
        }
        var runs = new ArrayList<RunView>();
        byRun.forEach((run, changes) -> {
            Instant submitted = null;
            Instant pending = null;
            Instant running = null;
            Instant ended = null;
            String outcome = null;
            for (StatusChange change : changes) {
                var status = SubmissionStatus.parse(change.status()).orElse(null);
                if (status == null) {
                    continue;
                }
                switch (status) {
                    case SUBMITTED -> submitted = first(submitted, change.at());
                    case PENDING -> pending = first(pending, change.at());
                    case RUNNING -> running = first(running, change.at());
                    default -> {
                        ended = first(ended, change.at());
                        outcome = outcome == null ? status.name() : outcome;
                    }
                }
            }
            runs.add(new RunView(run, submitted, pending, running, ended, outcome));
        });
        return runs;
    }

    private static Instant first(Instant current, Instant candidate) {
        return current != null ? current : candidate;
    }
}
