package org.carla.leaderboard.podruntime.cli;

import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.Callable;

import org.carla.leaderboard.domain.results.CheckpointMerge;
import org.carla.leaderboard.domain.results.MergeResult;
import org.carla.leaderboard.domain.results.ResultsJson;
import org.carla.leaderboard.podruntime.ExitCodes;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code pod-runtime merge-results}: the Leaderboard's {@code merge_statistics.py} for operators. Exit 0 when merged,
 * 1 when every route is there but the global results were refused (duplicated or missing route ids, other sensors):
 * the merged file is written without them and the refusal names the routes.
 */
@Command(name = "merge-results", mixinStandardHelpOptions = true,
        description = "Merges the agents' partial checkpoints into one, with the global results when every route is there.")
public class MergeResultsCommand implements Callable<Integer> {

    @Option(names = { "-f", "--file-paths" }, arity = "1..*", required = true,
            description = "The agents' checkpoints, in order; a missing or empty file counts as no data.")
    List<Path> filePaths;

    @Option(names = { "-e", "--endpoint" }, required = true, description = "Where to write the merged checkpoint.")
    Path endpoint;

    @Option(names = "--expected-routes", paramLabel = "T",
            description = "Routes × repetitions of the submission: no global results over fewer routes.")
    Integer expectedRoutes;

    @Override
    public Integer call() {
        if (expectedRoutes != null && expectedRoutes < 1) {
            System.err.println("merge-results: --expected-routes must be at least 1, was " + expectedRoutes);
            return ExitCodes.BAD_CONFIGURATION;
        }
        MergeResult result = CheckpointMerge.mergeFiles(filePaths,
                expectedRoutes == null ? OptionalInt.empty() : OptionalInt.of(expectedRoutes));
        ResultsJson.write(endpoint, result.merged());
        result.skippedInputs().forEach(skipped -> System.err.println("merge-results: no data from " + skipped));
        System.out.printf("merge-results: %d of %d routes, global results: %s, entry status %s -> %s%n",
                result.routesDone(), result.routesTotal(), result.globalResults() ? "yes" : "no",
                result.merged().entryStatus(), endpoint);
        result.invalidReason().ifPresent(reason -> System.err.println("merge-results: the entry is Invalid: " + reason));
        if (result.refused()) {
            result.problems().forEach(problem -> System.err.println("merge-results: refused: " + problem));
            return 1;
        }
        return 0;
    }
}
