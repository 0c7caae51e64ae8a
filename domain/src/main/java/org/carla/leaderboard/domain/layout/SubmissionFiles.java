package org.carla.leaderboard.domain.layout;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

import org.carla.leaderboard.domain.record.RunVersions;
import org.carla.leaderboard.domain.status.StatusFiles;

import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A submission's files in its leaderboard's bucket, under {@code <submission_id>/}: what logcopy uploaded (EvalAI
 * files, status files, logs) and the cancel control object results-relay writes. Every key is built here from the
 * submission id and a path of {@link LogsLayout} with {@link SubmissionLayout}, never taken from a message or a
 * request. results-relay reads them and writes the cancel control; ops-console reads them. Each makes one with its S3
 * client (the S3 SDK is theirs: this module only compiles against it).
 */
public class SubmissionFiles {

    private final S3Client s3;

    public SubmissionFiles(S3Client s3) {
        this.s3 = s3;
    }

    /** The object at a path of the submission's logs volume, as text; empty when it does not exist. */
    public Optional<String> read(String bucket, String submissionId, String relative) {
        String key = SubmissionLayout.key(submissionId, relative);
        return absentIfMissing(() -> s3.getObjectAsBytes(r -> r.bucket(bucket).key(key))
                .asString(StandardCharsets.UTF_8));
    }

    /**
     * Run {@code run}'s versions as its init wrote them ({@link SubmissionLayout#runVersionsPath}, a control object no
     * file of the pod overwrites); empty when it wrote none, or an object that is not run {@code run}'s versions.
     */
    public Optional<RunVersions> runVersions(String bucket, String submissionId, int run) {
        return readBounded(bucket, submissionId, SubmissionLayout.runVersionsPath(run), RunVersions.MAX_BYTES).text()
                .flatMap(RunVersions::parse).filter(read -> read.run() == run);
    }

    /**
     * The object at a path of the submission's logs volume, as text, when it holds at most {@code maxBytes}: a file a
     * participant's code can grow never fills a service's memory.
     */
    public Bounded readBounded(String bucket, String submissionId, String relative, long maxBytes) {
        String key = SubmissionLayout.key(submissionId, relative);
        Optional<Long> size = absentIfMissing(() -> s3.headObject(r -> r.bucket(bucket).key(key)).contentLength());
        if (size.isEmpty()) {
            return Bounded.MISSING;
        }
        if (size.get() > maxBytes) {
            return new Bounded(Optional.empty(), size.get());
        }
        return read(bucket, submissionId, relative).map(text -> new Bounded(Optional.of(text), size.get()))
                .orElse(Bounded.MISSING);
    }

    /** A bounded read: the text, or none with the size found (-1: no such object; above the bound: too large). */
    public record Bounded(Optional<String> text, long size) {

        static final Bounded MISSING = new Bounded(Optional.empty(), -1);

        public boolean missing() {
            return size < 0;
        }
    }

    /**
     * The end of an object: one ranged GET of its last {@code maxBytes}, its first line dropped when the range cut it
     * (most likely in the middle, maybe of a character); empty when it does not exist or is empty.
     */
    public Optional<String> tail(String bucket, String submissionId, String relative, int maxBytes) {
        String key = SubmissionLayout.key(submissionId, relative);
        try {
            var object = s3.getObjectAsBytes(r -> r.bucket(bucket).key(key).range("bytes=-" + maxBytes));
            String text = object.asString(StandardCharsets.UTF_8);
            if (cut(object.response().contentRange())) {
                int newline = text.indexOf('\n');
                text = newline < 0 ? "" : text.substring(newline + 1);
            }
            return Optional.of(text);
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        } catch (S3Exception e) {
            // 416: S3 has no range of an empty object.
            if (e.statusCode() == 404 || e.statusCode() == 416) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /** A status file the containers left, with the time S3 last received it. */
    public record StatusFile(String name, Instant at) {
    }

    /** The files of {@code <submission_id>/containers-status/} ({@code agent-1.done}, ...), all pages, oldest first. */
    public List<StatusFile> statusFiles(String bucket, String submissionId) {
        return statusFiles(bucket, submissionId, 0, 1);
    }

    /** The status files of pod {@code index} of a run of {@code pods} ({@link SubmissionLayout#podDir}), oldest first. */
    public List<StatusFile> statusFiles(String bucket, String submissionId, int index, int pods) {
        var files = new ArrayList<StatusFile>();
        String prefix = SubmissionLayout.key(submissionId, SubmissionLayout.podPath(index, pods,
                StatusFiles.DIRECTORY + "/"));
        s3.listObjectsV2Paginator(r -> r.bucket(bucket).prefix(prefix))
                .contents().forEach(object -> files.add(new StatusFile(StatusFiles.baseName(object.key()),
                        object.lastModified())));
        files.sort(Comparator.comparing(StatusFile::at, Comparator.nullsFirst(Comparator.naturalOrder())));
        return files;
    }

    /** Whether the bucket answers. */
    public void head(String bucket) {
        s3.headBucket(r -> r.bucket(bucket));
    }

    /** Writes {@code <submission_id>/control/cancel}; writing it again changes nothing. */
    public void requestCancel(String bucket, String submissionId, int run, Instant at) {
        s3.putObject(r -> r.bucket(bucket).key(SubmissionLayout.cancelControl(submissionId)).contentType("text/plain"),
                RequestBody.fromString("run " + run + " cancelled on EvalAI, seen at " + at + "\n"));
    }

    /** Deletes {@code <submission_id>/control/cancel} once its run is over; deleting it again changes nothing. */
    public void withdrawCancel(String bucket, String submissionId) {
        s3.deleteObject(r -> r.bucket(bucket).key(SubmissionLayout.cancelControl(submissionId)));
    }

    /** The last {@code maxLines} lines of a text (its final newline apart). */
    public static String lastLines(String text, int maxLines) {
        String trimmed = text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
        if (trimmed.isEmpty()) {
            return "";
        }
        String[] lines = trimmed.split("\n", -1);
        return String.join("\n", Arrays.copyOfRange(lines, Math.max(0, lines.length - maxLines), lines.length));
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

    private static <T> Optional<T> absentIfMissing(java.util.function.Supplier<T> request) {
        try {
            return Optional.of(request.get());
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }
}
