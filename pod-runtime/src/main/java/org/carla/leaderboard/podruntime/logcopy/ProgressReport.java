package org.carla.leaderboard.podruntime.logcopy;

import java.time.Clock;
import java.time.Duration;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.results.MergeResult;

import software.amazon.awssdk.services.sqs.SqsClient;

/** Sends a {@code progress} event to {@code submission-events}: routes done / total, global results, the files' keys. */
final class ProgressReport {

    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final SqsClient sqs;
    private final String queueUrl;
    private final SubmissionIdentity identity;
    private final String submissionId;
    private final RequestMeter meter;
    private final Clock clock;

    ProgressReport(SqsClient sqs, String queueUrl, SubmissionIdentity identity, String submissionId,
            RequestMeter meter, Clock clock) {
        this.sqs = sqs;
        this.queueUrl = queueUrl;
        this.identity = identity;
        this.submissionId = submissionId;
        this.meter = meter;
        this.clock = clock;
    }

    Progress send(MergeResult result) {
        Progress progress = Progress.of(identity, result.routesDone(), result.routesTotal(), result.globalResults(),
                Progress.EvalAiFileKeys.under(submissionId), clock.instant());
        meter.request("sqs.send");
        sqs.sendMessage(r -> r.queueUrl(queueUrl).messageBody(EventCodec.write(progress))
                .overrideConfiguration(o -> o.apiCallTimeout(REQUEST_TIMEOUT)));
        return progress;
    }
}
