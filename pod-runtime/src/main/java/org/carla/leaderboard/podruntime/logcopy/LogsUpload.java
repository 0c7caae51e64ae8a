package org.carla.leaderboard.podruntime.logcopy;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.results.RouteRecordCheck;
import org.carla.leaderboard.podruntime.logcopy.FileState.Uploaded;
import org.carla.leaderboard.podruntime.logcopy.SubmissionObjects.StaleObjectException;
import org.carla.leaderboard.podruntime.logcopy.UploadPlanner.Append;
import org.carla.leaderboard.podruntime.logcopy.UploadPlanner.WaitForBudget;
import org.jboss.logging.Logger;

import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Mirrors the logs volume to {@code s3://<bucket>/<submission_id>/}, each file as one object under its relative path,
 * at a cost in proportion to what the containers wrote. In parts: what changed ({@link VolumeChanges}), what to send for
 * it ({@link UploadPlanner}: interval, budget, order), the S3 calls ({@link SubmissionObjects}), what is not uploaded
 * and why ({@link Refusals}), and logcopy's own files from memory ({@link OwnUploads}). Nothing is ever deleted
 * remotely.
 */
public final class LogsUpload {

    private static final Logger LOG = Logger.getLogger(LogsUpload.class);
    /** HTTP 400 answers of S3 that say nothing about the file: retried as an outage. */
    private static final Set<String> TRANSIENT_400 = Set.of("RequestTimeout", "IncompleteBody", "BadDigest",
            "RequestTimeTooSkewed", "ExpiredToken", "TokenRefreshRequired");

    private final VolumeFiles volume;
    private final SubmissionObjects objects;
    private final RequestMeter meter;
    private final UploadBudget budget;
    private final Clock clock;
    private final FileDigests digests = new FileDigests();
    private final Refusals refusals;
    private final VolumeChanges changes;
    private final UploadPlanner planner;
    private final OwnUploads own;

    /** What one pass sent: files and bytes; not complete when the deadline cut it short. */
    public record Pass(int files, long bytes, boolean complete) {
    }

    /** What became of one due file. */
    private sealed interface Outcome {
    }

    private record Sent(long bytes) implements Outcome {
    }

    /** Waits for the budget, was as S3 holds it already, or cannot be read now: looked at again next pass. */
    private record NotSent() implements Outcome {
    }

    /**
     * {@code own}: logcopy's own files (uploaded from memory, {@link #uploadOwn}); {@code checkpoint}: the agents'
     * checkpoints, which go whenever they changed ({@link UploadPlanner}).
     */
    LogsUpload(VolumeFiles volume, SubmissionObjects objects, String prefix, RequestMeter meter, UploadBudget budget,
            Predicate<String> own, Predicate<String> checkpoint, Duration interval, Clock clock) {
        this.volume = volume;
        this.objects = objects;
        this.meter = meter;
        this.budget = budget;
        this.clock = clock;
        this.refusals = new Refusals(prefix);
        this.changes = new VolumeChanges(volume, own, refusals, digests);
        this.planner = new UploadPlanner(interval, budget, checkpoint);
        this.own = new OwnUploads(objects, meter);
    }

    /**
     * Remembers what the prefix already holds (a resumed submission's files, which init downloaded), so an unchanged
     * file is not uploaded again. Returns how many objects there are.
     */
    public int seedFromRemote() {
        var listed = objects.list();
        changes.listed(listed);
        return listed.size();
    }

    /** Uploads logcopy's own files whose content changed since their last upload (from memory). */
    public Pass uploadOwn(Map<String, byte[]> files, Deadline deadline) {
        return own.upload(files, deadline);
    }

    /**
     * Looks at the volume and uploads what is due: every change when {@code flush}, else what the interval and the
     * budget allow. Throws the S3 client's exception at the first failed request (an outage); what was uploaded
     * before it is remembered, the rest goes on a later pass.
     */
    public Pass uploadChanged(boolean flush, Deadline deadline) {
        Instant now = clock.instant();
        changes.observe(now).values().forEach(change -> budget.written(change.written()));
        UploadPlanner.Pass pass = planner.pass(flush);
        int count = 0;
        long bytes = 0;
        for (String relative : planner.due(changes.files(), now, flush)) {
            if (deadline.passed()) {
                return new Pass(count, bytes, false);
            }
            if (send(relative, pass, deadline, now) instanceof Sent sent) {
                count++;
                bytes += sent.bytes();
            }
        }
        return new Pass(count, bytes, true);
    }

    /** Whether a change of the volume seen by the last pass is not in S3 yet. */
    public boolean pending() {
        return changes.pending();
    }

    /** Whether a change of this file seen by the last pass is not in S3 yet. */
    public boolean pending(String relative) {
        FileState file = changes.state(relative);
        return file != null && file.pending();
    }

    /** Files of the volume not in S3 as they are (skipped, refused, or not uploaded yet), at most 50, printable. */
    public List<String> notUploaded() {
        return notUploaded(Map.of());
    }

    /** The same, with logcopy's own files whose content now is not the one uploaded last. */
    public List<String> notUploaded(Map<String, byte[]> files) {
        var names = new ArrayList<>(own.notUploaded(files));
        names.addAll(refusals.names());
        changes.files().entrySet().stream().filter(file -> file.getValue().pending()).map(Map.Entry::getKey).sorted()
                .forEach(names::add);
        return names.stream().distinct().limit(Progress.MAX_NOT_UPLOADED).map(RouteRecordCheck::printable).toList();
    }

    UploadBudget budget() {
        return budget;
    }

    /** Sends one due file, or says why not; a refusal of S3 for this file (a 400 about it) refuses the file. */
    private Outcome send(String relative, UploadPlanner.Pass pass, Deadline deadline, Instant now) {
        try {
            return upload(relative, pass, deadline, now);
        } catch (NoSuchFileException e) {
            return new NotSent(); // gone since the walk
        } catch (S3Exception e) {
            String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
            if (e.statusCode() != 400 || TRANSIENT_400.contains(code)) {
                throw e;
            }
            changes.refuse(relative, "S3 refused it (" + code + ")");
        } catch (GuardedOpen.BlockedOpenException e) {
            changes.refuse(relative, e.getMessage());
        } catch (IOException e) {
            // A file that cannot be read now (rewritten meanwhile, a pipe swapped in) is looked at again later.
            LOG.debugf("logcopy: %s not uploaded this pass: %s", relative, e.getMessage());
        }
        return new NotSent();
    }

    /** The planner's step for the file as seen: its tail, or whole, or not yet. */
    private Outcome upload(String relative, UploadPlanner.Pass pass, Deadline deadline, Instant now)
            throws IOException {
        FileState file = changes.state(relative);
        try (FileChannel channel = volume.open(relative)) {
            UploadPlanner.Step step = pass.step(relative, file);
            if (step instanceof Append append) {
                if (digests.seam(channel, append.from()) == file.uploaded().seam()) {
                    try {
                        return append(relative, file, append, channel, pass, deadline, now);
                    } catch (StaleObjectException e) {
                        LOG.debugf("logcopy: %s: %s; uploading it whole", relative, e.getMessage());
                        file = changes.forgetUpload(relative);
                    }
                }
                step = pass.whole(relative, file);
            }
            if (step instanceof WaitForBudget) {
                return new NotSent();
            }
            return whole(relative, file, channel, pass, deadline, now);
        }
    }

    private Outcome append(String relative, FileState file, Append append, FileChannel channel, UploadPlanner.Pass pass,
            Deadline deadline, Instant now) throws IOException {
        long seamNow = digests.seam(channel, append.to());
        String etag = objects.append(relative, file.uploaded().etag(), append.from(), channel, append.to(), deadline);
        return sent(relative, new Uploaded(append.to(), etag, seamNow, null, file.seen().fileKey()),
                append.to() - append.from(), pass, now);
    }

    /** Sends the file whole: one PUT from the part buffer below 5 MiB (unless S3 holds those bytes), else multipart. */
    private Outcome whole(String relative, FileState file, FileChannel channel, UploadPlanner.Pass pass,
            Deadline deadline, Instant now) throws IOException {
        long size = file.seen().size();
        Object fileKey = file.seen().fileKey();
        if (size < SubmissionObjects.MIN_PART) {
            int loaded = objects.load(channel, size);
            if (loaded < size) {
                return new NotSent(); // shrank since the walk: the next pass sees it as it is
            }
            String md5 = objects.loadedMd5(loaded);
            Uploaded before = file.uploaded();
            if (before != null && md5.equals(before.md5()) && before.size() == size) {
                changes.inS3(relative);
                return new NotSent();
            }
            long seamNow = digests.seam(channel, size);
            String etag = objects.putLoaded(relative, loaded, deadline);
            return sent(relative, new Uploaded(size, etag, seamNow, md5, fileKey), size, pass, now);
        }
        long seamNow = digests.seam(channel, size);
        String etag = objects.putFile(relative, channel, size, deadline);
        return sent(relative, new Uploaded(size, etag, seamNow, null, fileKey), size, pass, now);
    }

    private Outcome sent(String relative, Uploaded uploaded, long bytes, UploadPlanner.Pass pass, Instant now) {
        changes.sent(relative, uploaded, now);
        pass.sent(bytes);
        meter.uploaded(bytes);
        return new Sent(bytes);
    }
}
