package org.carla.leaderboard.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.event.SubmissionRef;
import org.carla.leaderboard.podruntime.results.ResultsRefresh;

import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The seeds' logcopy, one period: the monitor's scripts rewrite the merged results and EvalAI's files, then
 * {@code aws s3 sync /logs s3://<bucket>/<id>/} lists the prefix (one LIST per 1,000 keys) and uploads every file whose
 * size differs or whose local time is newer than the copy's, whole (multipart above 8 MB, in 8 MB parts: the CLI's
 * defaults), then a progress message goes out. Its LIST and its messages go to S3Proxy and ElasticMQ for real; its
 * uploads are counted (requests and bytes), not sent: their total grows with the square of the run's length (tens of
 * GB for a 2-hour run), more than this machine can push through S3Proxy in minutes.
 */
final class SeedsSync {

    private static final long CLI_PART = 8L * 1024 * 1024;

    private final S3Client s3;
    private final SqsClient sqs;
    private final String bucket;
    private final String queueUrl;
    private final Path logs;
    private final SubmissionRef submission;
    private final Map<String, long[]> remote = new HashMap<>();
    private final Map<String, Long> requests = new TreeMap<>();
    private long bytes;
    private long messages;

    SeedsSync(S3Client s3, SqsClient sqs, String bucket, String queueUrl, Path logs, SubmissionRef submission) {
        this.s3 = s3;
        this.sqs = sqs;
        this.bucket = bucket;
        this.queueUrl = queueUrl;
        this.logs = logs;
        this.submission = submission;
    }

    void period() throws IOException {
        for (var page : s3.listObjectsV2Paginator(r -> r.bucket(bucket).prefix(submission.submissionId() + "/"))) {
            count("s3.list", 1);
            page.contents(); // what sync compares against; nothing was really uploaded, see remote
        }
        long now = Instant.now().toEpochMilli();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(logs)) {
            files = walk.filter(Files::isRegularFile).toList();
        }
        for (Path file : files) {
            String relative = logs.relativize(file).toString();
            BasicFileAttributes attributes;
            try {
                attributes = Files.readAttributes(file, BasicFileAttributes.class);
            } catch (IOException e) {
                continue; // replaced meanwhile
            }
            // The monitor's generate_*.py and merge_statistics.py rewrite these every period.
            long modified = ResultsRefresh.FILES.contains(relative) ? now : attributes.lastModifiedTime().toMillis();
            long[] copy = remote.get(relative);
            if (copy != null && copy[0] == attributes.size() && copy[1] >= modified) {
                continue;
            }
            long size = attributes.size();
            if (size > CLI_PART) {
                count("s3.multipart-create", 1);
                count("s3.upload-part", (size + CLI_PART - 1) / CLI_PART);
                count("s3.multipart-complete", 1);
            } else {
                count("s3.put", 1);
            }
            bytes += size;
            remote.put(relative, new long[] { size, modified });
        }
        String body = EventCodec.write(Progress.of(submission, 1, 0, 20, false, "0".repeat(64), false, null, List.of(),
                Instant.now()));
        sqs.sendMessage(r -> r.queueUrl(queueUrl).messageBody(body));
        messages++;
    }

    Map<String, Long> requests() {
        return requests;
    }

    long s3Requests() {
        return requests.values().stream().mapToLong(Long::longValue).sum();
    }

    long bytes() {
        return bytes;
    }

    long messages() {
        return messages;
    }

    private void count(String kind, long n) {
        requests.merge(kind, n, Long::sum);
    }
}
