package org.carla.leaderboard.podruntime.logcopy;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.event.SubmissionRef;
import org.carla.leaderboard.domain.results.MergeResult;
import org.carla.leaderboard.messaging.QueuePublisher;

import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Sends {@code progress} reports to {@code progress-reports} (which run, routes done / total, the results' digest):
 * when there is news or a heartbeat is due ({@link ProgressNews}), and a last one saying how logcopy ended.
 */
final class ProgressReport {

    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final QueuePublisher queue;
    private final SubmissionRef submission;
    private final int run;
    private final RequestMeter meter;
    private final Clock clock;
    private final ProgressNews news;

    ProgressReport(SqsClient sqs, String queueUrl, SubmissionRef submission, int run, Duration heartbeat,
            RequestMeter meter, Clock clock) {
        this.queue = QueuePublisher.to(sqs, queueUrl).withTimeout(REQUEST_TIMEOUT);
        this.submission = submission;
        this.run = run;
        this.meter = meter;
        this.clock = clock;
        this.news = new ProgressNews(heartbeat);
    }

    /** Sends a report when there is news or a heartbeat is due; true when one went out or none was due. */
    Boolean sendIfDue(MergeResult result, String resultsDigest) {
        ProgressNews.Kind kind = news.at(result, resultsDigest, clock.instant());
        if (kind != ProgressNews.Kind.NONE) {
            send(result, resultsDigest, kind == ProgressNews.Kind.HEARTBEAT, null, List.of());
        }
        return Boolean.TRUE;
    }

    /** The last report: how logcopy ended and what it could not upload. */
    Progress sendLast(MergeResult result, String resultsDigest, Progress.Ending ending, List<String> notUploaded) {
        return send(result, resultsDigest, false, ending, notUploaded);
    }

    private Progress send(MergeResult result, String resultsDigest, boolean heartbeat, Progress.Ending ending,
            List<String> notUploaded) {
        Progress progress = Progress.of(submission, run, result.routesDone(), result.routesTotal(),
                result.globalResults(), resultsDigest, heartbeat, ending, notUploaded, clock.instant());
        meter.request("sqs.send");
        queue.publish(progress);
        news.sent(result, resultsDigest, progress.at());
        return progress;
    }
}
