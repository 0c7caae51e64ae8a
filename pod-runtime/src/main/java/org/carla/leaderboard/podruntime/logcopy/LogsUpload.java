package org.carla.leaderboard.podruntime.logcopy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import java.util.zip.CRC32C;

import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.results.RouteRecordCheck;
import org.carla.leaderboard.podruntime.logcopy.SubmissionObjects.Remote;
import org.carla.leaderboard.podruntime.logcopy.SubmissionObjects.StaleObjectException;
import org.jboss.logging.Logger;

import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Mirrors the logs volume to {@code s3://<bucket>/<submission_id>/}, each file as one object under its relative path,
 * at a cost in proportion to what the containers wrote:
 * <ul>
 * <li>a file is looked at again only when its size, time or identity changed, and read only then;</li>
 * <li>a file of 5 MiB or more in S3 that grew by appending gets only its new tail
 * ({@link SubmissionObjects#append}), at most once per {@code interval} while it changes;</li>
 * <li>a smaller file that changed, or a file rewritten rather than appended to (shorter, another file, or other bytes
 * before the end seen last), is uploaded whole, at most once per {@code interval}, as far as {@link UploadBudget}
 * allows: first a file that reached 5 MiB (its last whole upload), then the oldest change;</li>
 * <li>a flush (the end, a cancel, a stop) uploads every change at once, whatever the interval and the budget.</li>
 * </ul>
 * logcopy's own files (results, EvalAI's files, its log, its status files) come from memory ({@link #uploadOwn}),
 * never from the volume, where a participant's code can replace them. A file S3 would refuse (key over 1,024 bytes,
 * HTTP 400), one larger than 5 GiB, a link, a pipe or an unprintable name is skipped, logged once and named in
 * {@link #notUploaded()}; it never holds back the others. Nothing is ever deleted remotely.
 */
public final class LogsUpload {

    private static final Logger LOG = Logger.getLogger(LogsUpload.class);
    /** Compared at the end seen last to tell an append from a rewrite. */
    static final int SEAM = 4096;
    /** S3's longest key, in UTF-8 bytes. */
    static final int MAX_KEY_BYTES = 1024;
    /** The largest file uploaded (S3's largest copied part, which an append of it needs). */
    static final long MAX_FILE = SubmissionObjects.MAX_PART;
    /** Names remembered as refused: a participant's code could create new ones for hours. */
    private static final int MAX_REFUSED = 10_000;
    /** Names logged as skipped, one line each; the rest are counted. */
    private static final int LOGGED_SKIPS = 50;

    private final VolumeFiles volume;
    private final SubmissionObjects objects;
    private final RequestMeter meter;
    private final UploadBudget budget;
    private final Predicate<String> own;
    private final Duration interval;
    private final Clock clock;
    private final String prefix;
    private final Map<String, Tracked> files = new HashMap<>();
    private final Map<String, String> ownUploaded = new HashMap<>();
    private final Map<String, byte[]> ownChecked = new HashMap<>();
    private final Map<String, String> refused = new LinkedHashMap<>();
    private Map<String, String> walkSkipped = Map.of();
    private final Set<String> logged = new HashSet<>();
    private int unlogged;
    private Map<String, Remote> remote = new HashMap<>();
    /** Reused for seams and digests (one pass at a time). */
    private final byte[] buffer = new byte[64 * 1024];

    /** What one pass sent: files and bytes; not complete when the deadline cut it short. */
    public record Pass(int files, long bytes, boolean complete) {
    }

    /** A file of the volume: what was seen last, and what S3 holds. */
    private static final class Tracked {
        Object fileKey;
        long size = -1;
        FileTime modified;
        long seam;
        Uploaded uploaded;
        boolean dirty;
        long dirtySince;
        Instant lastUpload;
    }

    /** The object in S3: its size, ETag, the CRC of its last {@link #SEAM} bytes, the MD5 of a small one. */
    private record Uploaded(long size, String etag, long seam, String md5, Object fileKey) {
    }

    LogsUpload(VolumeFiles volume, SubmissionObjects objects, String prefix, RequestMeter meter, UploadBudget budget,
            Predicate<String> own, Duration interval, Clock clock) {
        this.volume = volume;
        this.objects = objects;
        this.prefix = prefix;
        this.meter = meter;
        this.budget = budget;
        this.own = own;
        this.interval = interval;
        this.clock = clock;
    }

    /**
     * Remembers what the prefix already holds (a resumed submission's files, which init downloaded), so an unchanged
     * file is not uploaded again. Returns how many objects there are.
     */
    public int seedFromRemote() {
        remote = new HashMap<>(objects.list());
        return remote.size();
    }

    /** Uploads logcopy's own files whose content changed since their last upload (from memory). */
    public Pass uploadOwn(Map<String, byte[]> own, Deadline deadline) {
        int count = 0;
        long bytes = 0;
        for (Map.Entry<String, byte[]> file : own.entrySet()) {
            if (deadline.passed()) {
                return new Pass(count, bytes, false);
            }
            if (ownChecked.get(file.getKey()) == file.getValue()) {
                continue; // the very content uploaded last: logcopy replaces a file's bytes only when they change
            }
            String md5 = md5(file.getValue());
            if (md5.equals(ownUploaded.get(file.getKey()))) {
                continue;
            }
            objects.put(file.getKey(), file.getValue(), deadline);
            meter.uploadedOwn(file.getValue().length);
            ownUploaded.put(file.getKey(), md5);
            ownChecked.put(file.getKey(), file.getValue());
            count++;
            bytes += file.getValue().length;
        }
        return new Pass(count, bytes, true);
    }

    /**
     * Looks at the volume and uploads what is due: every change when {@code flush}, else what the interval and the
     * budget allow. Throws the S3 client's exception at the first failed request (an outage); what was uploaded
     * before it is remembered, the rest goes on a later pass.
     */
    public Pass uploadChanged(boolean flush, Deadline deadline) {
        Instant now = clock.instant();
        observe(now);
        var due = new ArrayList<Map.Entry<String, Tracked>>();
        for (Map.Entry<String, Tracked> file : files.entrySet()) {
            Tracked tracked = file.getValue();
            if (tracked.dirty && (flush || tracked.lastUpload == null
                    || Duration.between(tracked.lastUpload, now).compareTo(interval) >= 0)) {
                due.add(file);
            }
        }
        // A file reaching 5 MiB first: its whole upload is its last (it is appended to from then on); then the oldest.
        due.sort(Comparator.comparing((Map.Entry<String, Tracked> file) -> !graduates(file.getValue()))
                .thenComparingLong(file -> file.getValue().dirtySince).thenComparing(Map.Entry::getKey));
        int count = 0;
        long bytes = 0;
        boolean budgetSpent = false;
        for (Map.Entry<String, Tracked> file : due) {
            if (deadline.passed()) {
                return new Pass(count, bytes, false);
            }
            long sent;
            try {
                sent = upload(file.getKey(), file.getValue(), flush, budgetSpent, deadline, now);
            } catch (NoSuchFileException e) {
                continue; // gone since the walk
            } catch (S3Exception e) {
                String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
                if (e.statusCode() != 400 || TRANSIENT_400.contains(code)) {
                    throw e;
                }
                refuse(file.getKey(), "S3 refused it (" + code + ")");
                continue;
            } catch (GuardedOpen.BlockedOpenException e) {
                refuse(file.getKey(), e.getMessage());
                continue;
            } catch (IOException e) {
                // A file that cannot be read now (rewritten meanwhile, a pipe swapped in) is looked at again later.
                LOG.debugf("logcopy: %s not uploaded this pass: %s", file.getKey(), e.getMessage());
                continue;
            }
            if (sent == WAITS_FOR_BUDGET) {
                budgetSpent = true; // the oldest waiting change goes first when there is room again
            } else if (sent >= 0) {
                count++;
                bytes += sent;
            }
        }
        return new Pass(count, bytes, true);
    }

    /** Whether the file is 5 MiB or more while its copy in S3 is smaller (or missing). */
    private static boolean graduates(Tracked tracked) {
        return tracked.size >= SubmissionObjects.MIN_PART
                && (tracked.uploaded == null || tracked.uploaded.size() < SubmissionObjects.MIN_PART);
    }

    /** Whether a change of the volume seen by the last pass is not in S3 yet. */
    public boolean pending() {
        return files.values().stream().anyMatch(tracked -> tracked.dirty);
    }

    /** Files of the volume not in S3 as they are (skipped, refused, or not uploaded yet), at most 50, printable. */
    public List<String> notUploaded() {
        return notUploaded(Map.of());
    }

    /** The same, with logcopy's own files whose content now is not the one uploaded last. */
    public List<String> notUploaded(Map<String, byte[]> own) {
        var names = new ArrayList<String>();
        own.forEach((name, content) -> {
            if (!md5(content).equals(ownUploaded.get(name))) {
                names.add(name);
            }
        });
        refused.keySet().forEach(names::add);
        walkSkipped.keySet().forEach(names::add);
        files.entrySet().stream().filter(file -> file.getValue().dirty).map(Map.Entry::getKey).sorted()
                .forEach(names::add);
        return names.stream().distinct().limit(Progress.MAX_NOT_UPLOADED).map(RouteRecordCheck::printable).toList();
    }

    UploadBudget budget() {
        return budget;
    }

    /** HTTP 400 answers of S3 that say nothing about the file: retried as an outage. */
    private static final Set<String> TRANSIENT_400 = Set.of("RequestTimeout", "IncompleteBody", "BadDigest",
            "RequestTimeTooSkewed", "ExpiredToken", "TokenRefreshRequired");
    private static final long WAITS_FOR_BUDGET = -2;
    private static final long UNCHANGED = -1;

    /** Walks the volume and notes what changed since the last pass; counts the bytes the containers wrote. */
    private void observe(Instant now) {
        VolumeFiles.Listing listing;
        try {
            listing = volume.walk(own);
        } catch (IOException e) {
            // The volume's root itself (a mount point) cannot be listed: nothing to look at this pass.
            logSkip("", "the logs volume cannot be listed: " + e.getMessage());
            return;
        }
        var skipped = new LinkedHashMap<String, String>();
        for (VolumeFiles.Skipped skip : listing.skipped()) {
            skipped.put(skip.relative(), skip.why());
            logSkip(skip.relative(), skip.why());
        }
        walkSkipped = skipped;
        var seen = new HashSet<String>();
        for (VolumeFiles.Found found : listing.files()) {
            String relative = found.relative();
            seen.add(relative);
            if (refused.containsKey(relative)) {
                continue;
            }
            String unusable = unusableName(relative, found.size());
            if (unusable != null) {
                refuse(relative, unusable);
                continue;
            }
            Tracked tracked = files.computeIfAbsent(relative, name -> new Tracked());
            if (tracked.size == found.size() && Objects.equals(tracked.modified, found.modified())
                    && Objects.equals(tracked.fileKey, found.fileKey())) {
                continue;
            }
            try {
                look(relative, tracked, found, now);
            } catch (NoSuchFileException e) {
                seen.remove(relative);
            } catch (GuardedOpen.BlockedOpenException e) {
                refuse(relative, e.getMessage());
            } catch (IOException e) {
                LOG.debugf("logcopy: cannot look at %s now: %s", relative, e.getMessage());
            }
        }
        // A file gone from the volume is forgotten (its object stays); the same name later is a new file.
        files.keySet().retainAll(seen);
    }

    /**
     * Reads what tells a change and an append apart: the bytes before the old and the new end, and the MD5 of a small
     * file that has the size of its copy in S3.
     */
    private void look(String relative, Tracked tracked, VolumeFiles.Found found, Instant now) throws IOException {
        long size = found.size();
        long oldSeam;
        long newSeam;
        String md5 = null;
        try (FileChannel channel = volume.open(relative)) {
            if (size < SubmissionObjects.MIN_PART && tracked.uploaded != null && tracked.uploaded.size() == size) {
                md5 = md5(channel, size); // touched, or rewritten at the same size: is it what S3 holds?
            }
            newSeam = seam(channel, size);
            oldSeam = tracked.size >= 0 && tracked.size <= size ? seam(channel, tracked.size) : ~tracked.seam;
        }
        boolean first = tracked.size < 0;
        boolean appended = !first && Objects.equals(tracked.fileKey, found.fileKey()) && size >= tracked.size
                && oldSeam == tracked.seam;
        if (first) {
            Remote there = remote.remove(relative);
            if (there != null && there.size() == size) {
                // init downloaded it from this very prefix (a resumed run): it is in S3 as it is.
                String etag = there.etag();
                String remoteMd5 = etag != null && !etag.contains("-") ? etag.replace("\"", "") : null;
                tracked.uploaded = new Uploaded(size, etag, newSeam, remoteMd5 != null ? remoteMd5 : md5,
                        found.fileKey());
            } else {
                budget.written(size);
            }
        } else {
            budget.written(appended ? size - tracked.size : size);
        }
        tracked.fileKey = found.fileKey();
        tracked.size = size;
        tracked.modified = found.modified();
        tracked.seam = newSeam;
        Uploaded uploaded = tracked.uploaded;
        boolean inS3 = uploaded != null && uploaded.size() == size && uploaded.seam() == newSeam
                && (md5 == null || md5.equals(uploaded.md5()));
        if (inS3) {
            tracked.dirty = false;
        } else if (!tracked.dirty) {
            tracked.dirty = true;
            tracked.dirtySince = now.toEpochMilli();
        }
    }

    /** Sends the file as seen: its tail, or whole; returns the bytes sent, {@link #UNCHANGED} or {@link #WAITS_FOR_BUDGET}. */
    private long upload(String relative, Tracked tracked, boolean flush, boolean budgetSpent, Deadline deadline,
            Instant now)
            throws IOException {
        long size = tracked.size;
        Uploaded before = tracked.uploaded;
        try (FileChannel channel = volume.open(relative)) {
            if (before != null && before.size() >= SubmissionObjects.MIN_PART && size > before.size()
                    && Objects.equals(before.fileKey(), tracked.fileKey) && before.etag() != null
                    && seam(channel, before.size()) == before.seam()) {
                long seamNow = seam(channel, size);
                try {
                    String etag = objects.append(relative, before.etag(), before.size(), channel, size, deadline);
                    return sent(tracked, new Uploaded(size, etag, seamNow, null, tracked.fileKey), size - before.size(),
                            now);
                } catch (StaleObjectException e) {
                    LOG.debugf("logcopy: %s: %s; uploading it whole", relative, e.getMessage());
                    tracked.uploaded = null;
                    before = null;
                }
            }
            // New bytes always fit; a file sent again waits behind the oldest change that did not fit.
            if (!flush && (!budget.allows(size) || (budgetSpent && before != null))) {
                return WAITS_FOR_BUDGET;
            }
            if (size < SubmissionObjects.MIN_PART) {
                int loaded = objects.load(channel, size);
                if (loaded < size) {
                    return UNCHANGED; // shrank since the walk: the next pass sees it as it is
                }
                String md5 = objects.loadedMd5(loaded);
                if (before != null && md5.equals(before.md5()) && before.size() == size) {
                    tracked.dirty = false;
                    return UNCHANGED;
                }
                long seamNow = seam(channel, size);
                String etag = objects.putLoaded(relative, loaded, deadline);
                return sent(tracked, new Uploaded(size, etag, seamNow, md5, tracked.fileKey), size, now);
            }
            long seamNow = seam(channel, size);
            String etag = objects.putFile(relative, channel, size, deadline);
            return sent(tracked, new Uploaded(size, etag, seamNow, null, tracked.fileKey), size, now);
        }
    }

    private long sent(Tracked tracked, Uploaded uploaded, long bytes, Instant now) {
        tracked.uploaded = uploaded;
        tracked.dirty = tracked.size != uploaded.size() || tracked.seam != uploaded.seam();
        tracked.lastUpload = now;
        budget.sent(bytes);
        meter.uploaded(bytes);
        return bytes;
    }

    /** Why a file is not uploaded whatever its content, or null. */
    private String unusableName(String relative, long size) {
        if (relative.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            return "its name holds control characters";
        }
        if ((prefix + relative).getBytes(StandardCharsets.UTF_8).length > MAX_KEY_BYTES) {
            return "its S3 key would be longer than " + MAX_KEY_BYTES + " bytes";
        }
        if (size > MAX_FILE) {
            return "larger than " + MAX_FILE / (1024 * 1024 * 1024) + " GiB";
        }
        return null;
    }

    private void refuse(String relative, String why) {
        if (refused.size() < MAX_REFUSED) {
            refused.put(relative, why); // beyond, a refused name is looked at again each pass: cheap, and bounded
        }
        files.remove(relative);
        logSkip(relative, why);
    }

    /** One line per name, the first time; beyond {@link #LOGGED_SKIPS} names only a count. */
    private void logSkip(String relative, String why) {
        if (logged.contains(relative)) {
            return;
        }
        if (logged.size() < LOGGED_SKIPS) {
            logged.add(relative);
            LOG.warnf("logcopy: %s is not uploaded: %s", RouteRecordCheck.printable(relative), why);
        } else if (unlogged++ == 0) {
            LOG.warnf("logcopy: more than %d files are not uploaded; the rest are not named here", LOGGED_SKIPS);
        }
    }

    /** CRC-32C of the {@link #SEAM} bytes before {@code end} (fewer when the file is shorter now). */
    private long seam(FileChannel channel, long end) throws IOException {
        long start = Math.max(0, end - SEAM);
        var crc = new CRC32C();
        crc.update(buffer, 0, readInto(channel, start, (int) (end - start)));
        return crc.getValue();
    }

    /** MD5 of the first {@code size} bytes, read a buffer at a time (no garbage the size of the file). */
    private String md5(FileChannel channel, long size) throws IOException {
        MessageDigest digest = md5();
        for (long offset = 0; offset < size; ) {
            int read = readInto(channel, offset, (int) Math.min(buffer.length, size - offset));
            if (read == 0) {
                break;
            }
            digest.update(buffer, 0, read);
            offset += read;
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    private int readInto(FileChannel channel, long offset, int length) throws IOException {
        ByteBuffer target = ByteBuffer.wrap(buffer, 0, length);
        while (target.hasRemaining()) {
            if (channel.read(target, offset + target.position()) < 0) {
                break;
            }
        }
        return target.position();
    }

    static String md5(byte[] content) {
        return md5(content, content.length);
    }

    static String md5(byte[] content, int length) {
        MessageDigest digest = md5();
        digest.update(content, 0, length);
        return HexFormat.of().formatHex(digest.digest());
    }

    private static MessageDigest md5() {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is part of every JVM", e);
        }
    }
}
