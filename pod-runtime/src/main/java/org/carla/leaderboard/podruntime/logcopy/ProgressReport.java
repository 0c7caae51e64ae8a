package org.carla.leaderboard.podruntime.logcopy;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.event.SubmissionRef;
import org.carla.leaderboard.domain.results.MergeResult;
import org.carla.leaderboard.messaging.QueuePublisher;

import software.amazon.awssdk.services.sqs.SqsClient;

/** Sends a {@code progress} report to {@code progress-reports}: which run, routes done / total, the results' digest. */
final class ProgressReport {

    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final QueuePublisher queue;
    private final SubmissionRef submission;
    private final int run;
    private final RequestMeter meter;
    private final Clock clock;

    ProgressReport(SqsClient sqs, String queueUrl, SubmissionRef submission, int run, RequestMeter meter, Clock clock) {
        this.queue = QueuePublisher.to(sqs, queueUrl).withTimeout(REQUEST_TIMEOUT);
        this.submission = submission;
        this.run = run;
        this.meter = meter;
        this.clock = clock;
    }

    Progress send(MergeResult result, String resultsDigest) {
        return send(result, resultsDigest, false, null, List.of());
    }

    Progress send(MergeResult result, String resultsDigest, boolean heartbeat, Progress.Ending ending,
            List<String> notUploaded) {
        Progress progress = Progress.of(submission, run, result.routesDone(), result.routesTotal(),
                result.globalResults(), resultsDigest, heartbeat, ending, notUploaded, clock.instant());
        meter.request("sqs.send");
        queue.publish(progress);
        return progress;
    }
}
