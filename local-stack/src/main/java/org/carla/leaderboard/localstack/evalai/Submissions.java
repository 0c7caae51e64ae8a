package org.carla.leaderboard.localstack.evalai;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The stand-in's submissions and EvalAI's rules for them: what the host API's updates accept (statuses per endpoint,
 * results checked against the phase), what the host-side controls may do (cancel an unfinished submission; resume a
 * failed one only, re-publishing the same pk), and the messages published on the way.
 */
final class Submissions {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> FINAL = Set.of("finished", "failed", "cancelled");
    private static final Set<String> PARTIAL = Set.of("finished", "failed", "cancelled", "partially_evaluated");
    private static final Set<String> PATCHABLE = Set.of("queued", "running");
    /** EvalAI's {@code Submission.STATUS_OPTIONS}: what its serializer accepts for {@code status}. */
    private static final Set<String> STATUSES = Set.of("submitting", "submitted", "queued", "running", "failed",
            "cancelled", "resuming", "finished", "archived", "partially_evaluated");
    /** The statuses {@code get_submissions_for_challenge} filters by (its own list). */
    private static final Set<String> LISTABLE = Set.of("submitted", "running", "queued", "resuming", "failed",
            "cancelled", "finished", "submitting");
    private static final Set<String> CANCELLABLE = Set.of("submitting", "submitted", "queued", "running", "resuming",
            "partially_evaluated");

    /** What EvalAI's host-only views answer, with 400, to a user who is not a host of the challenge. */
    static final String NOT_A_HOST = "Sorry, you are not authorized to make this request!";

    private final EvalAiOptions options;
    private final Map<Long, Submission> submissions = new TreeMap<>();
    private long nextPk = 1;

    /** One submission's mutable state; guarded by the enclosing store. */
    private static final class Submission {
        long pk;
        long phasePk;
        long teamId;
        String teamName;
        String image;
        String status;
        final List<String> history = new ArrayList<>();
        String result;
        List<Map<String, Object>> publicResults;
        String stdout;
        String stderr;
        String metadata;
        final List<String> jobNames = new ArrayList<>();
        Instant submittedAt;
        Instant startedAt;
        Instant completedAt;
        Instant rerunResumedAt;

        void status(String value) {
            status = value;
            history.add(value);
        }
    }

    Submissions(EvalAiOptions options) {
        this.options = options;
    }

    synchronized SubmissionView create(NewSubmission request) {
        if (!options.phases().containsKey(request.phasePk())) {
            throw EvalAiError.badRequest("Challenge phase " + request.phasePk() + " does not exist in challenge "
                    + options.challengePk());
        }
        Submission submission = new Submission();
        submission.pk = nextPk++;
        submission.phasePk = request.phasePk();
        submission.teamId = request.teamId();
        submission.teamName = request.teamName();
        submission.image = request.imageUri();
        submission.submittedAt = request.submittedAt() != null ? request.submittedAt() : options.clock().instant();
        submission.status("submitted");
        submissions.put(submission.pk, submission);
        try {
            publish(submission, request.pksAsStrings() == null ? options.pksAsStrings() : request.pksAsStrings());
        } catch (RuntimeException e) {
            // Nobody will ever evaluate a submission whose message was not sent: forget it, the caller retries.
            submissions.remove(submission.pk);
            throw e;
        }
        return view(submission);
    }

    synchronized SubmissionView cancel(long pk) {
        Submission submission = find(pk);
        if (!CANCELLABLE.contains(submission.status)) {
            throw EvalAiError.badRequest("Submission " + pk + " is " + submission.status + " and cannot be cancelled");
        }
        submission.status("cancelled");
        return view(submission);
    }

    synchronized SubmissionView resume(long pk) {
        Submission submission = find(pk);
        if (!"failed".equals(submission.status)) {
            throw EvalAiError.badRequest("Only failed submissions can be resumed");
        }
        submission.status("resuming");
        submission.rerunResumedAt = options.clock().instant();
        publish(submission, options.pksAsStrings());
        return view(submission);
    }

    /**
     * {@code PATCH /api/jobs/challenges/{challenge_pk}/submissions/{pk}/update_submission_meta/}: EvalAI's serializer,
     * partial, for a host of the challenge; of its fields the stand-in keeps {@code status}, which the host may set to
     * any of EvalAI's statuses (EvalAI checks nothing else there: its cancel button sends {@code cancelled}). Anyone
     * else takes EvalAI's participant branch, and is a participant of no team here: 404 for the team {@code None}.
     */
    synchronized Map<String, Object> updateMeta(long challengePk, long pk, boolean host, Map<String, Object> data,
            String baseUrl) {
        if (!host || challengePk != options.challengePk()) {
            throw new EvalAiError(404, "detail", "ParticipantTeam None does not exist");
        }
        Submission submission = find(pk);
        if (data.containsKey("status")) {
            String status = lower(data.get("status"));
            if (!STATUSES.contains(status)) {
                throw new EvalAiError(400, "status", "\"" + status + "\" is not a valid choice.");
            }
            submission.status(status);
        }
        return serialized(submission, baseUrl);
    }

    /**
     * {@code POST /api/jobs/submissions/{pk}/resume/}: {@link #resume}, answered as EvalAI does, in its order: an
     * unknown submission, one not failed, then a caller who is not a host (the challenge does not let participants
     * resume).
     */
    synchronized Map<String, Object> hostResume(long pk, boolean host) {
        Submission submission = submissions.get(pk);
        if (submission == null) {
            throw new EvalAiError(404, "error", "Submission " + pk + " does not exist");
        }
        if (!"failed".equals(submission.status)) {
            throw EvalAiError.badRequest("Only failed submissions can be resumed");
        }
        if (!host) {
            throw new EvalAiError(403, "error", "Only challenge hosts are allowed to resume a submission");
        }
        resume(pk);
        return Map.of("success", "Submission is successfully resumed");
    }

    /**
     * {@code GET /api/jobs/challenge/{challenge_pk}/submission/?status=&submitted_after=&submitted_before=}: EvalAI's
     * {@code get_submissions_for_challenge}, for the challenge's hosts: every submission of the challenge, filtered by
     * one status (of EvalAI's list there, which has no {@code partially_evaluated}) and by submission time (strictly
     * after, strictly before; ISO-8601 as Django's {@code parse_datetime} reads it), serialized as the single read is,
     * unpaginated (EvalAI's view returns its whole queryset: no paginator). An unknown challenge: 404; a caller who is
     * not its host: 400.
     */
    synchronized List<Map<String, Object>> list(long challengePk, boolean host, String status, String submittedAfter,
            String submittedBefore, String baseUrl) {
        if (challengePk != options.challengePk()) {
            throw new EvalAiError(404, "detail", "Challenge " + challengePk + " does not exist");
        }
        requireHost(challengePk, host);
        if (status != null && !status.isEmpty() && !LISTABLE.contains(status)) {
            throw new EvalAiError(400, "error", "Invalid submission status " + status);
        }
        Instant after = listTime(submittedAfter, "submitted_after");
        Instant before = listTime(submittedBefore, "submitted_before");
        return submissions.values().stream()
                .filter(s -> status == null || status.isEmpty() || s.status.equals(status))
                .filter(s -> after == null || s.submittedAt.isAfter(after))
                .filter(s -> before == null || s.submittedAt.isBefore(before))
                .map(s -> serialized(s, baseUrl))
                .toList();
    }

    private static Instant listTime(String value, String name) {
        if (value == null || value.isEmpty()) {
            return null;
        }
        try {
            return java.time.OffsetDateTime.parse(value.replace(' ', 'T')).toInstant();
        } catch (java.time.format.DateTimeParseException e) {
            try {
                // Django reads a time without offset as naive; the stand-in, like EvalAI's servers, runs in UTC.
                return java.time.LocalDateTime.parse(value.replace(' ', 'T')).toInstant(java.time.ZoneOffset.UTC);
            } catch (java.time.format.DateTimeParseException naive) {
                throw new EvalAiError(400, "error", "Invalid datetime format for '" + name + "'");
            }
        }
    }

    synchronized Optional<SubmissionView> view(long pk) {
        return Optional.ofNullable(submissions.get(pk)).map(this::view);
    }

    synchronized List<SubmissionView> all() {
        return submissions.values().stream().map(this::view).toList();
    }

    /** {@code PUT /api/jobs/challenge/{challenge_pk}/update_submission/}. */
    synchronized Map<String, Object> updateFinal(long challengePk, boolean host, Map<String, Object> data) {
        return update(challengePk, host, data, FINAL, false);
    }

    /** {@code PUT /api/jobs/challenges/{challenge_pk}/update_partially_evaluated_submission/}. */
    synchronized Map<String, Object> updatePartial(long challengePk, boolean host, Map<String, Object> data) {
        return update(challengePk, host, data, PARTIAL, true);
    }

    /** {@code PATCH} on either update path: queued|running, and a Job name appended. */
    synchronized Map<String, Object> patch(long challengePk, boolean host, Map<String, Object> data, String baseUrl) {
        requireHost(challengePk, host);
        Submission submission = find(data.get("submission"));
        String status = lower(data.get("submission_status"));
        String jobName = lower(data.get("job_name"));
        if (!PATCHABLE.contains(status)) {
            throw EvalAiError.badRequest("Sorry, submission status is invalid");
        }
        if (!jobName.isEmpty()) {
            submission.jobNames.add(jobName);
        }
        submission.status(status);
        submission.startedAt = options.clock().instant();
        return serialized(submission, baseUrl);
    }

    /**
     * {@code GET /api/jobs/submission/{pk}}: EvalAI's submission serializer, plus the submitted image, for a host of the
     * challenge (or the submission's owner, not a user here); anyone else gets EvalAI's 401.
     */
    synchronized Map<String, Object> read(long pk, boolean host, String baseUrl) {
        Submission submission = submissions.get(pk);
        if (submission == null) {
            throw new EvalAiError(404, "error", "Submission " + pk + " does not exist");
        }
        if (!host) {
            throw new EvalAiError(401, "error", "Sorry, you are not authorized to access this submission.");
        }
        return serialized(submission, baseUrl);
    }

    /** The files EvalAI stores for a submission, served under {@code /media/...} as its storage would. */
    synchronized Optional<String> file(long pk, String name) {
        Submission submission = submissions.get(pk);
        if (submission == null) {
            return Optional.empty();
        }
        return Optional.ofNullable(switch (name) {
            case "stdout.txt" -> submission.stdout;
            case "stderr.txt" -> submission.stderr;
            case "submission_result.json" -> submission.publicResults == null ? null : json(submission.publicResults);
            case "submission_metadata_file.json" -> submission.metadata;
            case "input_file.json" -> json(Map.of("submitted_image_uri", submission.image));
            default -> null;
        });
    }

    private Map<String, Object> update(long challengePk, boolean host, Map<String, Object> data, Set<String> allowed,
            boolean partial) {
        requireHost(challengePk, host);
        Submission submission = find(data.get("submission"));
        String status = lower(data.get("submission_status"));
        if (!allowed.contains(status)) {
            throw EvalAiError.badRequest("Sorry, submission status is invalid");
        }
        List<Map<String, Object>> shown = null;
        if ("finished".equals(status) || "partially_evaluated".equals(status)) {
            shown = ResultCheck.check(data.get("result"), data.get("challenge_phase"), options.phases(), partial);
            submission.result = (String) data.get("result");
        }
        submission.status(status);
        submission.completedAt = options.clock().instant();
        submission.stdout = text(data.get("stdout"));
        submission.stderr = text(data.get("stderr"));
        submission.metadata = text(data.get("metadata"));
        submission.publicResults = shown == null ? List.of() : shown;
        return Map.of("success", "Submission result has been successfully updated");
    }

    /** EvalAI's answer to a caller who is not a host of the challenge (or of a challenge that does not exist). */
    private void requireHost(long challengePk, boolean host) {
        if (!host || challengePk != options.challengePk()) {
            throw EvalAiError.badRequest(NOT_A_HOST);
        }
    }

    private Submission find(Object pk) {
        Long value = pk(pk);
        Submission submission = value == null ? null : submissions.get(value);
        if (submission == null) {
            throw new EvalAiError(404, "detail", "Submission " + (pk == null ? "None" : pk) + " does not exist");
        }
        return submission;
    }

    private void publish(Submission submission, boolean pksAsStrings) {
        // EvalAI's key order: challenge, phase, the static-upload flag, the image, then the new submission's pk.
        Map<String, Object> message = new LinkedHashMap<>();
        message.put("challenge_pk", pksAsStrings ? String.valueOf(options.challengePk()) : options.challengePk());
        message.put("phase_pk", pksAsStrings ? String.valueOf(submission.phasePk) : submission.phasePk);
        message.put("is_static_dataset_code_upload_submission", false);
        message.put("submitted_image_uri", submission.image);
        message.put("submission_pk", pksAsStrings ? String.valueOf(submission.pk) : submission.pk);
        options.publisher().publish(json(message));
    }

    private Map<String, Object> serialized(Submission submission, String baseUrl) {
        String media = baseUrl + "/media/submission_files/submission_" + submission.pk + "/";
        boolean evaluated = submission.completedAt != null;
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("id", submission.pk);
        out.put("participant_team", submission.teamId);
        out.put("participant_team_name", submission.teamName);
        out.put("execution_time", submission.startedAt != null && submission.completedAt != null
                ? (submission.completedAt.toEpochMilli() - submission.startedAt.toEpochMilli()) / 1000.0 : "None");
        out.put("challenge_phase", submission.phasePk);
        out.put("created_by", submission.teamId);
        out.put("status", submission.status);
        out.put("input_file", media + "input_file.json");
        out.put("submission_input_file", null);
        out.put("stdout_file", evaluated ? media + "stdout.txt" : null);
        out.put("stderr_file", evaluated ? media + "stderr.txt" : null);
        out.put("environment_log_file", null);
        out.put("started_at", time(submission.startedAt));
        out.put("completed_at", time(submission.completedAt));
        out.put("submitted_at", time(submission.submittedAt));
        out.put("rerun_resumed_at", time(submission.rerunResumedAt));
        out.put("method_name", "");
        out.put("method_description", "");
        out.put("project_url", "");
        out.put("publication_url", "");
        out.put("is_public", false);
        out.put("is_flagged", false);
        out.put("ignore_submission", false);
        out.put("submission_result_file", evaluated ? media + "submission_result.json" : null);
        out.put("when_made_public", null);
        out.put("is_baseline", false);
        out.put("job_name", List.copyOf(submission.jobNames));
        out.put("submission_metadata", null);
        out.put("is_verified_by_host", false);
        out.put("submitted_image_uri", submission.image);
        return out;
    }

    private SubmissionView view(Submission s) {
        return new SubmissionView(s.pk, options.challengePk(), s.phasePk, s.teamId, s.teamName, s.status, List.copyOf(s.history), s.image,
                s.result, s.stdout, s.stderr, s.metadata, List.copyOf(s.jobNames), s.submittedAt, s.startedAt,
                s.completedAt, s.rerunResumedAt);
    }

    /** A pk as EvalAI's request data carries it: a number or a numeric string; null when neither. */
    static Long pk(Object value) {
        if (value instanceof Number number) {
            return number.longValue();
        }
        if (value instanceof String text && text.trim().matches("[0-9]{1,18}")) {
            return Long.parseLong(text.trim());
        }
        return null;
    }

    private static String lower(Object value) {
        return value == null ? "" : value.toString().toLowerCase(Locale.ROOT);
    }

    private static String text(Object value) {
        if (value == null) {
            return "";
        }
        return value instanceof String text ? text : json(value);
    }

    private static String time(Instant instant) {
        return instant == null ? null : instant.toString();
    }

    static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
