package org.carla.leaderboard.podruntime.logcopy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.jboss.logging.Logger;

import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Mirrors the logs volume to {@code s3://<bucket>/<submission_id>/}, incrementally: a file is uploaded when it is new
 * or changed since its last successful upload (content MD5 for small files, size and modification time for large
 * ones), so an unchanged file costs no request; large files go multipart; nothing is ever deleted remotely. Only
 * regular files are read, never through a symbolic link (a link in the volume must not publish what it points to).
 */
public final class LogsUpload {

    private static final Logger LOG = Logger.getLogger(LogsUpload.class);
    /** Up to this size a file is read whole and compared by content; above, by size and modification time. */
    static final long HASHED_MAX = 4L * 1024 * 1024;
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration PART_TIMEOUT = Duration.ofMinutes(5);

    private final S3Client s3;
    private final String bucket;
    private final String prefix;
    private final Path root;
    private final RequestMeter meter;
    private final long multipartThreshold;
    private final int partSize;
    private final Map<String, Stamp> uploaded = new HashMap<>();
    private final Set<String> unreadable = new HashSet<>();

    /** What was uploaded: size, modification time (unknown for what another run uploaded), MD5 when known. */
    record Stamp(long size, FileTime modified, String md5) {
    }

    /** Files uploaded in one pass and their bytes. */
    public record Pass(int files, long bytes) {
    }

    public LogsUpload(S3Client s3, String bucket, String prefix, Path root, RequestMeter meter,
            long multipartThreshold, int partSize) {
        this.s3 = s3;
        this.bucket = bucket;
        this.prefix = prefix;
        this.root = root.toAbsolutePath().normalize();
        this.meter = meter;
        this.multipartThreshold = multipartThreshold;
        this.partSize = partSize;
    }

    /**
     * Remembers what the prefix already holds (a resumed submission's files, which init downloaded), so they are not
     * uploaded again. Returns how many objects there are.
     */
    public int seedFromRemote() {
        int count = 0;
        for (var page : s3.listObjectsV2Paginator(r -> r.bucket(bucket).prefix(prefix)
                .overrideConfiguration(o -> o.apiCallTimeout(REQUEST_TIMEOUT)))) {
            meter.request("s3.list");
            for (S3Object object : page.contents()) {
                String etag = object.eTag() == null ? "" : object.eTag().replace("\"", "");
                // A multipart ETag (with "-N") is not the MD5 of the content.
                uploaded.put(object.key().substring(prefix.length()),
                        new Stamp(object.size(), null, etag.contains("-") ? null : etag));
                count++;
            }
        }
        return count;
    }

    /**
     * Uploads every new or changed file. Throws the S3 client's exception at the first failed request; what was
     * uploaded before it is remembered, the rest is tried again on the next pass.
     */
    public Pass uploadChanged() throws IOException {
        int files = 0;
        long bytes = 0;
        for (Path file : regularFiles()) {
            String relative = root.relativize(file).toString().replace(file.getFileSystem().getSeparator(), "/");
            long sent;
            try {
                sent = uploadIfChanged(file, relative);
            } catch (NoSuchFileException e) {
                continue; // gone since the walk
            } catch (IOException e) {
                // A file logcopy may not read (another container's permissions) must not stall every later upload.
                if (unreadable.add(relative)) {
                    LOG.warnf("logcopy: cannot read %s, not uploaded: %s", file, e);
                }
                continue;
            }
            if (sent >= 0) {
                files++;
                bytes += sent;
            }
        }
        return new Pass(files, bytes);
    }

    /** The bytes uploaded, or -1 when the file is unchanged. */
    private long uploadIfChanged(Path file, String relative) throws IOException {
        BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class,
                LinkOption.NOFOLLOW_LINKS);
        if (!attributes.isRegularFile()) {
            return -1;
        }
        long size = attributes.size();
        FileTime modified = attributes.lastModifiedTime();
        Stamp previous = uploaded.get(relative);
        String key = prefix + relative;
        if (size <= HASHED_MAX) {
            byte[] content = read(file, 0, (int) size);
            String md5 = md5(content);
            if (previous != null && md5.equals(previous.md5())) {
                return -1;
            }
            put(key, content);
            uploaded.put(relative, new Stamp(content.length, modified, md5));
            return content.length;
        }
        // A resumed file of the same size came from this very prefix.
        if (previous != null && previous.size() == size
                && (previous.modified() == null || previous.modified().equals(modified))) {
            uploaded.put(relative, new Stamp(size, modified, previous.md5()));
            return -1;
        }
        long sent = size <= multipartThreshold ? put(key, read(file, 0, (int) size)) : multipart(key, file, size);
        if (sent < 0) {
            return -1;
        }
        uploaded.put(relative, new Stamp(size, modified, null));
        return sent;
    }

    private long put(String key, byte[] content) {
        meter.request("s3.put");
        s3.putObject(r -> r.bucket(bucket).key(key).contentLength((long) content.length)
                .overrideConfiguration(o -> o.apiCallTimeout(PART_TIMEOUT)), RequestBody.fromBytes(content));
        meter.uploaded(content.length);
        return content.length;
    }

    /** Uploads the first {@code size} bytes (the size seen); -1 when the file shrank meanwhile (next pass). */
    private long multipart(String key, Path file, long size) throws IOException {
        meter.request("s3.multipart-create");
        String uploadId = s3.createMultipartUpload(r -> r.bucket(bucket).key(key)
                .overrideConfiguration(o -> o.apiCallTimeout(REQUEST_TIMEOUT))).uploadId();
        boolean completed = false;
        try {
            var parts = new ArrayList<CompletedPart>();
            for (long offset = 0; offset < size; offset += partSize) {
                int length = (int) Math.min(partSize, size - offset);
                byte[] part = read(file, offset, length);
                if (part.length < length) {
                    LOG.debugf("logcopy: %s shrank while uploading, next pass", key);
                    return -1;
                }
                int number = parts.size() + 1;
                meter.request("s3.upload-part");
                String etag = s3.uploadPart(r -> r.bucket(bucket).key(key).uploadId(uploadId).partNumber(number)
                        .contentLength((long) length).overrideConfiguration(o -> o.apiCallTimeout(PART_TIMEOUT)),
                        RequestBody.fromBytes(part)).eTag();
                meter.uploaded(length);
                parts.add(CompletedPart.builder().partNumber(number).eTag(etag).build());
            }
            meter.request("s3.multipart-complete");
            s3.completeMultipartUpload(r -> r.bucket(bucket).key(key).uploadId(uploadId)
                    .multipartUpload(m -> m.parts(parts)).overrideConfiguration(o -> o.apiCallTimeout(REQUEST_TIMEOUT)));
            completed = true;
            return size;
        } finally {
            if (!completed) {
                abort(key, uploadId);
            }
        }
    }

    private void abort(String key, String uploadId) {
        try {
            meter.request("s3.multipart-abort");
            s3.abortMultipartUpload(r -> r.bucket(bucket).key(key).uploadId(uploadId));
        } catch (RuntimeException e) {
            // S3 expires an abandoned upload by the bucket's lifecycle rule; nothing else to do here.
            LOG.debugf("logcopy: could not abort the multipart upload of %s: %s", key, e.getMessage());
        }
    }

    /** Regular files under the root, sorted, not following links, without our own half-written temporary files. */
    private List<Path> regularFiles() throws IOException {
        var files = new ArrayList<Path>();
        if (!Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
            return files;
        }
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                String name = file.getFileName().toString();
                if (attributes.isRegularFile() && !(name.startsWith(".") && name.endsWith(".tmp"))) {
                    files.add(file);
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
                return FileVisitResult.CONTINUE; // removed or unreadable meanwhile: not ours to fail on
            }
        });
        files.sort(null);
        return files;
    }

    private static byte[] read(Path file, long offset, int length) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            ByteBuffer buffer = ByteBuffer.allocate(length);
            while (buffer.hasRemaining()) {
                if (channel.read(buffer, offset + buffer.position()) < 0) {
                    break;
                }
            }
            if (buffer.hasRemaining()) {
                byte[] shorter = new byte[buffer.position()];
                buffer.flip().get(shorter);
                return shorter;
            }
            return buffer.array();
        }
    }

    private static String md5(byte[] content) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(content));
        } catch (NoSuchAlgorithmException e) {
            throw new UncheckedIOException(new IOException("no MD5 in this JVM", e));
        }
    }
}
