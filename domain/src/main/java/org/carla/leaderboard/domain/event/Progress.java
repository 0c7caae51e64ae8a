package org.carla.leaderboard.domain.event;

import java.time.Instant;

import com.fasterxml.jackson.annotation.JsonIgnore;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * logcopy's report of one period: how many route records exist of how many expected, whether the global results
 * were computed, and where the three EvalAI files are in the leaderboard's bucket.
 */
@RegisterForReflection
public record Progress(int version, SubmissionIdentity submission, int routesDone, int routesTotal,
        boolean globalResults, EvalAiFileKeys files, Instant at) implements SubmissionEvent {

    public static final String TYPE = "progress";

    public Progress {
        Require.version(version);
        Require.present(submission, "submission");
        Require.atLeast(routesDone, 0, "routes_done");
        Require.atLeast(routesTotal, 0, "routes_total");
        Require.present(files, "files");
        Require.present(at, "at");
    }

    public static Progress of(SubmissionIdentity submission, int routesDone, int routesTotal, boolean globalResults,
            EvalAiFileKeys files, Instant at) {
        return new Progress(EventCodec.VERSION, submission, routesDone, routesTotal, globalResults, files, at);
    }

    @Override
    @JsonIgnore
    public String type() {
        return TYPE;
    }

    /** S3 keys (in the leaderboard's bucket) of {@code results.json}, {@code stdout.txt} and {@code metadata.json}. */
    @RegisterForReflection
    public record EvalAiFileKeys(String results, String stdout, String metadata) {

        public EvalAiFileKeys {
            Require.text(results, "results");
            Require.text(stdout, "stdout");
            Require.text(metadata, "metadata");
        }

        /** The keys under a submission's prefix: {@code <submission_id>/evalai/...}. */
        public static EvalAiFileKeys under(String submissionId) {
            var prefix = submissionId + "/evalai/";
            return new EvalAiFileKeys(prefix + "results.json", prefix + "stdout.txt", prefix + "metadata.json");
        }
    }
}
