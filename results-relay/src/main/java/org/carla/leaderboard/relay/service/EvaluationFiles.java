package org.carla.leaderboard.relay.service;

import java.util.Map;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.layout.LogsLayout;
import org.carla.leaderboard.domain.results.EvalAiFiles;
import org.carla.leaderboard.domain.results.ResultsJson;
import org.carla.leaderboard.relay.store.SubmissionFiles;
import org.jboss.logging.Logger;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Reads the three files logcopy wrote for EvalAI ({@code results.json}, {@code stdout.txt}, {@code metadata.json}). */
@ApplicationScoped
class EvaluationFiles {

    private static final Logger LOG = Logger.getLogger(EvaluationFiles.class);

    private final SubmissionFiles files;
    private final ObjectMapper mapper;

    EvaluationFiles(SubmissionFiles files, ObjectMapper mapper) {
        this.files = files;
        this.mapper = mapper;
    }

    /** The files as logcopy left them; a missing file reads as no results, no output, no metadata. */
    EvaluationContent read(String bucket, String submissionId) {
        String results = files.read(bucket, submissionId, LogsLayout.evalAiFile(EvalAiFiles.RESULTS))
                .filter(text -> !text.isBlank()).orElseGet(EvaluationFiles::noResults);
        String stdout = files.read(bucket, submissionId, LogsLayout.evalAiFile(EvalAiFiles.STDOUT)).orElse("");
        String metadataPath = LogsLayout.evalAiFile(EvalAiFiles.METADATA);
        JsonNode metadata = files.read(bucket, submissionId, metadataPath)
                .map(text -> parse(submissionId, metadataPath, text)).orElseGet(mapper::createObjectNode);
        return new EvaluationContent(results, stdout, metadata);
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

    private JsonNode parse(String submissionId, String path, String text) {
        try {
            return mapper.readTree(text);
        } catch (JsonProcessingException e) {
            LOG.warnf("submission %s: %s is not JSON; sending empty metadata", submissionId, path);
            return mapper.createObjectNode();
        }
    }

    record EvaluationContent(String results, String stdout, JsonNode metadata) {
    }
}
