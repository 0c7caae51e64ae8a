package org.carla.leaderboard.podruntime.logcopy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jboss.logging.Logger;

import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The objects under a submission's prefix ({@code <submission_id>/<relative path>}) as logcopy writes them: a whole
 * object from memory or from a file (multipart above one part), and an append: a multipart upload whose first part is
 * the existing object copied inside S3 ({@code UploadPartCopy}, conditional on its ETag) and whose other parts are the
 * file's new tail, so a growing log costs its new bytes, not its size. S3 wants every part but the last to be 5 MiB at
 * least: only an object of 5 MiB or more can be appended to. One request at a time, one part buffer reused. The caller
 * counts the bytes (its own files apart from the containers').
 */
final class SubmissionObjects {

    private static final Logger LOG = Logger.getLogger(SubmissionObjects.class);
    /** S3's minimum size of every part but the last. */
    static final long MIN_PART = 5L * 1024 * 1024;
    /** S3's largest part and largest copied range. */
    static final long MAX_PART = 5L * 1024 * 1024 * 1024;
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    /** An 8 MiB part at 100 kB/s; a stop request shortens it ({@link Deadline}). */
    private static final Duration PART_TIMEOUT = Duration.ofMinutes(2);
    /** Short: an abort is a courtesy (the bucket's lifecycle rule expires what is left), never worth a stop's grace. */
    private static final Duration ABORT_TIMEOUT = Duration.ofSeconds(3);

    private final S3Client s3;
    private final String bucket;
    private final String prefix;
    private final RequestMeter meter;
    private final byte[] part;

    /** What the prefix holds for a key: its size and ETag (quoted, as S3 gives it). */
    record Remote(long size, String etag) {
    }

    /** S3 says the object an append starts from is not the one uploaded last (changed, gone, shorter). */
    static final class StaleObjectException extends IOException {
        StaleObjectException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    SubmissionObjects(S3Client s3, String bucket, String prefix, RequestMeter meter, int partSize) {
        this.s3 = s3;
        this.bucket = bucket;
        this.prefix = prefix;
        this.meter = meter;
        this.part = new byte[partSize];
    }

    String key(String relative) {
        return prefix + relative;
    }

    /** Every object under the prefix, by relative path. */
    Map<String, Remote> list() {
        var objects = new HashMap<String, Remote>();
        for (var page : s3.listObjectsV2Paginator(r -> r.bucket(bucket).prefix(prefix)
                .overrideConfiguration(o -> o.apiCallTimeout(REQUEST_TIMEOUT)))) {
            meter.request("s3.list");
            for (S3Object object : page.contents()) {
                objects.put(object.key().substring(prefix.length()), new Remote(object.size(), object.eTag()));
            }
        }
        return objects;
    }

    /** Puts {@code content} whole; returns the new ETag. */
    String put(String relative, byte[] content, Deadline deadline) {
        meter.request("s3.put");
        return s3.putObject(r -> r.bucket(bucket).key(key(relative)).contentLength((long) content.length)
                .overrideConfiguration(o -> o.apiCallTimeout(deadline.cap(PART_TIMEOUT))),
                RequestBody.fromContentProvider(() -> new ByteArrayInputStream(content), content.length,
                        "application/octet-stream")).eTag();
    }

    /**
     * Puts the first {@code size} bytes of {@code file}: one request up to a part's size, multipart above. Returns the
     * new ETag.
     *
     * @throws IOException when the file is shorter than {@code size} now (rewritten meanwhile: the next pass sees it)
     */
    String putFile(String relative, FileChannel file, long size, Deadline deadline) throws IOException {
        if (size <= part.length) {
            if (load(file, size) < size) {
                throw new IOException(relative + " shrank while being read");
            }
            return putLoaded(relative, (int) size, deadline);
        }
        return multipart(relative, deadline, (uploadId, parts) -> uploadTail(relative, uploadId, parts, file, 0, size,
                deadline));
    }

    /** Reads the first {@code size} bytes (at most a part) into the part buffer; returns how many there were. */
    int load(FileChannel file, long size) throws IOException {
        return readPart(file, 0, (int) Math.min(size, part.length));
    }

    /** The MD5 (hex) of the first {@code length} bytes of the part buffer. */
    String loadedMd5(int length) {
        return FileDigests.md5(part, length);
    }

    /** Puts the first {@code length} bytes of the part buffer as the whole object; returns the new ETag. */
    String putLoaded(String relative, int length, Deadline deadline) {
        meter.request("s3.put");
        return s3.putObject(r -> r.bucket(bucket).key(key(relative)).contentLength((long) length)
                .overrideConfiguration(o -> o.apiCallTimeout(deadline.cap(PART_TIMEOUT))),
                RequestBody.fromContentProvider(() -> new ByteArrayInputStream(part, 0, length), length,
                        "application/octet-stream")).eTag();
    }

    /**
     * Replaces the object of {@code uploadedSize} bytes (ETag {@code etag}) by the first {@code size} bytes of
     * {@code file}, sending only the bytes after {@code uploadedSize}: the old object is copied inside S3. The caller
     * has checked that the file still begins with what was uploaded. Returns the new ETag.
     *
     * @throws StaleObjectException when the object is not the one uploaded last (then upload it whole)
     */
    String append(String relative, String etag, long uploadedSize, FileChannel file, long size, Deadline deadline)
            throws IOException {
        if (uploadedSize < MIN_PART || uploadedSize > MAX_PART || size <= uploadedSize) {
            throw new IllegalArgumentException("cannot append " + uploadedSize + " → " + size + " bytes");
        }
        String key = key(relative);
        return multipart(relative, deadline, (uploadId, parts) -> {
            meter.request("s3.upload-part-copy");
            String copied;
            try {
                copied = s3.uploadPartCopy(r -> r.sourceBucket(bucket).sourceKey(key).destinationBucket(bucket)
                        .destinationKey(key).uploadId(uploadId).partNumber(1)
                        .copySourceRange("bytes=0-" + (uploadedSize - 1)).copySourceIfMatch(etag)
                        .overrideConfiguration(o -> o.apiCallTimeout(deadline.cap(PART_TIMEOUT))))
                        .copyPartResult().eTag();
            } catch (S3Exception e) {
                if (e.statusCode() == 404 || e.statusCode() == 412 || e.statusCode() == 416) {
                    throw new StaleObjectException(relative + ": the object in S3 is not the one uploaded last ("
                            + e.statusCode() + ")", e);
                }
                throw e;
            }
            parts.add(CompletedPart.builder().partNumber(1).eTag(copied).build());
            uploadTail(relative, uploadId, parts, file, uploadedSize, size, deadline);
        });
    }

    @FunctionalInterface
    private interface Parts {
        void upload(String uploadId, List<CompletedPart> parts) throws IOException;
    }

    private String multipart(String relative, Deadline deadline, Parts body) throws IOException {
        String key = key(relative);
        meter.request("s3.multipart-create");
        String uploadId = s3.createMultipartUpload(r -> r.bucket(bucket).key(key)
                .overrideConfiguration(o -> o.apiCallTimeout(deadline.cap(REQUEST_TIMEOUT)))).uploadId();
        boolean completed = false;
        try {
            var parts = new ArrayList<CompletedPart>();
            body.upload(uploadId, parts);
            meter.request("s3.multipart-complete");
            String etag = s3.completeMultipartUpload(r -> r.bucket(bucket).key(key).uploadId(uploadId)
                    .multipartUpload(m -> m.parts(parts))
                    .overrideConfiguration(o -> o.apiCallTimeout(deadline.cap(REQUEST_TIMEOUT)))).eTag();
            completed = true;
            return etag;
        } finally {
            if (!completed) {
                abort(key, uploadId);
            }
        }
    }

    /** Bytes [from, to) of the file as the next parts, each a full part but the last. */
    private void uploadTail(String relative, String uploadId, List<CompletedPart> parts, FileChannel file, long from,
            long to, Deadline deadline) throws IOException {
        String key = key(relative);
        for (long offset = from; offset < to; offset += part.length) {
            int length = (int) Math.min(part.length, to - offset);
            int read = readPart(file, offset, length);
            if (read < length) {
                throw new IOException(relative + " shrank while being uploaded");
            }
            int number = parts.size() + 1;
            meter.request("s3.upload-part");
            String etag = s3.uploadPart(r -> r.bucket(bucket).key(key).uploadId(uploadId).partNumber(number)
                    .contentLength((long) length)
                    .overrideConfiguration(o -> o.apiCallTimeout(deadline.cap(PART_TIMEOUT))),
                    RequestBody.fromContentProvider(() -> new ByteArrayInputStream(part, 0, length), length,
                            "application/octet-stream")).eTag();
            parts.add(CompletedPart.builder().partNumber(number).eTag(etag).build());
        }
    }

    private int readPart(FileChannel file, long offset, int length) throws IOException {
        var buffer = java.nio.ByteBuffer.wrap(part, 0, length);
        while (buffer.hasRemaining()) {
            if (file.read(buffer, offset + buffer.position()) < 0) {
                break;
            }
        }
        return buffer.position();
    }

    private void abort(String key, String uploadId) {
        try {
            meter.request("s3.multipart-abort");
            s3.abortMultipartUpload(r -> r.bucket(bucket).key(key).uploadId(uploadId)
                    .overrideConfiguration(o -> o.apiCallTimeout(ABORT_TIMEOUT)));
        } catch (RuntimeException e) {
            // S3 expires an abandoned upload by the bucket's lifecycle rule; nothing else to do here.
            LOG.debugf("logcopy: could not abort a multipart upload: %s", e.getClass().getSimpleName());
        }
    }
}
