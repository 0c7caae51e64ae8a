package org.carla.leaderboard.podruntime.logcopy;

import java.time.Duration;

import org.carla.leaderboard.domain.layout.SubmissionLayout;

import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** Whether the cancel control object ({@link SubmissionLayout#CANCEL_CONTROL}) exists: results-relay writes it when EvalAI shows a cancel. */
final class CancelControl {

    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final S3Client s3;
    private final String bucket;
    private final String key;
    private final RequestMeter meter;

    CancelControl(S3Client s3, String bucket, String prefix, RequestMeter meter) {
        this.s3 = s3;
        this.bucket = bucket;
        this.key = prefix + SubmissionLayout.CANCEL_CONTROL;
        this.meter = meter;
    }

    /** @throws software.amazon.awssdk.core.exception.SdkException when S3 cannot say */
    boolean requested() {
        meter.request("s3.head");
        try {
            s3.headObject(r -> r.bucket(bucket).key(key).overrideConfiguration(o -> o.apiCallTimeout(REQUEST_TIMEOUT)));
            return true;
        } catch (NoSuchKeyException e) {
            return false;
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return false;
            }
            throw e;
        }
    }
}
