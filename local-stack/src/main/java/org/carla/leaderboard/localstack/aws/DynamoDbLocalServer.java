package org.carla.leaderboard.localstack.aws;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.util.List;
import java.util.Locale;

import org.carla.leaderboard.localstack.StackContext;
import org.carla.leaderboard.localstack.deploy.Deployment;
import org.carla.leaderboard.localstack.process.ServerClassPath;
import org.carla.leaderboard.localstack.process.ServerProcess;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * DynamoDB: DynamoDB Local on a file in the work dir, one database whatever the client's credentials and region
 * ({@code -sharedDb}), with every {@code AWS::DynamoDB::Table} of deploy/aws/leaderboard-backend.yaml, created as the
 * template defines it ({@link TemplateTables}): no table of its own.
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
    List<String> command(StackContext context, int port, int serverPort) throws IOException {
        // A file, not -inMemory, so a killed server comes back with its tables; a stack starts empty.
        var data = context.workDir().resolve("data");
        Files.deleteIfExists(data.resolve("shared-local-instance.db"));
        Files.createDirectories(data);
        var classPath = ServerClassPath.of("dynamodb-local", LAUNCHER);
        return ServerProcess.javaCommand(classPath,
                List.of("-Dsqlite4java.library.path=" + classPath.nativeLibraryFolder(sqlitePlatform()),
                        "-Ddynamodb.local.bind-host=127.0.0.1", gatesOption(context)),
                LAUNCHER,
                List.of("-dbPath", data.toString(), "-sharedDb", "-disableTelemetry", "-port",
                        Integer.toString(serverPort)));
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
        var created = new java.util.ArrayList<String>();
        for (Deployment.Table table : context.access().deployment().tables()) {
            TemplateTables.create(client, table);
            created.add(table.name());
        }
        tables = List.copyOf(created);
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

    /** The tables it created: the template's, in its order. */
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
