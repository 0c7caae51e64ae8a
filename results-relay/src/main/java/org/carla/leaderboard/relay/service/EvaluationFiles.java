package org.carla.leaderboard.relay.service;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.event.Progress.EvalAiFileKeys;
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
    EvaluationContent read(String bucket, EvalAiFileKeys keys) {
        String results = files.read(bucket, keys.results()).filter(text -> !text.isBlank())
                .orElseGet(ResultsFile::empty);
        String stdout = files.read(bucket, keys.stdout()).orElse("");
        JsonNode metadata = files.read(bucket, keys.metadata()).map(text -> parse(bucket, keys.metadata(), text))
                .orElseGet(mapper::createObjectNode);
        return new EvaluationContent(results, stdout, metadata);
    }

    private JsonNode parse(String bucket, String key, String text) {
        try {
            return mapper.readTree(text);
        } catch (JsonProcessingException e) {
            LOG.warnf("s3://%s/%s is not JSON; sending empty metadata", bucket, key);
            return mapper.createObjectNode();
        }
    }

    record EvaluationContent(String results, String stdout, JsonNode metadata) {
    }
}
