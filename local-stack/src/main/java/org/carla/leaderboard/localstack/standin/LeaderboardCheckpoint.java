package org.carla.leaderboard.localstack.standin;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The evaluator stand-in's statistics manager: the checkpoint file kept the way the Leaderboard 2.0
 * {@code StatisticsManager} keeps it. Records live in memory by route position; the one being driven has index -1
 * and status {@code Started} and is left out of the file; the file is rewritten after every change.
 */
final class LeaderboardCheckpoint {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final DefaultPrettyPrinter PYTHON_INDENT = new DefaultPrettyPrinter()
            .withObjectIndenter(new DefaultIndenter("    ", "\n")).withArrayIndenter(new DefaultIndenter("    ", "\n"))
            .withSeparators(Separators.createDefaultInstance().withObjectFieldValueSpacing(Separators.Spacing.AFTER));

    private final Path file;
    private final List<ObjectNode> records = new ArrayList<>();
    private List<Integer> progress = List.of();
    private String entryStatus = "Started";
    private List<String> sensors = List.of();
    private ObjectNode globalRecord;
    private List<String> values = List.of();
    private List<String> labels = List.of();

    LeaderboardCheckpoint(Path file) {
        this.file = file;
    }

    /** The file as it is, or null when missing or not JSON ({@code fetch_dict}). */
    JsonNode read() {
        try {
            return Files.isRegularFile(file) ? JSON.readTree(file.toFile()) : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** {@code add_file_records}: keeps the records of an earlier run. */
    void addFileRecords(JsonNode data) {
        for (JsonNode record : data.path("_checkpoint").path("records")) {
            records.add((ObjectNode) record.deepCopy());
        }
    }

    /** {@code clear_records}: a fresh run empties the file. */
    void clear() throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, "");
    }

    void saveProgress(int index, int total) {
        progress = List.of(index, total);
    }

    void saveSensors(List<String> icons) {
        sensors = List.copyOf(icons);
    }

    void saveEntryStatus(String status) {
        entryStatus = status;
    }

    /** {@code create_route_data}: the route being driven, overwriting a record of an earlier run at its position. */
    void createRouteData(String routeId, int index) {
        put(index, RouteOutcome.started(routeId));
    }

    /** {@code compute_route_statistics}: the finished record at its position. */
    void register(int index, ObjectNode record) {
        put(index, record);
    }

    private void put(int index, ObjectNode record) {
        if (index < records.size()) {
            records.set(index, record);
        } else {
            records.add(record);
        }
    }

    List<ObjectNode> records() {
        return records;
    }

    /** {@code compute_global_statistics}. */
    void computeGlobalStatistics() {
        GlobalRecordStandIn.Result result = GlobalRecordStandIn.compute(records, progress.isEmpty() ? records.size()
                : progress.get(1));
        globalRecord = result.record();
        values = result.values();
        labels = result.labels();
        entryStatus = result.entryStatus();
    }

    /** {@code validate_and_write_statistics}: anything missing turns the entry {@code Invalid}. */
    String validateAndWrite(boolean sensorsInitialized, boolean crashed) throws IOException {
        String error = null;
        if (sensorsInitialized && sensors.isEmpty()) {
            error = "Missing 'sensors' data";
        } else if (values.isEmpty()) {
            error = "Missing 'values' data";
        } else if (entryStatus.equals("Started")) {
            error = "'entry_status' has the 'Started' value";
        } else if (globalRecord == null) {
            error = "Missing 'global_records' data";
        } else if (progress.isEmpty()) {
            error = "Missing 'progress' data";
        } else if (!crashed && (!progress.get(0).equals(progress.get(1)) || progress.get(0) != records.size())) {
            error = "'progress' data doesn't match its expected value";
        } else if (records.stream().anyMatch(r -> r.path("status").asText().equals("Started"))) {
            error = "Found a route record with missing data";
        }
        if (error != null) {
            entryStatus = "Invalid";
        }
        write();
        return error;
    }

    /** {@code write_statistics}: the whole file, replaced in one rename so a reader never sees half of it. */
    void write() throws IOException {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        ObjectNode checkpoint = root.putObject("_checkpoint");
        if (globalRecord == null) {
            checkpoint.putObject("global_record");
        } else {
            checkpoint.set("global_record", globalRecord);
        }
        ArrayNode progressNode = checkpoint.putArray("progress");
        progress.forEach(progressNode::add);
        ArrayNode recordsNode = checkpoint.putArray("records");
        records.stream().filter(r -> r.path("index").asInt() != -1).forEach(recordsNode::add);
        root.put("entry_status", entryStatus);
        root.put("eligible", entryStatus.equals("Finished"));
        sensors.forEach(root.putArray("sensors")::add);
        values.forEach(root.putArray("values")::add);
        labels.forEach(root.putArray("labels")::add);
        Path absolute = file.toAbsolutePath();
        Files.createDirectories(absolute.getParent());
        Path temporary = Files.createTempFile(absolute.getParent(), ".checkpoint-", ".tmp");
        Files.writeString(temporary, JSON.writer(PYTHON_INDENT).writeValueAsString(root));
        Files.move(temporary, absolute, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
