package org.carla.leaderboard.launcher.record;

import static org.carla.leaderboard.domain.record.SubmissionTable.CANCEL_REQUESTED_RUN;
import static org.carla.leaderboard.domain.record.SubmissionTable.HISTORY;
import static org.carla.leaderboard.domain.record.SubmissionTable.JOB_ENDED_RUN;
import static org.carla.leaderboard.domain.record.SubmissionTable.JOB_NAME;
import static org.carla.leaderboard.domain.record.SubmissionTable.LAUNCHED_RUN;
import static org.carla.leaderboard.domain.record.SubmissionTable.LAUNCHED_TIME;
import static org.carla.leaderboard.domain.record.SubmissionTable.RUN;
import static org.carla.leaderboard.domain.record.SubmissionTable.RUN_IMAGES;
import static org.carla.leaderboard.domain.record.SubmissionTable.STATUS;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.record.RunImages;
import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.domain.status.SubmissionStatus;
import org.carla.leaderboard.domain.track.EvaluationConfig;

import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;

/**
 * job-launcher's reads and writes of the submissions tables (GetItem and UpdateItem, nothing else): it claims a run
 * before making its Job ({@code launched_run}, {@code job_name}, {@code launched_time}, status PENDING), notes the
 * images its pods ran ({@code run_images}) and when the run's Job ended ({@code job_ended_run}). Each write is
 * conditional on the record's current run, so nothing
 * the launcher does about one run touches another. An SDK exception means DynamoDB did not answer: the caller tries
 * again later.
 */
@ApplicationScoped
public class SubmissionRecords {

    private static final String BY = "job-launcher";
    /** An attribute holding anything but a number (e.g. {@code "-"}) counts as no run. */
    private static final String NO_RUN_OR_BELOW = "(attribute_not_exists(%1$s) OR NOT attribute_type(%1$s, :number)"
            + " OR %1$s < :run)";

    private final DynamoDbClient dynamo;
    private final EvaluationConfig evaluation;

    SubmissionRecords(DynamoDbClient dynamo, EvaluationConfig evaluation) {
        this.dynamo = dynamo;
        this.evaluation = evaluation;
    }

    /** Thrown for a submission of a leaderboard this deployment has no table for: nothing can be done with it. */
    public static final class UnknownLeaderboardException extends RuntimeException {
        UnknownLeaderboardException(String leaderboard) {
            super("no submissions table is configured for leaderboard '" + leaderboard + "'");
        }
    }

    /** The submission's record as it is now (a consistent read); empty when it has none. */
    public Optional<RunRecord> read(SubmissionIdentity submission) {
        var item = dynamo.getItem(r -> r.tableName(table(submission)).consistentRead(true).key(key(submission))
                .projectionExpression("#run, #status, #launched, #ended, #cancel")
                .expressionAttributeNames(Map.of("#run", RUN, "#status", STATUS, "#launched", LAUNCHED_RUN,
                        "#ended", JOB_ENDED_RUN, "#cancel", CANCEL_REQUESTED_RUN))).item();
        if (item == null || item.isEmpty()) {
            return Optional.empty();
        }
        AttributeValue status = item.get(STATUS);
        return Optional.of(new RunRecord(number(item, RUN, 1),
                status == null ? Optional.empty() : SubmissionStatus.parse(status.s()),
                number(item, LAUNCHED_RUN, 0), number(item, JOB_ENDED_RUN, 0), number(item, CANCEL_REQUESTED_RUN, 0)));
    }

    /**
     * Claims {@code run} for the Job {@code jobName}: holds only while the run is the record's current one, the record
     * is not final, and the run was neither claimed, ended nor cancelled. False when it did not hold (the record
     * changed since it was read).
     */
    public boolean claim(SubmissionIdentity submission, int run, String jobName, Instant now) {
        var names = new HashMap<String, String>(Map.of("#run", RUN, "#status", STATUS, "#launched", LAUNCHED_RUN,
                "#job_name", JOB_NAME, "#launched_time", LAUNCHED_TIME, "#ended", JOB_ENDED_RUN,
                "#cancel", CANCEL_REQUESTED_RUN, "#history", HISTORY));
        var values = new HashMap<String, AttributeValue>();
        values.put(":run", AttributeValue.fromN(Integer.toString(run)));
        values.put(":number", AttributeValue.fromS("N"));
        values.put(":job_name", AttributeValue.fromS(jobName));
        values.put(":now", AttributeValue.fromS(now.toString()));
        values.put(":pending", AttributeValue.fromS(SubmissionStatus.PENDING.name()));
        values.put(":finished", AttributeValue.fromS(SubmissionStatus.FINISHED.name()));
        values.put(":failed", AttributeValue.fromS(SubmissionStatus.FAILED.name()));
        values.put(":cancelled", AttributeValue.fromS(SubmissionStatus.CANCELLED.name()));
        values.put(":empty", AttributeValue.fromL(List.of()));
        values.put(":history", AttributeValue.fromL(List.of(AttributeValue.fromM(Map.of(
                SubmissionTable.HISTORY_AT, AttributeValue.fromS(now.toString()),
                SubmissionTable.HISTORY_RUN, AttributeValue.fromN(Integer.toString(run)),
                SubmissionTable.HISTORY_STATUS, AttributeValue.fromS(SubmissionStatus.PENDING.name()),
                SubmissionTable.HISTORY_BY, AttributeValue.fromS(BY),
                SubmissionTable.HISTORY_DETAIL, AttributeValue.fromS("Job " + jobName))))));
        return update(submission, "SET #launched = :run, #job_name = :job_name, #launched_time = :now, "
                + "#status = :pending, #history = list_append(if_not_exists(#history, :empty), :history)",
                "#run = :run AND NOT (#status IN (:finished, :failed, :cancelled)) AND "
                        + NO_RUN_OR_BELOW.formatted("#launched") + " AND " + NO_RUN_OR_BELOW.formatted("#ended")
                        + " AND " + NO_RUN_OR_BELOW.formatted("#cancel"),
                names, values);
    }

    /**
     * Notes that the Job of {@code run} ended (its end was published): a launch request of that run is refused from
     * now on. False when the record is on another run, or it was noted already.
     */
    public boolean recordJobEnded(SubmissionIdentity submission, int run) {
        return update(submission, "SET #ended = :run", "#run = :run AND " + NO_RUN_OR_BELOW.formatted("#ended"),
                new HashMap<>(Map.of("#run", RUN, "#ended", JOB_ENDED_RUN)),
                new HashMap<>(Map.of(":run", AttributeValue.fromN(Integer.toString(run)),
                        ":number", AttributeValue.fromS("N"))));
    }

    /**
     * Notes what one pod of the run ran ({@link RunImages} of that pod): the run's first replaces an earlier run's,
     * a later one is appended to the run's, a pod already there is not again, and none past
     * {@value RunImages#MAX_PODS} pods. False when nothing was written: the record is on another run, or the pod was
     * noted already, or the run has its most pods.
     */
    public boolean recordPodImages(SubmissionIdentity submission, RunImages pod) {
        if (pod.containers().isEmpty()) {
            return false;
        }
        return appendPod(submission, pod) || firstPod(submission, pod) || appendPod(submission, pod);
    }

    /** The run's images are there: the pod's are appended unless there already (or the run has its most pods). */
    private boolean appendPod(SubmissionIdentity submission, RunImages pod) {
        var names = new HashMap<>(Map.of("#run", RUN, "#images", RUN_IMAGES, "#r", RunImages.RUN,
                "#pods", RunImages.PODS, "#containers", RunImages.CONTAINERS));
        var values = new HashMap<>(Map.of(":run", AttributeValue.fromN(Integer.toString(pod.run())),
                ":pods", pod.podsAttribute(), ":containers", pod.containersAttribute(),
                ":pod", AttributeValue.fromS(pod.pods().get(0)), ":empty", AttributeValue.fromL(List.of()),
                ":max", AttributeValue.fromN(Integer.toString(RunImages.MAX_PODS))));
        return update(submission, "SET #images.#containers = list_append(#images.#containers, :containers), "
                + "#images.#pods = list_append(if_not_exists(#images.#pods, :empty), :pods)",
                "#run = :run AND #images.#r = :run AND NOT contains(#images.#pods, :pod) AND "
                        + "(attribute_not_exists(#images.#pods) OR size(#images.#pods) < :max)",
                names, values);
    }

    /** The record has no images of the run (none, or an earlier run's): the pod's are the run's first. */
    private boolean firstPod(SubmissionIdentity submission, RunImages pod) {
        return update(submission, "SET #images = :images",
                "#run = :run AND (attribute_not_exists(#images) OR attribute_not_exists(#images.#r) "
                        + "OR #images.#r <> :run)",
                new HashMap<>(Map.of("#run", RUN, "#images", RUN_IMAGES, "#r", RunImages.RUN)),
                new HashMap<>(Map.of(":run", AttributeValue.fromN(Integer.toString(pod.run())),
                        ":images", pod.attribute())));
    }

    /**
     * Reads a key no submission has from every leaderboard's table: table → {@code answers}, or why not. A readiness
     * probe within the launcher's one read permission (GetItem).
     */
    public Map<String, String> probe() {
        var answers = new TreeMap<String, String>();
        var key = Map.of(SubmissionTable.TEAM_ID, AttributeValue.fromS(SubmissionTable.NOT_YET),
                SubmissionTable.SUBMISSION_ID, AttributeValue.fromS(SubmissionTable.NOT_YET));
        evaluation.leaderboards().values().forEach(leaderboard -> {
            String table = leaderboard.submissionsTable();
            try {
                dynamo.getItem(r -> r.tableName(table).key(key));
                answers.put(table, "answers");
            } catch (SdkException e) {
                answers.put(table, "unreachable: " + e.getClass().getSimpleName());
            }
        });
        return answers;
    }

    private boolean update(SubmissionIdentity submission, String expression, String condition,
            Map<String, String> names, Map<String, AttributeValue> values) {
        try {
            dynamo.updateItem(r -> r.tableName(table(submission)).key(key(submission)).updateExpression(expression)
                    .conditionExpression(condition).expressionAttributeNames(names)
                    .expressionAttributeValues(values));
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        }
    }

    private String table(SubmissionIdentity submission) {
        var leaderboard = evaluation.leaderboards().get(submission.leaderboard());
        if (leaderboard == null) {
            throw new UnknownLeaderboardException(submission.leaderboard());
        }
        return leaderboard.submissionsTable();
    }

    private static Map<String, AttributeValue> key(SubmissionIdentity submission) {
        var key = new HashMap<String, AttributeValue>();
        SubmissionTable.key(submission.teamId(), submission.submissionId())
                .forEach((name, value) -> key.put(name, AttributeValue.fromS(value)));
        return key;
    }

    private static int number(Map<String, AttributeValue> item, String attribute, int absent) {
        AttributeValue value = item.get(attribute);
        if (value == null || value.n() == null) {
            return absent;
        }
        try {
            return Integer.parseInt(value.n());
        } catch (NumberFormatException e) {
            return absent;
        }
    }
}
