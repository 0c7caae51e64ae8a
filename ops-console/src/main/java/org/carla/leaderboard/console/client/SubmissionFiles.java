package org.carla.leaderboard.console.client;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.layout.LogsLayout;
import org.carla.leaderboard.domain.layout.SubmissionLayout;
import org.carla.leaderboard.domain.results.EvalAiFiles;
import org.carla.leaderboard.domain.status.StatusFiles;

import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A submission's objects in its leaderboard's bucket, read only, every key built by the domain's
 * {@link SubmissionLayout} and {@link LogsLayout} (never taken from a request).
 */
@ApplicationScoped
public class SubmissionFiles {

    private final S3Client s3;

    SubmissionFiles(S3Client s3) {
        this.s3 = s3;
    }

    /** A status file the containers left, with the time S3 last received it. */
    public record StatusFile(String name, Instant at) {
    }

    /** The files of {@code <submission_id>/containers-status/}, oldest first. */
    public List<StatusFile> statusFiles(String bucket, String submissionId) {
        var files = new ArrayList<StatusFile>();
        s3.listObjectsV2Paginator(r -> r.bucket(bucket).prefix(SubmissionLayout.statusPrefix(submissionId)))
                .contents().forEach(object -> files.add(new StatusFile(StatusFiles.baseName(object.key()),
                        object.lastModified())));
        files.sort((a, b) -> a.at() == null || b.at() == null ? 0 : a.at().compareTo(b.at()));
        return files;
    }

    /**
     * The last lines of a container's log ({@link LogsLayout#containerLog}): one ranged GET of its last
     * {@code maxBytes}, the first line dropped when the range cut it, then at most {@code maxLines}; empty when the
     * container writes no log here or none was uploaded yet.
     */
    public Optional<String> logTail(String bucket, String submissionId, String container, int maxBytes, int maxLines) {
        Optional<String> relative = LogsLayout.containerLog(container);
        if (relative.isEmpty()) {
            return Optional.empty();
        }
        String key = SubmissionLayout.key(submissionId, relative.get());
        try {
            var object = s3.getObjectAsBytes(r -> r.bucket(bucket).key(key).range("bytes=-" + maxBytes));
            String text = object.asString(StandardCharsets.UTF_8);
            if (cut(object.response().contentRange())) {
                int newline = text.indexOf('\n');
                text = newline < 0 ? "" : text.substring(newline + 1);
            }
            return Optional.of(lastLines(text, maxLines));
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        } catch (S3Exception e) {
            if (e.statusCode() == 404 || e.statusCode() == 416) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** The accuracies EvalAI was last sent for the submission ({@code evalai/results.json}); empty before any. */
    public Optional<String> evalAiResults(String bucket, String submissionId) {
        String key = SubmissionLayout.key(submissionId, LogsLayout.evalAiFile(EvalAiFiles.RESULTS));
        try {
            return Optional.of(s3.getObjectAsBytes(r -> r.bucket(bucket).key(key)).asString(StandardCharsets.UTF_8));
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** Whether the bucket answers. */
    public void head(String bucket) {
        s3.headBucket(r -> r.bucket(bucket));
    }

    /** {@code bytes 120-8311/8312}: the range began after the first byte, so its first line is likely cut. */
    static boolean cut(String contentRange) {
        if (contentRange == null || !contentRange.startsWith("bytes ")) {
            return false;
        }
        int dash = contentRange.indexOf('-');
        try {
            return dash > 6 && Long.parseLong(contentRange.substring(6, dash).trim()) > 0;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    static String lastLines(String text, int maxLines) {
        String trimmed = text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
        if (trimmed.isEmpty()) {
            return "";
        }
        String[] lines = trimmed.split("\n", -1);
        int from = Math.max(0, lines.length - maxLines);
        return String.join("\n", java.util.Arrays.copyOfRange(lines, from, lines.length));
    }
}
