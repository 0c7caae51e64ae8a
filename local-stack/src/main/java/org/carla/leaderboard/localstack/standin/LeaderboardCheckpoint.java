package org.carla.leaderboard.localstack.standin;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.carla.leaderboard.domain.results.Checkpoint;
import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.results.CheckpointValidation;
import org.carla.leaderboard.domain.results.EntryStatus;
import org.carla.leaderboard.domain.results.GlobalResults;
import org.carla.leaderboard.domain.results.GlobalStatistics;
import org.carla.leaderboard.domain.results.ResultsJson;
import org.carla.leaderboard.domain.results.RouteRecord;

/**
 * The evaluator stand-in's statistics manager: the checkpoint file kept the way the Leaderboard 2.0
 * {@code StatisticsManager} keeps it, with the domain's results model and global statistics (the same code as the
 * merge). Records live in memory by route position; the one being driven has index -1 and status {@code Started} and
 * is left out of the file; the file is rewritten after every change.
 */
final class LeaderboardCheckpoint {

    private final Path file;
    private final List<RouteRecord> records = new ArrayList<>();
    private List<Integer> progress = List.of();
    private EntryStatus entryStatus = EntryStatus.STARTED;
    private List<String> sensors = List.of();
    private CheckpointFile computed;

    LeaderboardCheckpoint(Path file) {
        this.file = file;
    }

    /** The file as it is; empty when missing or not a results file ({@code fetch_dict} gives {} then). */
    Optional<CheckpointFile> read() {
        try {
            return Files.isRegularFile(file) ? Optional.of(ResultsJson.read(file)) : Optional.empty();
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** {@code add_file_records}: keeps the records of an earlier run. */
    void addFileRecords(CheckpointFile data) {
        records.addAll(data.checkpoint().records());
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

    void saveEntryStatus(EntryStatus status) {
        entryStatus = status;
    }

    /** {@code create_route_data}: the route being driven, overwriting a record of an earlier run at its position. */
    void createRouteData(String routeId, int index) {
        put(index, RouteOutcome.started(routeId));
    }

    /** {@code compute_route_statistics}: the finished record at its position. */
    void register(int index, RouteRecord record) {
        put(index, record);
    }

    private void put(int index, RouteRecord record) {
        if (index < records.size()) {
            records.set(index, record);
        } else {
            records.add(record);
        }
    }

    RouteRecord record(int index) {
        return records.get(index);
    }

    /** {@code compute_global_statistics}, by the domain's statistics. */
    void computeGlobalStatistics() {
        GlobalResults results = GlobalStatistics.compute(records, progress.get(1));
        entryStatus = results.entryStatus();
        computed = current().withGlobalResults(results);
    }

    /** {@code validate_and_write_statistics}: anything missing turns the entry {@code Invalid}; the problem, if any. */
    Optional<String> validateAndWrite(boolean sensorsInitialized, boolean crashed) {
        CheckpointFile file = computed != null ? computed : current();
        Optional<String> problem = CheckpointValidation.problem(file, sensorsInitialized, crashed);
        computed = CheckpointValidation.validated(file, sensorsInitialized, crashed);
        ResultsJson.write(this.file, computed);
        return problem;
    }

    /** {@code write_statistics}: the whole file, replaced in one step so a reader never sees half of it. */
    void write() {
        ResultsJson.write(file, computed != null ? computed : current());
    }

    private CheckpointFile current() {
        List<RouteRecord> finished = records.stream().filter(r -> r.index() != -1).toList();
        return new CheckpointFile(new Checkpoint(null, progress, finished), entryStatus.label(), entryStatus.eligible(),
                sensors, List.of(), List.of());
    }
}
