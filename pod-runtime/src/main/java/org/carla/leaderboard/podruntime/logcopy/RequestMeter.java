package org.carla.leaderboard.podruntime.logcopy;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What logcopy costs: its S3 and SQS requests by kind, and the bytes it uploaded. Logged at every change worth a
 * line and when logcopy ends.
 */
public final class RequestMeter {

    private final Map<String, LongAdder> requests = new ConcurrentHashMap<>();
    private final AtomicLong bytes = new AtomicLong();

    /** One request of {@code kind} ({@code s3.put}, {@code s3.upload-part}, {@code sqs.send}...), successful or not. */
    public void request(String kind) {
        requests.computeIfAbsent(kind, k -> new LongAdder()).increment();
    }

    public void uploaded(long byteCount) {
        bytes.addAndGet(byteCount);
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

    public long bytesUploaded() {
        return bytes.get();
    }

    public Map<String, Long> snapshot() {
        var snapshot = new TreeMap<String, Long>();
        requests.forEach((kind, count) -> snapshot.put(kind, count.sum()));
        return snapshot;
    }

    @Override
    public String toString() {
        return snapshot() + ", " + bytesUploaded() + " bytes uploaded";
    }
}
