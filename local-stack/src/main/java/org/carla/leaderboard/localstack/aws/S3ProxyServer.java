package org.carla.leaderboard.localstack.aws;

import java.io.IOException;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.carla.leaderboard.localstack.StackContext;
import org.carla.leaderboard.localstack.process.ServerClassPath;
import org.carla.leaderboard.localstack.process.ServerProcess;

import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;

/**
 * S3: S3Proxy 4 (no jclouds) on its file-system back end in the work dir ({@code s3/buckets/<bucket>/<key>}, so the
 * uploaded logs can be looked at), with every {@code AWS::S3::Bucket} of deploy/aws/leaderboard-backend.yaml. Its IAM
 * gate checks each request's signature and permissions as S3 does; S3Proxy itself, reached only through the gate,
 * runs without authorization.
 */
public final class S3ProxyServer extends LocalAwsServer {

    public static final String NAME = "s3";
    private static final String LAUNCHER = "org.carla.leaderboard.localstack.servers.s3proxy.S3ProxyLauncher";

    private S3Client client;
    private List<String> buckets = List.of();

    public S3ProxyServer() {
        super(NAME);
    }

    @Override
    List<String> command(StackContext context, int port, int serverPort) throws IOException {
        var buckets = Files.createDirectories(context.workDir().resolve("buckets"));
        var settings = new Properties();
        settings.setProperty("s3proxy.endpoint", "http://127.0.0.1:" + serverPort);
        // The gate in front checks every signature and permission.
        settings.setProperty("s3proxy.authorization", "none");
        settings.setProperty("jclouds.provider", "filesystem-nio2");
        settings.setProperty("jclouds.filesystem.basedir", buckets.toString());
        // The file-system back end's own identity: no secret, nothing but the gate reaches S3Proxy.
        settings.setProperty("jclouds.identity", "local-stack");
        settings.setProperty("jclouds.credential", "local-stack");
        var file = context.workDir().resolve("s3proxy.properties");
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            settings.store(out, "S3Proxy of the local stack");
        }
        var logback = context.workDir().resolve("logback.xml");
        // S3Proxy logs at DEBUG without a configuration of its own.
        Files.writeString(logback, """
                <configuration>
                  <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
                    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{36} - %msg%n</pattern></encoder>
                  </appender>
                  <root level="INFO"><appender-ref ref="OUT"/></root>
                </configuration>
                """, StandardCharsets.UTF_8);
        return ServerProcess.javaCommand(ServerClassPath.of("s3proxy", LAUNCHER),
                List.of("-Dlogback.configurationFile=" + logback, gatesOption(context)),
                LAUNCHER,
                List.of("--properties", file.toString()));
    }

    @Override
    void probe(URI endpoint, StackContext context) {
        try (var probe = AwsClients.probe(S3Client.builder().forcePathStyle(true), endpoint, context.credentials(),
                context.region())) {
            probe.listBuckets();
        }
    }

    @Override
    void provision(URI endpoint, StackContext context) {
        client = AwsClients.client(S3Client.builder().forcePathStyle(true), endpoint, context.credentials(),
                context.region());
        var names = context.access().deployment().buckets();
        for (String bucket : names) {
            try {
                client.createBucket(r -> r.bucket(bucket));
            } catch (BucketAlreadyOwnedByYouException e) {
                // a reused work dir keeps its buckets and their objects
            }
        }
        buckets = List.copyOf(names);
    }

    @Override
    String quarkusService() {
        return "s3";
    }

    @Override
    Map<String, String> extraQuarkusConfig() {
        return Map.of("quarkus.s3.path-style-access", "true");
    }

    public S3Client client() {
        if (client == null) {
            throw new IllegalStateException("s3 is not running");
        }
        return client;
    }

    /** The buckets it created: the template's. */
    public List<String> buckets() {
        return buckets;
    }

    @Override
    public void close() {
        if (client != null) {
            client.close();
        }
        super.close();
    }
}
