package org.carla.leaderboard.console.service;

import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.console.SubmissionRecord;
import org.carla.leaderboard.console.client.EvalAiHost;
import org.carla.leaderboard.console.client.EvalAiSubmission;
import org.carla.leaderboard.console.client.SubmissionTables;
import org.carla.leaderboard.domain.track.TrackCatalog;

/**
 * Finds a submission by its EvalAI pk: with its team and leaderboard, one read of the record; without them, the last
 * look's records, then EvalAI (its team and phase give the leaderboard). Every value from a request is checked before
 * it names a table: a leaderboard must be configured, ids must be numbers.
 */
@ApplicationScoped
public class SubmissionLookup {

    private final TrackCatalog catalog;
    private final SubmissionTables tables;
    private final Looks looks;
    private final EvalAiHost evalAi;

    SubmissionLookup(TrackCatalog catalog, SubmissionTables tables, Looks looks, EvalAiHost evalAi) {
        this.catalog = catalog;
        this.tables = tables;
        this.looks = looks;
        this.evalAi = evalAi;
    }

    /** A submission as we found it: our record (absent before ingest wrote it) and where its files are. */
    public record Found(String submissionId, String leaderboard, String bucket, SubmissionRecord record) {

        public Optional<SubmissionRecord> recorded() {
            return Optional.ofNullable(record);
        }
    }

    /** Thrown for ids that are not ids, or a leaderboard nobody configured. */
    public static class BadReference extends RuntimeException {
        public BadReference(String message) {
            super(message);
        }
    }

    public static class UnknownSubmission extends RuntimeException {
        public UnknownSubmission(String message) {
            super(message);
        }
    }

    public Found find(String submissionId, String teamId, String leaderboard) {
        requireNumber(submissionId, "submission");
        if (teamId != null && !teamId.isBlank() && leaderboard != null && !leaderboard.isBlank()) {
            requireNumber(teamId, "team");
            return inTable(submissionId, teamId, leaderboard).orElseThrow(() -> new UnknownSubmission(
                    "no submission " + submissionId + " of team " + teamId + " in " + leaderboard));
        }
        var seen = looks.current().records().stream().filter(r -> submissionId.equals(r.submissionId())).findFirst();
        if (seen.isPresent()) {
            return found(seen.get().leaderboard(), seen.get());
        }
        EvalAiSubmission onEvalAi = evalAi.submission(Long.parseLong(submissionId)).orElseThrow(
                () -> new UnknownSubmission("EvalAI knows no submission " + submissionId));
        var track = onEvalAi.challengePhase() == null ? null : catalog.forPhase(onEvalAi.challengePhase()).orElse(null);
        if (track == null || onEvalAi.participantTeam() == null) {
            throw new UnknownSubmission("submission " + submissionId + " is of phase " + onEvalAi.challengePhase()
                    + ", which no leaderboard evaluates");
        }
        var found = inTable(submissionId, onEvalAi.participantTeam().toString(), track.leaderboard());
        return found.orElseGet(() -> new Found(submissionId, track.leaderboard(), track.bucket(), null));
    }

    private Optional<Found> inTable(String submissionId, String teamId, String leaderboard) {
        var settings = catalog.leaderboard(leaderboard)
                .orElseThrow(() -> new BadReference("no leaderboard '" + leaderboard + "' is configured"));
        return tables.find(leaderboard, settings.submissionsTable(), teamId, submissionId)
                .map(record -> found(leaderboard, record));
    }

    private Found found(String leaderboard, SubmissionRecord record) {
        String bucket = catalog.leaderboard(leaderboard).map(l -> l.bucket()).orElse(null);
        return new Found(record.submissionId(), leaderboard, bucket, record);
    }

    static void requireNumber(String value, String what) {
        if (value == null || !value.matches("[0-9]{1,18}")) {
            throw new BadReference("a " + what + " id is a number, was '" + printable(value) + "'");
        }
    }

    /** A value from a request or a record as one printable log line, bounded. */
    static String printable(String value) {
        if (value == null) {
            return "";
        }
        String clean = value.codePoints().limit(300).filter(c -> c >= 0x20 && c != 0x7f)
                .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append).toString();
        return value.length() > 300 ? clean + "..." : clean;
    }
}
