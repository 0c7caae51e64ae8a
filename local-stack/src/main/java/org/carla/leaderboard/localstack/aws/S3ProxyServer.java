package org.carla.leaderboard.localstack.aws;

import java.io.IOException;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashSet;
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
 * uploaded logs can be looked at), checking the stack's credentials like S3 does, with one bucket per leaderboard.
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
    List<String> command(StackContext context, int port) throws IOException {
        var buckets = Files.createDirectories(context.workDir().resolve("buckets"));
        var settings = new Properties();
        settings.setProperty("s3proxy.endpoint", "http://127.0.0.1:" + port);
        settings.setProperty("s3proxy.authorization", "aws-v2-or-v4");
        settings.setProperty("s3proxy.identity", context.credentials().accessKeyId());
        settings.setProperty("s3proxy.credential", context.credentials().secretAccessKey());
        settings.setProperty("jclouds.provider", "filesystem-nio2");
        settings.setProperty("jclouds.filesystem.basedir", buckets.toString());
        settings.setProperty("jclouds.identity", context.credentials().accessKeyId());
        settings.setProperty("jclouds.credential", context.credentials().secretAccessKey());
        var file = context.workDir().resolve("s3proxy.properties");
        Files.deleteIfExists(file);
        // It holds the stack's secret key: readable by its owner only.
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
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
                List.of("-Dlogback.configurationFile=" + logback),
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
        var names = new LinkedHashSet<String>();
        context.evaluation().leaderboards().values().forEach(leaderboard -> names.add(leaderboard.bucket()));
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

    /** The buckets it created, one per leaderboard. */
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
