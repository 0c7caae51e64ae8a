package org.carla.leaderboard.relay.store;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.layout.SubmissionLayout;
import org.carla.leaderboard.domain.status.StatusFiles;

import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A submission's files in its leaderboard's bucket, under {@code <submission_id>/}: what logcopy uploaded (EvalAI
 * files, status files, logs) and the cancel control object the relay writes. Every key is built here from the
 * submission id and a path of {@link LogsLayout} with {@link SubmissionLayout}, never taken from a message.
 */
@ApplicationScoped
public class SubmissionFiles {

    private final S3Client s3;

    SubmissionFiles(S3Client s3) {
        this.s3 = s3;
    }

    /** The object at a path of the submission's logs volume, as text; empty when it does not exist. */
    public Optional<String> read(String bucket, String submissionId, String relative) {
        String key = SubmissionLayout.key(submissionId, relative);
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

    /**
     * The object at a path of the submission's logs volume, as text, when it holds at most {@code maxBytes}: a file a
     * participant's code can grow never fills the relay's memory.
     */
    public Bounded readBounded(String bucket, String submissionId, String relative, long maxBytes) {
        String key = SubmissionLayout.key(submissionId, relative);
        long size;
        try {
            size = s3.headObject(r -> r.bucket(bucket).key(key)).contentLength();
        } catch (NoSuchKeyException e) {
            return Bounded.MISSING;
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return Bounded.MISSING;
            }
            throw e;
        }
        if (size > maxBytes) {
            return new Bounded(Optional.empty(), size);
        }
        return read(bucket, submissionId, relative).map(text -> new Bounded(Optional.of(text), size))
                .orElse(Bounded.MISSING);
    }

    /**
     * A bounded read: the text, or none with the size found (-1: no such object; above the bound: too large).
     */
    public record Bounded(Optional<String> text, long size) {

        static final Bounded MISSING = new Bounded(Optional.empty(), -1);

        public boolean missing() {
            return size < 0;
        }
    }

    /** The last {@code maxBytes} of an object (cut to whole lines); empty when it does not exist. */
    public Optional<String> tail(String bucket, String submissionId, String relative, int maxBytes) {
        String key = SubmissionLayout.key(submissionId, relative);
        long size;
        try {
            size = s3.headObject(r -> r.bucket(bucket).key(key)).contentLength();
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return Optional.empty();
            }
            throw e;
        }
        if (size == 0) {
            return Optional.of("");
        }
        long start = Math.max(0, size - maxBytes);
        String text = s3.getObjectAsBytes(r -> r.bucket(bucket).key(key).range("bytes=" + start + "-" + (size - 1)))
                .asString(StandardCharsets.UTF_8);
        if (start > 0) {
            // The first line is most likely cut in the middle (maybe in a multi-byte character): drop it.
            int newline = text.indexOf('\n');
            text = newline < 0 ? text : text.substring(newline + 1);
        }
        return Optional.of(text);
    }

    /** The names of the status files the submission's containers left ({@code agent-1.done}, ...), all pages. */
    public List<String> statusFiles(String bucket, String submissionId) {
        var names = new ArrayList<String>();
        s3.listObjectsV2Paginator(r -> r.bucket(bucket).prefix(SubmissionLayout.statusPrefix(submissionId)))
                .contents().forEach(object -> names.add(StatusFiles.baseName(object.key())));
        return names;
    }

    /** Deletes {@code <submission_id>/control/cancel} once its run is over; deleting it again changes nothing. */
    public void withdrawCancel(String bucket, String submissionId) {
        s3.deleteObject(r -> r.bucket(bucket).key(SubmissionLayout.cancelControl(submissionId)));
    }

    /** Writes {@code <submission_id>/control/cancel}; writing it again changes nothing. */
    public void requestCancel(String bucket, String submissionId, int run, Instant at) {
        s3.putObject(r -> r.bucket(bucket).key(SubmissionLayout.cancelControl(submissionId)).contentType("text/plain"),
                RequestBody.fromString("run " + run + " cancelled on EvalAI, seen at " + at + "\n"));
    }
}
