package org.carla.leaderboard.domain.event;

import java.time.Instant;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.annotation.JsonTypeName;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * logcopy's report on {@code progress-reports}: how many route records the merged results hold of how many expected,
 * whether the global results were computed, and a digest of the merged results so the relay can tell news from a
 * repeat. Sent when the results changed, as a heartbeat when nothing did for a long while, and once more at the end.
 * It comes from a submission pod, where a participant's code runs: results-relay believes nothing in it before checking
 * it against the record (the submission exists, its current run is {@code run}, it is running) and reads the files it
 * relays only under that submission's own prefix, never at a key a report names.
 *
 * @param resultsDigest SHA-256 (hex) of the merged {@code results.json} as uploaded; the same text has the same digest
 * @param heartbeat     true when sent because nothing changed for the heartbeat interval
 * @param ending        {@code null} while logcopy runs; how it ended in its last report
 * @param notUploaded   files of the logs volume that could not be uploaded before the end (at most
 *                      {@link #MAX_NOT_UPLOADED} names, relative to the volume), empty otherwise
 */
@RegisterForReflection
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "type")
@JsonTypeName(Progress.TYPE)
public record Progress(int version, SubmissionRef submission, int run, int routesDone, int routesTotal,
        boolean globalResults, String resultsDigest, boolean heartbeat, Ending ending, List<String> notUploaded,
        Instant at) {

    public static final String TYPE = "progress";
    public static final int MAX_NOT_UPLOADED = 50;

    /** How logcopy's last report ended. */
    public enum Ending {
        /** Every worker pair is done and every file is uploaded (or named in {@code not_uploaded}). */
        FINISHED,
        /** logcopy saw the cancel control object and stopped the pod's containers. */
        CANCELLED,
        /** Stopped by Kubernetes (SIGTERM) before either. */
        STOPPED,
        /**
         * A {@code simulation.cancel} that logcopy did not write appeared in the logs volume (the participant's code
         * can write it); the worker pairs stop on it, so logcopy made its last upload and ended. No cancel was
         * requested and the run did not finish: {@code logcopy.done} is not written.
         */
        UNREQUESTED_CANCEL,
        /**
         * The pod's pair containers restarted as often as the track allows ({@code RESTART_LIMIT}): logcopy made its
         * last upload and ended the pod with {@code RESTART_LIMIT_EXIT_CODE}, on which the Job fails.
         */
        RESTART_LIMIT
    }

    public Progress {
        Require.version(version);
        Require.present(submission, "submission");
        Require.run(run);
        Require.atLeast(routesDone, 0, "routes_done");
        Require.atLeast(routesTotal, 0, "routes_total");
        Require.text(resultsDigest, "results_digest");
        if (!resultsDigest.matches("[0-9a-f]{64}")) {
            throw MalformedEventException.invalid("results_digest", "must be 64 lower-case hex digits");
        }
        notUploaded = notUploaded == null ? List.of() : List.copyOf(notUploaded);
        if (notUploaded.size() > MAX_NOT_UPLOADED) {
            throw MalformedEventException.invalid("not_uploaded", "at most " + MAX_NOT_UPLOADED + " names");
        }
        Require.present(at, "at");
    }

    public static Progress of(SubmissionRef submission, int run, int routesDone, int routesTotal,
            boolean globalResults, String resultsDigest, boolean heartbeat, Ending ending, List<String> notUploaded,
            Instant at) {
        return new Progress(EventCodec.VERSION, submission, run, routesDone, routesTotal, globalResults, resultsDigest,
                heartbeat, ending, notUploaded, at);
    }

    @JsonIgnore
    public String type() {
        return TYPE;
    }
}
