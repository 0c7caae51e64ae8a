package org.carla.leaderboard.podruntime.logcopy;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Predicate;

import org.carla.leaderboard.podruntime.logcopy.FileState.Seen;
import org.carla.leaderboard.podruntime.logcopy.FileState.Uploaded;
import org.carla.leaderboard.podruntime.logcopy.SubmissionObjects.Remote;
import org.jboss.logging.Logger;

/**
 * What changed in the logs volume: each walk lists it ({@link VolumeFiles#walk}, logcopy's own files left out), and a
 * file whose size, time or identity changed since the walk before is read — its seam, and the MD5 of a small file
 * that has the size of its copy in S3 — to tell a new file, an append and a rewrite apart ({@link Change}). A file is
 * pending while S3 does not hold it as seen. A file gone from the volume is forgotten (its object stays); the same
 * name later is a new file. What the prefix held at start (a resumed run's files, which init downloaded) counts as in
 * S3 when it has the size found.
 */
final class VolumeChanges {

    private static final Logger LOG = Logger.getLogger(LogsUpload.class);

    private final VolumeFiles volume;
    private final Predicate<String> own;
    private final Refusals refusals;
    private final FileDigests digests;
    private final Map<String, FileState> files = new HashMap<>();
    private Map<String, Remote> remote = new HashMap<>();

    VolumeChanges(VolumeFiles volume, Predicate<String> own, Refusals refusals, FileDigests digests) {
        this.volume = volume;
        this.own = own;
        this.refusals = refusals;
        this.digests = digests;
    }

    /** What the submission's prefix holds at start, by relative path. */
    void listed(Map<String, Remote> objects) {
        remote = new HashMap<>(objects);
    }

    /** Walks the volume and notes what changed since the last walk, by relative path. */
    Map<String, Change> observe(Instant now) {
        VolumeFiles.Listing listing;
        try {
            listing = volume.walk(own);
        } catch (IOException e) {
            refusals.unlisted(e.getMessage()); // the root itself (a mount point): nothing to look at this pass
            return Map.of();
        }
        refusals.skippedByWalk(listing.skipped());
        var changes = new LinkedHashMap<String, Change>();
        var seen = new HashSet<String>();
        for (VolumeFiles.Found found : listing.files()) {
            String relative = found.relative();
            seen.add(relative);
            if (refusals.refused(relative)) {
                continue;
            }
            String unusable = refusals.unusable(relative, found.size());
            if (unusable != null) {
                refuse(relative, unusable);
                continue;
            }
            FileState state = files.getOrDefault(relative, FileState.UNSEEN);
            if (state.seen() != null && state.seen().sameAs(found)) {
                continue;
            }
            try {
                changes.put(relative, look(relative, state, found, now));
            } catch (NoSuchFileException e) {
                seen.remove(relative);
            } catch (GuardedOpen.BlockedOpenException e) {
                refuse(relative, e.getMessage());
            } catch (IOException e) {
                LOG.debugf("logcopy: cannot look at %s now: %s", relative, e.getMessage());
            }
        }
        files.keySet().retainAll(seen);
        return changes;
    }

    /** Reads the seam at the old and the new end, and a small file's MD5 when S3 holds one of its size. */
    private Change look(String relative, FileState state, VolumeFiles.Found found, Instant now) throws IOException {
        long size = found.size();
        Seen before = state.seen();
        String md5 = null;
        long newSeam;
        long oldSeam = 0;
        try (FileChannel channel = volume.open(relative)) {
            if (size < SubmissionObjects.MIN_PART && state.uploaded() != null && state.uploaded().size() == size) {
                md5 = digests.md5(channel, size); // touched, or rewritten at the same size: is it what S3 holds?
            }
            newSeam = digests.seam(channel, size);
            if (before != null) {
                oldSeam = before.size() <= size ? digests.seam(channel, before.size()) : ~before.seam();
            }
        }
        Seen current = new Seen(found.fileKey(), size, found.modified(), newSeam);
        Uploaded uploaded = state.uploaded();
        Change change;
        if (before == null) {
            Remote there = remote.remove(relative);
            if (there != null && there.size() == size) {
                String etag = there.etag();
                String remoteMd5 = etag != null && !etag.contains("-") ? etag.replace("\"", "") : null;
                uploaded = new Uploaded(size, etag, newSeam, remoteMd5 != null ? remoteMd5 : md5, found.fileKey());
                change = new Change.Listed();
            } else {
                change = new Change.New(size);
            }
        } else {
            change = Change.between(before, current, oldSeam);
        }
        boolean inS3 = new FileState(current, uploaded, null, null).inS3(md5);
        Instant changedSince = inS3 ? null : state.changedSince() != null ? state.changedSince() : now;
        files.put(relative, new FileState(current, uploaded, changedSince, state.lastUpload()));
        return change;
    }

    /** Every file known, by relative path. */
    Map<String, FileState> files() {
        return files;
    }

    FileState state(String relative) {
        return files.get(relative);
    }

    /** The upload of {@code now} put {@code uploaded} in S3. */
    void sent(String relative, Uploaded uploaded, Instant now) {
        files.computeIfPresent(relative, (name, state) -> state.sent(uploaded, now));
    }

    /** S3 holds the file as it is (a small file sent again, whose MD5 is S3's): nothing to send. */
    void inS3(String relative) {
        files.computeIfPresent(relative, (name, state) -> new FileState(state.seen(), state.uploaded(), null,
                state.lastUpload()));
    }

    /** The object in S3 is not the one uploaded last (changed, gone): the file is sent whole next. */
    FileState forgetUpload(String relative) {
        return files.computeIfPresent(relative, (name, state) -> new FileState(state.seen(), null,
                state.changedSince(), state.lastUpload()));
    }

    /** Never uploaded: {@code why} is logged once and the file forgotten. */
    void refuse(String relative, String why) {
        refusals.refuse(relative, why);
        files.remove(relative);
    }

    boolean pending() {
        return files.values().stream().anyMatch(FileState::pending);
    }
}
