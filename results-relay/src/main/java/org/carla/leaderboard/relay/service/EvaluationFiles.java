package org.carla.leaderboard.relay.service;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.layout.LogsLayout;
import org.carla.leaderboard.domain.layout.SubmissionFiles;
import org.carla.leaderboard.domain.layout.SubmissionLayout;
import org.carla.leaderboard.domain.record.RunImages;
import org.carla.leaderboard.domain.record.RunVersions;
import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.results.CheckpointMerge;
import org.carla.leaderboard.domain.results.EvalAiFiles;
import org.carla.leaderboard.domain.results.ResultsJson;
import org.carla.leaderboard.relay.client.Evaluation;
import org.carla.leaderboard.relay.config.RelayConfig;
import org.carla.leaderboard.relay.service.RunVerdict.MergedResults;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

/**
 * What EvalAI is shown of a run: read from the merged checkpoint logcopy uploaded ({@code <id>/agent_results.json}, in a
 * run of several pods the most complete of {@code <id>/pod-<i>/agent_results.json},
 * at most {@code relay.results.max-bytes}), audited ({@link ResultsAudit}), and turned into the three EvalAI files by the
 * domain's {@link EvalAiFiles} — the relay never relays {@code evalai/} files a participant's code could have written.
 */
@ApplicationScoped
class EvaluationFiles {

    private static final Logger LOG = Logger.getLogger(EvaluationFiles.class);
    /** The metadata's key of what the run's pod ran ({@link RunImages}). */
    static final String IMAGES = "images";
    static final String VERSIONS = "versions";
    /** The metadata's key of the GPU-hours, as the record's attribute. */
    static final String GPU_HOURS = SubmissionTable.GPU_HOURS;

    private final SubmissionFiles files;
    private final long maxBytes;

    EvaluationFiles(SubmissionFiles files, RelayConfig config) {
        this.files = files;
        this.maxBytes = config.results().maxBytes();
    }

    /** The run's merged checkpoint, audited against its expected routes; or why it cannot be read. */
    MergedResults mergedResults(String bucket, String submissionId, OptionalInt expectedRoutes) {
        return mergedResults(bucket, submissionId, expectedRoutes, 1);
    }

    /**
     * The run's merged checkpoint, audited: in a run of several pods, each pod's logcopy merges the whole run's route
     * ledger into its own folder ({@code pod-<i>/agent_results.json}), a snapshot of a set of finished routes that only
     * grows; the most complete of them is the run's (the pod that ended last merged every route). A pod whose file
     * cannot be read counts as having none.
     */
    MergedResults mergedResults(String bucket, String submissionId, OptionalInt expectedRoutes, int pods) {
        MergedResults best = null;
        for (int index = 0; index < pods; index++) {
            MergedResults pod = podMergedResults(bucket, submissionId, expectedRoutes,
                    SubmissionLayout.podPath(index, pods, LogsLayout.mergedCheckpoint()));
            if (best == null || records(pod) > records(best)
                    || records(pod) == records(best) && best.audit().isEmpty() && pod.audit().isPresent()) {
                best = pod;
            }
        }
        return best;
    }

    private static int records(MergedResults results) {
        return results.audit().map(audit -> audit.shown().checkpoint().records().size()).orElse(-1);
    }

    private MergedResults podMergedResults(String bucket, String submissionId, OptionalInt expectedRoutes,
            String path) {
        var read = files.readBounded(bucket, submissionId, path, maxBytes);
        if (read.missing()) {
            return MergedResults.unreadable("no merged results were uploaded.");
        }
        if (read.text().isEmpty()) {
            return MergedResults.unreadable("the merged results are " + read.size() + " bytes, more than the "
                    + maxBytes + " the relay reads.");
        }
        try {
            return MergedResults.audited(ResultsAudit.of(ResultsJson.parse(read.text().get()), expectedRoutes));
        } catch (IllegalArgumentException e) {
            LOG.infof("submission %s: the merged results %s are unreadable: %s", submissionId, path, e.getMessage());
            return MergedResults.unreadable("the merged results are not a results file.");
        }
    }

    /**
     * The run's merged checkpoint audited as {@link #mergedResults(String, String, OptionalInt, int)}; when it is not
     * complete, each agent's own checkpoint is merged alone too, only to name the route records logcopy's merge refused
     * (a NaN score, a number out of range, an unreadable id), which the merged file no longer holds: the participant
     * reads why their routes did not count. It never makes results complete.
     */
    MergedResults mergedResults(String bucket, String submissionId, OptionalInt expectedRoutes, int workerPairs,
            int pods) {
        var merged = mergedResults(bucket, submissionId, expectedRoutes, pods);
        if (merged.audit().isEmpty() || merged.audit().get().complete()) {
            return merged;
        }
        var audit = merged.audit().get();
        var problems = new ArrayList<>(audit.problems());
        for (int pair = 1; pair <= workerPairs * pods; pair++) {
            String path = SubmissionLayout.runPairPath(pair, workerPairs, pods, LogsLayout::agentCheckpoint);
            var read = files.readBounded(bucket, submissionId, path, maxBytes);
            if (read.text().isEmpty()) {
                continue;
            }
            try {
                for (String problem : CheckpointMerge.merge(List.of(ResultsJson.parse(read.text().get())),
                        expectedRoutes).problems()) {
                    if (problem.startsWith(CheckpointMerge.REFUSED_RECORDS) && !problems.contains(problem)) {
                        problems.add("agent " + pair + "'s " + problem);
                    }
                }
            } catch (IllegalArgumentException e) {
                problems.add("agent " + pair + "'s checkpoint is not a results file");
            }
        }
        return MergedResults.audited(new ResultsAudit(audit.shown(), List.copyOf(problems)));
    }

    /** The update's files for the checkpoint shown, with the given stderr. */
    Evaluation evaluation(CheckpointFile shown, String stderr) {
        Map<String, String> texts = EvalAiFiles.texts(ResultsJson.write(shown));
        return new Evaluation(texts.get(EvalAiFiles.RESULTS), texts.get(EvalAiFiles.STDOUT), stderr,
                metadata(texts.get(EvalAiFiles.METADATA)));
    }

    /**
     * A final update's files, the metadata with {@code gpu_hours}: {@code run}, {@code this_run} and
     * {@code all_runs} (the submission's runs so far, this one included), rounded to 3 decimals; and, once the run's
     * pod started, {@code images}: what ran, exactly ({@code run}, and {@code containers}: each one's {@code pod},
     * {@code container}, {@code image} as asked, {@code image_id} by digest); when its init recorded them,
     * {@code versions}: {@code run} and each version known ({@code leaderboard}, {@code scenario_runner},
     * {@code carla_python_api}).
     */
    Evaluation evaluation(CheckpointFile shown, String stderr, int run, double runGpuHours, double allRuns,
            Optional<RunImages> images, Optional<RunVersions> versions) {
        var evaluation = evaluation(shown, stderr);
        if (evaluation.metadata() instanceof ObjectNode metadata) {
            var gpu = metadata.putObject(GPU_HOURS);
            gpu.put("run", run);
            gpu.put("this_run", Math.round(runGpuHours * 1000) / 1000.0);
            gpu.put("all_runs", Math.round(allRuns * 1000) / 1000.0);
            images.ifPresent(ran -> metadata.set(IMAGES, ResultsJson.mapper().valueToTree(ran.shown())));
            versions.ifPresent(read -> {
                var node = metadata.putObject(VERSIONS);
                node.put("run", read.run());
                read.known().forEach(node::put);
            });
        }
        return evaluation;
    }

    /** {@code results.json} of a submission that produced none: every accuracy 0. */
    static String noResults() {
        return ResultsJson.write(EvalAiFiles.results(Optional.empty()));
    }

    /** The metrics of a {@code results.json} by attribute name; empty when it holds none. */
    static Map<String, Double> metrics(String results) {
        try {
            return EvalAiFiles.snakeCaseAccuracies(results);
        } catch (IllegalArgumentException e) {
            LOG.warnf("results without metrics: %s", e.getMessage());
            return Map.of();
        }
    }

    /**
     * The checkpoint as EvalAI's metadata: JSON has no NaN or Infinity, which a participant's records may hold (EvalAI
     * would refuse the whole update), so such a number travels as its text.
     */
    private static JsonNode metadata(String text) {
        try {
            return printable(ResultsJson.mapper().readTree(text));
        } catch (JacksonException e) {
            throw new IllegalStateException("the relay wrote a checkpoint it cannot read", e);
        }
    }

    private static JsonNode printable(JsonNode node) {
        if (node.isNumber() && !Double.isFinite(node.doubleValue())) {
            return TextNode.valueOf(Double.toString(node.doubleValue()));
        }
        if (node instanceof ObjectNode object) {
            for (Map.Entry<String, JsonNode> field : object.properties()) {
                field.setValue(printable(field.getValue()));
            }
        } else if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                array.set(i, printable(array.get(i)));
            }
        }
        return node;
    }
}
