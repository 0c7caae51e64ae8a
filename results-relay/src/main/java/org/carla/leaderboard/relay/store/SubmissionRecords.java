package org.carla.leaderboard.relay.store;

import static org.carla.leaderboard.domain.record.SubmissionTable.CANCEL_REQUESTED_RUN;
import static org.carla.leaderboard.domain.record.SubmissionTable.CHALLENGE_ID;
import static org.carla.leaderboard.domain.record.SubmissionTable.END_TIME;
import static org.carla.leaderboard.domain.record.SubmissionTable.EXPECTED_ROUTES;
import static org.carla.leaderboard.domain.record.SubmissionTable.FAILURE_REASON;
import static org.carla.leaderboard.domain.record.SubmissionTable.FINAL_SENT;
import static org.carla.leaderboard.domain.record.SubmissionTable.GPU_HOURS;
import static org.carla.leaderboard.domain.record.SubmissionTable.HISTORY;
import static org.carla.leaderboard.domain.record.SubmissionTable.INSTANCE_TYPE;
import static org.carla.leaderboard.domain.record.SubmissionTable.JOB_NAME;
import static org.carla.leaderboard.domain.record.SubmissionTable.LAST_ENDING;
import static org.carla.leaderboard.domain.record.SubmissionTable.LAST_PROGRESS_TIME;
import static org.carla.leaderboard.domain.record.SubmissionTable.LAST_RESULTS_DIGEST;
import static org.carla.leaderboard.domain.record.SubmissionTable.LEADERBOARD;
import static org.carla.leaderboard.domain.record.SubmissionTable.NOT_UPLOADED;
import static org.carla.leaderboard.domain.record.SubmissionTable.NO_PROGRESS_SINCE;
import static org.carla.leaderboard.domain.record.SubmissionTable.NOT_YET;
import static org.carla.leaderboard.domain.record.SubmissionTable.RESULTS_LOCATION;
import static org.carla.leaderboard.domain.record.SubmissionTable.ROUTES_DONE;
import static org.carla.leaderboard.domain.record.SubmissionTable.ROUTES_TOTAL;
import static org.carla.leaderboard.domain.record.SubmissionTable.RUN;
import static org.carla.leaderboard.domain.record.SubmissionTable.RUN_IMAGES;
import static org.carla.leaderboard.domain.record.SubmissionTable.RUN_VERSIONS;
import static org.carla.leaderboard.domain.record.SubmissionTable.START_TIME;
import static org.carla.leaderboard.domain.record.SubmissionTable.STATUS;
import static org.carla.leaderboard.domain.record.SubmissionTable.SUBMITTED_TIME;
import static org.carla.leaderboard.domain.record.SubmissionTable.TEAM_NAME;
import static org.carla.leaderboard.domain.record.SubmissionTable.TRACK_ID;
import static org.carla.leaderboard.domain.record.SubmissionTable.TRACK_NAME;
import static org.carla.leaderboard.domain.record.SubmissionTable.WORKERS;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.record.RunImages;
import org.carla.leaderboard.domain.record.RunVersions;
import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.domain.status.SubmissionStatus;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * The relay's reads and writes of a leaderboard's submissions table. Every write is conditional on the record's current
 * run being the one the relay acts for and on the record not being terminal (FINISHED, FAILED, CANCELLED), so nothing
 * of an earlier run touches a later one and a late event never moves a run backwards; a write that changes the status
 * appends its {@code status_history} entry in the same conditional write. A write whose condition fails returns false.
 */
@ApplicationScoped
public class SubmissionRecords {

    /** The writer's name in {@code status_history}. */
    static final String BY = "results-relay";

    private static final String OF_RUN = "#run = :run";
    private static final String NOT_TERMINAL = "(attribute_not_exists(#status) OR NOT (#status IN (:finished, :failed, :cancelled)))";

    private final DynamoDbClient dynamoDb;

    SubmissionRecords(DynamoDbClient dynamoDb) {
        this.dynamoDb = dynamoDb;
    }

    /** The record of a submission (consistent read); empty when there is none. */
    public Optional<SubmissionRecord> find(String table, long teamId, String submissionId) {
        var item = dynamoDb.getItem(r -> r.tableName(table).key(key(teamId, submissionId)).consistentRead(true)).item();
        if (item == null || item.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(read(teamId, submissionId, item));
    }

    /**
     * Every record whose run is not over (SUBMITTED, PENDING, RUNNING), found through the table's index by status
     * ({@link SubmissionTable#STATUS_INDEX}): a query of each status, never a scan. The index is eventually
     * consistent: whoever acts on a record found here reads it again first.
     */
    public List<SubmissionRecord> notOver(String table) {
        return inStatus(table, List.of(SubmissionStatus.SUBMITTED, SubmissionStatus.PENDING, SubmissionStatus.RUNNING),
                false);
    }

    /**
     * Every record whose final status EvalAI has not confirmed ({@code evalai_final_sent} false), for the stuck rule
     * unconfirmed-final: a query of each final status through the index, filtered on {@code evalai_final_sent}. The
     * final statuses' partitions hold the leaderboard's whole history, and a filter does not spare their reads (the
     * cost is in results-relay/README.md). Eventually consistent, like {@link #notOver}.
     */
    public List<SubmissionRecord> unconfirmedFinals(String table) {
        return inStatus(table, List.of(SubmissionStatus.FINISHED, SubmissionStatus.FAILED, SubmissionStatus.CANCELLED),
                true);
    }

    private List<SubmissionRecord> inStatus(String table, List<SubmissionStatus> statuses, boolean unconfirmed) {
        var found = new java.util.ArrayList<SubmissionRecord>();
        for (SubmissionStatus status : statuses) {
            var names = new HashMap<String, String>(Map.of("#status", STATUS));
            var values = new HashMap<String, AttributeValue>(Map.of(":status", text(status.name())));
            if (unconfirmed) {
                names.put("#sent", FINAL_SENT);
                values.put(":sent", AttributeValue.fromBool(true));
            }
            dynamoDb.queryPaginator(r -> r.tableName(table).indexName(SubmissionTable.STATUS_INDEX)
                    .keyConditionExpression("#status = :status")
                    .filterExpression(unconfirmed ? "attribute_not_exists(#sent) OR #sent <> :sent" : null)
                    .expressionAttributeNames(names)
                    .expressionAttributeValues(values))
                    .items().forEach(item -> {
                        try {
                            long teamId = Long.parseLong(string(item, SubmissionTable.TEAM_ID));
                            found.add(read(teamId, string(item, SubmissionTable.SUBMISSION_ID), item));
                        } catch (RuntimeException e) {
                            // A record this code cannot key (no numeric team id) is no submission it relays.
                        }
                    });
        }
        return found;
    }

    /**
     * The run's pod runs: RUNNING, {@code start_time} the pod's start, the Job's name, and the run's progress fields
     * cleared; only from SUBMITTED or PENDING, so a repeated {@code job-started} changes nothing.
     */
    public boolean markRunning(String table, SubmissionRecord record, String jobName, Instant podStartedAt,
            Instant now) {
        var write = new Write(record.run());
        write.name("#start", START_TIME).name("#job", JOB_NAME);
        write.value(":running", text(SubmissionStatus.RUNNING.name())).value(":start", text(podStartedAt.toString()))
                .value(":job", text(jobName))
                .value(":submitted", text(SubmissionStatus.SUBMITTED.name()))
                .value(":pending", text(SubmissionStatus.PENDING.name()));
        write.history(now, SubmissionStatus.RUNNING, "pod running in Job " + jobName);
        return write.apply(table, record, "SET #status = :running, #start = :start, #job = :job, " + Write.APPEND
                + " REMOVE " + String.join(", ", LAST_RESULTS_DIGEST, LAST_ENDING, NOT_UPLOADED, ROUTES_DONE,
                        ROUTES_TOTAL, LAST_PROGRESS_TIME),
                OF_RUN + " AND #status IN (:submitted, :pending)");
    }

    /**
     * What a believed progress report says, as of {@code at} (the relay's clock, when it believed the report: never the
     * time the report claims, which a pod writes): its routes done and total, where the results are, and, in a last
     * report, how logcopy ended and what it could not upload. Only while the run is RUNNING. {@code routesDone}: the
     * routes done to record (the report's, or more: {@code RunningReports.routesDone}).
     */
    public boolean recordProgress(String table, SubmissionRecord record, Progress report, int routesDone,
            String location, Instant at) {
        var write = new Write(record.run());
        write.name("#progress", LAST_PROGRESS_TIME).name("#done", ROUTES_DONE).name("#total", ROUTES_TOTAL)
                .name("#location", RESULTS_LOCATION);
        write.value(":progress", text(at.toString())).value(":done", number(routesDone))
                .value(":total", number(report.routesTotal())).value(":location", text(location))
                .value(":running", text(SubmissionStatus.RUNNING.name()));
        var update = new StringBuilder("SET #progress = :progress, #done = :done, #total = :total, #location = :location");
        if (report.ending() != null) {
            write.name("#ending", LAST_ENDING).value(":ending", text(report.ending().name()));
            update.append(", #ending = :ending");
            if (!report.notUploaded().isEmpty()) {
                write.name("#missing", NOT_UPLOADED).value(":missing",
                        AttributeValue.fromL(report.notUploaded().stream().map(SubmissionRecords::text).toList()));
                update.append(", #missing = :missing");
            }
        }
        return write.apply(table, record, update.toString(), OF_RUN + " AND #status = :running");
    }

    /** The report's results reached EvalAI: its results digest, the run's last relayed. Only while the run is RUNNING. */
    public boolean recordRelayed(String table, SubmissionRecord record, Progress report) {
        var write = new Write(record.run());
        write.name("#digest", LAST_RESULTS_DIGEST).value(":digest", text(report.resultsDigest()))
                .value(":running", text(SubmissionStatus.RUNNING.name()));
        return write.apply(table, record, "SET #digest = :digest", OF_RUN + " AND #status = :running");
    }

    /**
     * The stuck rule no-progress: the run's silence since {@code silentSince} (its last sign of life as read) marked
     * once, {@code no_progress_since} and a {@code status_history} entry (status RUNNING, {@code detail}); only while the
     * run is RUNNING, has reported nothing since it was read, and this silence was not marked yet.
     */
    public boolean recordSilence(String table, SubmissionRecord record, Instant silentSince, String detail,
            Instant now) {
        var write = new Write(record.run());
        write.name("#silence", NO_PROGRESS_SINCE);
        write.value(":since", text(silentSince.toString())).value(":running", text(SubmissionStatus.RUNNING.name()));
        write.history(now, SubmissionStatus.RUNNING, detail);
        return write.apply(table, record, "SET #silence = :since, " + Write.APPEND, OF_RUN + " AND #status = :running AND "
                + write.noProgressSince(record) + " AND (attribute_not_exists(#silence) OR #silence <> :since)");
    }

    /** The relay saw the run cancelled on EvalAI: only this makes the run CANCELLED. */
    public boolean recordCancelRequested(String table, SubmissionRecord record) {
        var write = new Write(record.run());
        write.name("#cancel", CANCEL_REQUESTED_RUN);
        return write.apply(table, record, "SET #cancel = :run", OF_RUN + " AND " + NOT_TERMINAL);
    }

    /**
     * The run's final status, end time, every metric ({@code null} → "-"), for a failure its reason's first line, and
     * the run's GPU-hours added to the submission's, what the run drove with when its init recorded it, with
     * {@code evalai_final_sent} false; only while the run is not
     * terminal, so a run's GPU-hours are added once. {@code unlessProgressed}: also only while the run has reported no
     * progress since {@code record} was read (the stuck rule no-progress fails a silent run, never one that spoke).
     */
    public boolean recordFinal(String table, SubmissionRecord record, SubmissionStatus status, Instant endTime,
            Map<String, Double> metrics, String failureReason, double runGpuHours, Optional<RunVersions> versions,
            Instant now, boolean unlessProgressed) {
        if (!status.isTerminal()) {
            throw new IllegalArgumentException(status + " is not a final status");
        }
        var write = new Write(record.run());
        write.name("#end", END_TIME).name("#sent", FINAL_SENT).name("#reason", FAILURE_REASON).name("#gpu", GPU_HOURS);
        write.value(":final", text(status.name())).value(":end", text(endTime.toString()))
                .value(":notSent", AttributeValue.fromBool(false))
                .value(":gpu", AttributeValue.fromN(BigDecimal.valueOf(runGpuHours).toPlainString()))
                .value(":reason", text(failureReason == null || failureReason.isBlank() ? NOT_YET
                        : firstLine(failureReason)));
        write.history(now, status, failureReason == null ? null : firstLine(failureReason));
        var update = new StringBuilder("SET #status = :final, #end = :end, #sent = :notSent, #reason = :reason, ")
                .append(Write.APPEND);
        int i = 0;
        for (var metric : metrics.entrySet()) {
            // Metric names hold '-' (off-road_infractions): always through placeholders.
            write.name("#m" + i, metric.getKey()).value(":m" + i, metric(metric.getValue()));
            update.append(", #m").append(i).append(" = :m").append(i);
            i++;
        }
        if (versions.isPresent()) {
            write.name("#versions", RUN_VERSIONS).value(":versions", versions.get().attribute());
            update.append(", #versions = :versions");
        }
        update.append(" ADD #gpu :gpu");
        String condition = OF_RUN + " AND " + NOT_TERMINAL;
        return write.apply(table, record, update.toString(),
                unlessProgressed ? condition + " AND " + write.noProgressSince(record) : condition);
    }

    /** EvalAI shows the run's final status; only for a record of that run holding that status. */
    public void markFinalSent(String table, SubmissionRecord record, SubmissionStatus status) {
        var write = new Write(record.run());
        write.name("#sent", FINAL_SENT);
        write.value(":sent", AttributeValue.fromBool(true)).value(":final", text(status.name()));
        write.apply(table, record, "SET #sent = :sent", OF_RUN + " AND #status = :final");
    }

    /** Whether the table answers, for readiness. */
    public void describe(String table) {
        dynamoDb.describeTable(r -> r.tableName(table));
    }

    /** One conditional update of a run's record: the placeholders of its expressions and its history entry. */
    private final class Write {

        static final String APPEND = "#history = list_append(if_not_exists(#history, :empty), :entry)";

        final Map<String, String> names = new HashMap<>();
        final Map<String, AttributeValue> values = new HashMap<>();

        Write(int run) {
            names.put("#run", RUN);
            names.put("#status", STATUS);
            values.put(":run", number(run));
        }

        Write name(String placeholder, String attribute) {
            names.put(placeholder, attribute);
            return this;
        }

        Write value(String placeholder, AttributeValue value) {
            values.put(placeholder, value);
            return this;
        }

        void history(Instant at, SubmissionStatus status, String detail) {
            var entry = new HashMap<String, AttributeValue>();
            entry.put(SubmissionTable.HISTORY_AT, text(at.toString()));
            entry.put(SubmissionTable.HISTORY_RUN, values.get(":run"));
            entry.put(SubmissionTable.HISTORY_STATUS, text(status.name()));
            entry.put(SubmissionTable.HISTORY_BY, text(BY));
            if (detail != null && !detail.isBlank()) {
                entry.put(SubmissionTable.HISTORY_DETAIL, text(detail));
            }
            names.put("#history", HISTORY);
            values.put(":empty", AttributeValue.fromL(List.of()));
            values.put(":entry", AttributeValue.fromL(List.of(AttributeValue.fromM(entry))));
        }

        /** The condition that the run's {@code last_progress_time} is still what {@code record} read. */
        String noProgressSince(SubmissionRecord record) {
            name("#progress", LAST_PROGRESS_TIME);
            Instant seen = record.times().lastProgress();
            if (seen == null) {
                return "attribute_not_exists(#progress)";
            }
            value(":seen", text(seen.toString()));
            return "#progress = :seen";
        }

        boolean apply(String table, SubmissionRecord record, String update, String condition) {
            String used = update + " " + condition;
            if (used.contains(":finished")) {
                values.put(":finished", text(SubmissionStatus.FINISHED.name()));
                values.put(":failed", text(SubmissionStatus.FAILED.name()));
                values.put(":cancelled", text(SubmissionStatus.CANCELLED.name()));
            }
            // DynamoDB refuses a placeholder the expressions do not use.
            names.keySet().removeIf(name -> !uses(used, name));
            values.keySet().removeIf(name -> !uses(used, name));
            try {
                dynamoDb.updateItem(r -> r.tableName(table).key(key(record.teamId(), record.submissionId()))
                        .updateExpression(update).conditionExpression(condition)
                        .expressionAttributeNames(names).expressionAttributeValues(values));
                return true;
            } catch (ConditionalCheckFailedException e) {
                return false;
            }
        }
    }

    private static boolean uses(String expression, String placeholder) {
        return java.util.regex.Pattern.compile(java.util.regex.Pattern.quote(placeholder) + "(?![A-Za-z0-9_])")
                .matcher(expression).find();
    }

    private static SubmissionRecord read(long teamId, String submissionId, Map<String, AttributeValue> item) {
        return new SubmissionRecord(identity(teamId, submissionId, item), teamId, submissionId,
                integer(item, RUN).orElse(1), SubmissionTable.status(string(item, STATUS)).orElse(null),
                item.containsKey(FINAL_SENT) && Boolean.TRUE.equals(item.get(FINAL_SENT).bool()),
                integer(item, CANCEL_REQUESTED_RUN).orElse(0), integer(item, EXPECTED_ROUTES),
                integer(item, WORKERS), string(item, INSTANCE_TYPE), string(item, LAST_RESULTS_DIGEST),
                integer(item, ROUTES_DONE), string(item, SUBMITTED_TIME), string(item, LAST_ENDING),
                item.containsKey(NOT_UPLOADED) && item.get(NOT_UPLOADED).hasL()
                        ? item.get(NOT_UPLOADED).l().stream().map(AttributeValue::s).filter(s -> s != null).toList()
                        : List.of(),
                decimal(item, GPU_HOURS),
                new SubmissionRecord.RunTimes(time(item, START_TIME), time(item, LAST_PROGRESS_TIME),
                        lastHistoryTime(item), time(item, END_TIME)),
                Optional.ofNullable(string(item, FAILURE_REASON)).filter(reason -> !reason.equals(NOT_YET))
                        .orElse(null),
                Optional.ofNullable(string(item, JOB_NAME)).filter(name -> !name.equals(NOT_YET)).orElse(null),
                RunImages.of(item.get(RUN_IMAGES)).filter(images -> images.run() == integer(item, RUN).orElse(1)),
                integer(item, SubmissionTable.PODS).orElse(1));
    }

    private static Instant time(Map<String, AttributeValue> item, String attribute) {
        return instant(string(item, attribute));
    }

    private static Instant lastHistoryTime(Map<String, AttributeValue> item) {
        var history = item.get(HISTORY);
        if (history == null || !history.hasL() || history.l().isEmpty()) {
            return null;
        }
        var at = history.l().get(history.l().size() - 1).m().get(SubmissionTable.HISTORY_AT);
        return at == null ? null : instant(at.s());
    }

    private static Instant instant(String text) {
        try {
            return text == null ? null : Instant.parse(text);
        } catch (java.time.format.DateTimeParseException e) {
            return null;
        }
    }

    /** The submission as ingest-service recorded it; empty when the record lacks a part of it. */
    private static Optional<SubmissionIdentity> identity(long teamId, String submissionId,
            Map<String, AttributeValue> item) {
        try {
            return Optional.of(new SubmissionIdentity(Long.parseLong(submissionId),
                    Long.parseLong(string(item, CHALLENGE_ID)), Long.parseLong(string(item, TRACK_ID)), teamId,
                    string(item, TEAM_NAME), string(item, LEADERBOARD), string(item, TRACK_NAME)));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    private static String string(Map<String, AttributeValue> item, String attribute) {
        var value = item.get(attribute);
        return value == null ? null : value.s();
    }

    private static OptionalInt integer(Map<String, AttributeValue> item, String attribute) {
        var value = item.get(attribute);
        if (value == null || value.n() == null) {
            return OptionalInt.empty();
        }
        try {
            return OptionalInt.of(Integer.parseInt(value.n()));
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }

    private static double decimal(Map<String, AttributeValue> item, String attribute) {
        var value = item.get(attribute);
        try {
            return value == null || value.n() == null ? 0 : Double.parseDouble(value.n());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static AttributeValue metric(Double value) {
        if (value == null || value.isNaN() || value.isInfinite()) {
            return text(NOT_YET);
        }
        return AttributeValue.fromN(BigDecimal.valueOf(value).toPlainString());
    }

    private static String firstLine(String text) {
        int newline = text.indexOf('\n');
        return newline < 0 ? text : text.substring(0, newline);
    }

    private static AttributeValue text(String value) {
        return AttributeValue.fromS(value);
    }

    private static AttributeValue number(long value) {
        return AttributeValue.fromN(Long.toString(value));
    }

    private static Map<String, AttributeValue> key(long teamId, String submissionId) {
        var key = new HashMap<String, AttributeValue>();
        SubmissionTable.key(teamId, submissionId).forEach((name, value) -> key.put(name, text(value)));
        return key;
    }
}
