package org.carla.leaderboard.domain.track;

import java.util.Map;

import io.quarkus.runtime.annotations.RegisterForReflection;

import org.carla.leaderboard.domain.layout.SubmissionLayout;

/**
 * Everything needed to run one submission of a track, resolved from the configuration at intake and carried by the
 * launch request, so the Job is built from the request alone and a configuration change never alters a submission
 * that is already queued.
 *
 * @param leaderboard     leaderboard id, e.g. {@code leaderboard-20}: selects bucket, table and cluster
 * @param track           the track's codename, e.g. {@code SENSORS}
 * @param bucket          the leaderboard's S3 bucket
 * @param leaderboardVersion the Leaderboard the leaderboard's image runs: the evaluator's arguments
 * @param routesFile      the routes XML, a path inside the Leaderboard volume
 * @param scenariosFile   Leaderboard 1.0: the scenarios file, a path inside the Leaderboard volume; else {@code null}
 * @param routes          number of routes in that file
 * @param repetitions     how many times each route is driven
 * @param workerPairs     simulator/agent pairs of the Job (one per GPU)
 * @param instanceType    node selector value for {@code node.kubernetes.io/instance-type}
 * @param simulatorImage  the CARLA server image
 * @param leaderboardImage the image with the Leaderboard, ScenarioRunner, CARLA PythonAPI and the private contents
 * @param podRuntimeImage the image holding the pod-runtime executable
 * @param renderer        CARLA's renderer flag: {@code opengl} (Leaderboard 1.0) or {@code vulkan} (2.0)
 * @param deadlineSeconds the Job's {@code activeDeadlineSeconds}
 * @param allowedResumes  how many times a crashed pair may restart and resume ({@code backoffLimit} = 2 × + 1)
 * @param hideLogs        whether a failed submission's container logs are withheld from the participant
 * @param qualifiesFor    for a qualifier track: the track codename a pass opens, else {@code null}
 * @param thresholds      for a qualifier track: metric (snake case) → value to exceed
 * @param schedule        {@code dynamic} or {@code static}: the pairs claim their routes from the run's route ledger
 *                        ({@code ledger.Schedule}); {@code null}: each pair drives its static share, no ledger
 * @param ledgerTable     the route ledger's table when {@code schedule} is set, else {@code null}
 * @param pods            the run's pods, each of {@code workerPairs} pairs on its own GPU node (an Indexed Job's
 *                        completions): 1, the seeds' layout, or several, which claim from one route ledger
 */
@RegisterForReflection
public record TrackSpec(String leaderboard, String track, String bucket, LeaderboardVersion leaderboardVersion,
        String routesFile, String scenariosFile, int routes,
        int repetitions, int workerPairs, String instanceType, String simulatorImage, String leaderboardImage,
        String podRuntimeImage, String renderer, long deadlineSeconds, int allowedResumes, boolean hideLogs,
        String qualifiesFor, Map<String, Double> thresholds, String schedule, String ledgerTable, int pods) {

    public TrackSpec {
        thresholds = thresholds == null ? Map.of() : Map.copyOf(thresholds);
        if (pods < 1 || pods > SubmissionLayout.MAX_PODS) {
            throw new IllegalArgumentException("a run has 1 to " + SubmissionLayout.MAX_PODS + " pods, not " + pods);
        }
        if (pods > 1 && schedule == null) {
            throw new IllegalArgumentException("a run of " + pods + " pods claims its routes from a route ledger: it"
                    + " needs a schedule");
        }
    }

    /** Whether the run's pairs claim their routes from a route ledger. */
    public boolean claimsRoutes() {
        return schedule != null;
    }

    /** Routes × repetitions: the number of route records a complete submission has. */
    public int expectedRouteRecords() {
        return routes * repetitions;
    }

    /** Every worker pair of the run: each pod's, times its pods. */
    public int runPairs() {
        return effectiveWorkerPairs() * pods;
    }

    /** Worker pairs actually used in each pod: never more pairs than routes. */
    public int effectiveWorkerPairs() {
        return Math.max(1, Math.min(workerPairs, routes));
    }
}
