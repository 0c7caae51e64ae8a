package org.carla.leaderboard.localstack.aws;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.carla.leaderboard.domain.record.QualifierTable;
import org.carla.leaderboard.domain.record.SubmissionTable;
import org.carla.leaderboard.localstack.StackContext;
import org.carla.leaderboard.localstack.process.ServerClassPath;
import org.carla.leaderboard.localstack.process.ServerProcess;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.Projection;
import software.amazon.awssdk.services.dynamodb.model.ProjectionType;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

/**
 * DynamoDB: DynamoDB Local on a file in the work dir, one database whatever the client's credentials and region
 * ({@code -sharedDb}), with the submissions table of every configured leaderboard (with its index by status) and the
 * qualifier table.
 */
public final class DynamoDbLocalServer extends LocalAwsServer {

    public static final String NAME = "dynamodb";
    private static final String LAUNCHER = "org.carla.leaderboard.localstack.servers.dynamodb.DynamoDbLocalLauncher";

    private DynamoDbClient client;
    private List<String> tables = List.of();

    public DynamoDbLocalServer() {
        super(NAME);
    }

    @Override
    List<String> command(StackContext context, int port) throws IOException {
        // A file, not -inMemory, so a killed server comes back with its tables; a stack starts empty.
        var data = context.workDir().resolve("data");
        Files.deleteIfExists(data.resolve("shared-local-instance.db"));
        Files.createDirectories(data);
        var classPath = ServerClassPath.of("dynamodb-local", LAUNCHER);
        return ServerProcess.javaCommand(classPath,
                List.of("-Dsqlite4java.library.path=" + classPath.nativeLibraryFolder(sqlitePlatform()),
                        "-Ddynamodb.local.bind-host=127.0.0.1"),
                LAUNCHER,
                List.of("-dbPath", data.toString(), "-sharedDb", "-disableTelemetry", "-port", Integer.toString(port)));
    }

    @Override
    void probe(URI endpoint, StackContext context) {
        try (var probe = AwsClients.probe(DynamoDbClient.builder(), endpoint, context.credentials(), context.region())) {
            probe.listTables();
        }
    }

    @Override
    void provision(URI endpoint, StackContext context) {
        client = AwsClients.client(DynamoDbClient.builder(), endpoint, context.credentials(), context.region());
        var keys = new LinkedHashMap<String, String>();
        context.evaluation().leaderboards().values()
                .forEach(leaderboard -> keys.put(leaderboard.submissionsTable(), SubmissionTable.SUBMISSION_ID));
        keys.put(context.evaluation().qualifierTable(), QualifierTable.TRACK_CODENAME);
        keys.forEach((table, sortKey) -> client.createTable(r -> {
            r.tableName(table)
                    .billingMode(BillingMode.PAY_PER_REQUEST)
                    .attributeDefinitions(attribute(SubmissionTable.TEAM_ID), attribute(sortKey))
                    .keySchema(key(SubmissionTable.TEAM_ID, KeyType.HASH), key(sortKey, KeyType.RANGE));
            if (sortKey.equals(SubmissionTable.SUBMISSION_ID)) {
                // As deploy/aws defines it: the records of runs not over are found by their status, not a scan.
                r.attributeDefinitions(attribute(SubmissionTable.TEAM_ID), attribute(sortKey),
                        attribute(SubmissionTable.STATUS))
                        .globalSecondaryIndexes(GlobalSecondaryIndex.builder()
                                .indexName(SubmissionTable.STATUS_INDEX)
                                .keySchema(key(SubmissionTable.STATUS, KeyType.HASH),
                                        key(SubmissionTable.SUBMISSION_ID, KeyType.RANGE))
                                .projection(Projection.builder().projectionType(ProjectionType.ALL).build())
                                .build());
            }
        }));
        tables = List.copyOf(keys.keySet());
    }

    private static AttributeDefinition attribute(String name) {
        return AttributeDefinition.builder().attributeName(name).attributeType(ScalarAttributeType.S).build();
    }

    private static KeySchemaElement key(String name, KeyType type) {
        return KeySchemaElement.builder().attributeName(name).keyType(type).build();
    }

    @Override
    String quarkusService() {
        return "dynamodb";
    }

    public DynamoDbClient client() {
        if (client == null) {
            throw new IllegalStateException("dynamodb is not running");
        }
        return client;
    }

    /** The tables it created: the leaderboards' submissions tables, then the qualifier table. */
    public List<String> tables() {
        return tables;
    }

    @Override
    public void close() {
        if (client != null) {
            client.close();
        }
        super.close();
    }

    /** The part of sqlite4java's native library name for this machine (its artifacts: linux-amd64, osx, ...). */
    private static String sqlitePlatform() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch");
        if (os.contains("mac")) {
            return "osx";
        }
        if (os.contains("win")) {
            return arch.contains("64") ? "win32-x64" : "win32-x86";
        }
        return "linux-" + switch (arch) {
            case "amd64", "x86_64" -> "amd64";
            case "x86", "i386", "i686" -> "i386";
            default -> arch;
        };
    }
}
