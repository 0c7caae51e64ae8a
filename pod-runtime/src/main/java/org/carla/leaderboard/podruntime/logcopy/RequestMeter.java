package org.carla.leaderboard.podruntime.logcopy;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What logcopy costs: its S3 and SQS requests by kind, and the bytes it uploaded (its own files apart). Logged at every change worth a
 * line and when logcopy ends.
 */
public final class RequestMeter {

    private final Map<String, LongAdder> requests = new ConcurrentHashMap<>();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong ownBytes = new AtomicLong();

    /** One request of {@code kind} ({@code s3.put}, {@code s3.upload-part}, {@code sqs.send}...), successful or not. */
    public void request(String kind) {
        requests.computeIfAbsent(kind, k -> new LongAdder()).increment();
    }

    /** Bytes of the containers' files sent to S3. */
    public void uploaded(long byteCount) {
        bytes.addAndGet(byteCount);
    }

    /** Bytes of logcopy's own files sent to S3 (merged results, EvalAI's files, its log, its status files). */
    public void uploadedOwn(long byteCount) {
        bytes.addAndGet(byteCount);
        ownBytes.addAndGet(byteCount);
    }

    public long requests(String kind) {
        LongAdder adder = requests.get(kind);
        return adder == null ? 0 : adder.sum();
    }

    /** All requests whose kind starts with {@code prefix} ({@code s3.}). */
    public long requestsStartingWith(String prefix) {
        return requests.entrySet().stream().filter(e -> e.getKey().startsWith(prefix))
                .mapToLong(e -> e.getValue().sum()).sum();
    }

    /** Every byte sent to S3. */
    public long bytesUploaded() {
        return bytes.get();
    }

    /** The bytes of logcopy's own files among them. */
    public long ownBytesUploaded() {
        return ownBytes.get();
    }

    public Map<String, Long> snapshot() {
        var snapshot = new TreeMap<String, Long>();
        requests.forEach((kind, count) -> snapshot.put(kind, count.sum()));
        return snapshot;
    }

    @Override
    public String toString() {
        return snapshot() + ", " + bytesUploaded() + " bytes uploaded (" + ownBytesUploaded() + " of logcopy's own files)";
    }
}
