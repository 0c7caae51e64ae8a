package org.carla.leaderboard.localstack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.Bucket;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * S3Proxy through the AWS SDK: deploy/aws's buckets, named as the services' ConfigMap names them, put/list/get,
 * multipart upload, signatures checked.
 */
class BucketsIT {

    static RunningStack stack;
    static String bucket10;
    static String bucket20;

    @BeforeAll
    static void start() {
        stack = LocalStack.builder().components("s3").start();
        bucket10 = stack.evaluation().leaderboards().get("leaderboard-10").bucket();
        bucket20 = stack.evaluation().leaderboards().get("leaderboard-20").bucket();
    }

    @AfterAll
    static void stop() {
        stack.close();
    }

    @Test
    void theTemplatesBucketsExistUnderTheNamesTheServicesAreGiven() {
        String suffix = "-" + LocalStack.ACCOUNT_ID + "-" + LocalStack.REGION;
        assertThat(stack.s3().listBuckets().buckets()).extracting(Bucket::name)
                .containsExactlyInAnyOrder("carla-leaderboard-10" + suffix, "carla-leaderboard-20" + suffix);
        assertThat(stack.quarkusConfig()).containsEntry("quarkus.s3.path-style-access", "true")
                .containsEntry("evaluation.leaderboards.leaderboard-10.bucket", bucket10)
                .containsEntry("evaluation.leaderboards.leaderboard-20.bucket", bucket20);
        assertThat(bucket20).isEqualTo("carla-leaderboard-20" + suffix);
    }

    @Test
    void objectsPutUnderASubmissionPrefixAreListedAndReadBack() {
        var s3 = stack.s3();
        s3.putObject(r -> r.bucket(bucket20).key("sub-9/agent/agent1/agent_results.json"),
                RequestBody.fromString("{\"progress\": [3, 20]}"));
        s3.putObject(r -> r.bucket(bucket20).key("sub-9/control/cancel"), RequestBody.empty());
        s3.putObject(r -> r.bucket(bucket20).key("sub-10/simulator/log.txt"),
                RequestBody.fromString("other"));

        assertThat(s3.listObjectsV2(r -> r.bucket(bucket20).prefix("sub-9/")).contents())
                .extracting(S3Object::key)
                .containsExactlyInAnyOrder("sub-9/agent/agent1/agent_results.json", "sub-9/control/cancel");
        assertThat(s3.getObjectAsBytes(r -> r.bucket(bucket20)
                .key("sub-9/agent/agent1/agent_results.json")).asUtf8String()).isEqualTo("{\"progress\": [3, 20]}");
    }

    @Test
    void aMultipartUploadIsReadBackWhole() {
        var s3 = stack.s3();
        byte[] first = new byte[5 * 1024 * 1024];
        Arrays.fill(first, (byte) 'a');
        byte[] second = "the end".getBytes(StandardCharsets.UTF_8);
        String key = "sub-11/logcopy/big.log";

        String uploadId = s3.createMultipartUpload(r -> r.bucket(bucket10).key(key)).uploadId();
        String etag1 = s3.uploadPart(r -> r.bucket(bucket10).key(key).uploadId(uploadId).partNumber(1),
                RequestBody.fromBytes(first)).eTag();
        String etag2 = s3.uploadPart(r -> r.bucket(bucket10).key(key).uploadId(uploadId).partNumber(2),
                RequestBody.fromBytes(second)).eTag();
        s3.completeMultipartUpload(r -> r.bucket(bucket10).key(key).uploadId(uploadId)
                .multipartUpload(u -> u.parts(CompletedPart.builder().partNumber(1).eTag(etag1).build(),
                        CompletedPart.builder().partNumber(2).eTag(etag2).build())));

        byte[] whole = s3.getObjectAsBytes(r -> r.bucket(bucket10).key(key)).asByteArray();
        assertThat(whole).hasSize(first.length + second.length);
        assertThat(new String(whole, first.length, second.length, StandardCharsets.UTF_8)).isEqualTo("the end");
        assertThat(whole[0]).isEqualTo((byte) 'a');
    }

    @Test
    void aClientWithAnotherSecretIsRefusedAsS3RefusesABadSignature() {
        try (var stranger = S3Client.builder()
                .endpointOverride(URI.create(stack.quarkusConfig().get("quarkus.s3.endpoint-override")))
                .forcePathStyle(true)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(stack.credentials().accessKeyId(), "not-the-stack-secret")))
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .build()) {
            assertThatThrownBy(stranger::listBuckets)
                    .isInstanceOfSatisfying(S3Exception.class, e -> {
                        assertThat(e.statusCode()).isEqualTo(403);
                        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("SignatureDoesNotMatch");
                    });
        }
    }
}
