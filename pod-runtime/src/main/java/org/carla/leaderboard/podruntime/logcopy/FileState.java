package org.carla.leaderboard.podruntime.logcopy;

import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.Objects;

/**
 * One file of the logs volume as logcopy knows it: what the last walk saw, what S3 holds of it, since when a change
 * is not in S3 ({@code null}: S3 holds it as seen) and when it was last uploaded ({@code null}: never). Each change
 * makes a new state.
 */
record FileState(Seen seen, Uploaded uploaded, Instant changedSince, Instant lastUpload) {

    /** What a walk saw: the file's identity, size, time, and the CRC of its last {@link FileDigests#SEAM} bytes. */
    record Seen(Object fileKey, long size, FileTime modified, long seam) {

        /** Whether the walk's listing shows the file as it was (then it is not read again). */
        boolean sameAs(VolumeFiles.Found found) {
            return size == found.size() && Objects.equals(modified, found.modified())
                    && Objects.equals(fileKey, found.fileKey());
        }
    }

    /** The object in S3: its size, ETag, the CRC of its last {@link FileDigests#SEAM} bytes, the MD5 of a small one. */
    record Uploaded(long size, String etag, long seam, String md5, Object fileKey) {
    }

    static final FileState UNSEEN = new FileState(null, null, null, null);

    /** Whether a change of the file is not in S3 yet. */
    boolean pending() {
        return changedSince != null;
    }

    /** Whether the file is 5 MiB or more while its copy in S3 is smaller (or missing): its whole upload is its last. */
    boolean graduates() {
        return seen.size() >= SubmissionObjects.MIN_PART
                && (uploaded == null || uploaded.size() < SubmissionObjects.MIN_PART);
    }

    /** Whether S3 holds the file as seen: same size and seam, and the same MD5 when one was read ({@code md5}). */
    boolean inS3(String md5) {
        return uploaded != null && uploaded.size() == seen.size() && uploaded.seam() == seen.seam()
                && (md5 == null || md5.equals(uploaded.md5()));
    }

    /** After an upload of {@code now}: S3 holds {@code uploaded}; still pending if the file was seen otherwise. */
    FileState sent(Uploaded sent, Instant now) {
        boolean still = seen.size() != sent.size() || seen.seam() != sent.seam();
        return new FileState(seen, sent, still ? changedSince : null, now);
    }
}
