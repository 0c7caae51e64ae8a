package org.carla.leaderboard.localstack.aws;

import java.net.URI;
import java.time.Duration;

import org.carla.leaderboard.localstack.StackCredentials;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.awscore.client.builder.AwsSyncClientBuilder;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;

/** AWS SDK v2 sync clients pointed at a local server, with the url-connection client the services use too. */
public final class AwsClients {

    // Longer than SQS's 20 s long poll.
    private static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

    /**
     * Drops the {@code Expect: 100-continue} the S3 client adds to uploads: through the URL-connection client, a
     * 100-continue exchange that S3Proxy's Jetty ends early surfaces as an unchecked "Unexpected end of file from
     * server" that the SDK does not retry; without the header the same failure is an I/O error it retries.
     */
    private static final ExecutionInterceptor NO_EXPECT_CONTINUE = new ExecutionInterceptor() {
        @Override
        public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
            return context.httpRequest().toBuilder().removeHeader("Expect").build();
        }
    };

    private AwsClients() {
    }

    /** A client for the stack's users: the SDK's standard retries. */
    public static <B extends AwsClientBuilder<B, C> & AwsSyncClientBuilder<B, C>, C> C client(B builder, URI endpoint,
            StackCredentials credentials, String region) {
        return configure(builder, endpoint, credentials, region).build();
    }

    /** A client for readiness probes: no retries, so each poll is one request. */
    static <B extends AwsClientBuilder<B, C> & AwsSyncClientBuilder<B, C>, C> C probe(B builder, URI endpoint,
            StackCredentials credentials, String region) {
        return configure(builder, endpoint, credentials, region)
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry())
                        .apiCallTimeout(Duration.ofSeconds(5))
                        .addExecutionInterceptor(NO_EXPECT_CONTINUE))
                .build();
    }

    private static <B extends AwsClientBuilder<B, C> & AwsSyncClientBuilder<B, C>, C> B configure(B builder,
            URI endpoint, StackCredentials credentials, String region) {
        return builder.endpointOverride(endpoint)
                .overrideConfiguration(o -> o.addExecutionInterceptor(NO_EXPECT_CONTINUE))
                .region(Region.of(region))
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(credentials.accessKeyId(), credentials.secretAccessKey())))
                .httpClientBuilder(UrlConnectionHttpClient.builder()
                        .connectionTimeout(CONNECT_TIMEOUT)
                        .socketTimeout(SOCKET_TIMEOUT));
    }
}
