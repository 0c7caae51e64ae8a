package org.carla.leaderboard.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.carla.leaderboard.domain.layout.LogsLayout;
import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.results.ResultsJson;
import org.carla.leaderboard.domain.results.RouteRecord;
import org.carla.leaderboard.domain.status.StatusFiles;
import org.carla.leaderboard.domain.status.StatusFiles.Role;
import org.carla.leaderboard.localstack.standin.RouteOutcome;

/**
 * The eight worker containers of a submission writing into its logs volume, compressed in time: each agent's
 * {@code leaderboard.log} and each simulator's log grow at a steady rate (real bytes per real second × the scale), and
 * each agent finishes its routes at even intervals, rewriting its checkpoint each time (the evaluator rewrites the whole
 * file). logcopy, the ninth container, writes its own log. Counts the bytes written, and keeps each log's size over
 * time (to tell how late S3 is).
 */
final class ContainerWriters {

    /** A log's size after each write, by the harness's clock (ns): when were its first {@code n} bytes written? */
    static final class Timeline {
        private final List<long[]> points = new ArrayList<>();

        synchronized void add(long nanos, long size) {
            points.add(new long[] { nanos, size });
        }

        /** When the byte at offset {@code size} (the first not in a copy of {@code size} bytes) was written; -1: not yet. */
        synchronized long writtenAt(long size) {
            for (long[] point : points) {
                if (point[1] > size) {
                    return point[0];
                }
            }
            return -1;
        }

        synchronized long size() {
            return points.isEmpty() ? 0 : points.get(points.size() - 1)[1];
        }
    }

    private final Path logs;
    private final int pairs;
    private final int routesPerAgent;
    private final double agentRate;
    private final double simulatorRate;
    private final Map<String, Timeline> timelines = new LinkedHashMap<>();
    private final Map<String, Double> owed = new LinkedHashMap<>();
    private long written;
    private int routesDone;

    /**
     * @param agentRate     bytes a second (compressed time) each agent's log grows by
     * @param simulatorRate bytes a second (compressed time) each simulator's log grows by
     */
    ContainerWriters(Path logs, int pairs, int routesPerAgent, double agentRate, double simulatorRate)
            throws IOException {
        this.logs = logs;
        this.pairs = pairs;
        this.routesPerAgent = routesPerAgent;
        this.agentRate = agentRate;
        this.simulatorRate = simulatorRate;
        for (int pair = 1; pair <= pairs; pair++) {
            for (String log : List.of(LogsLayout.agentLog(pair), LogsLayout.simulatorLog(pair))) {
                Files.createDirectories(logs.resolve(log).getParent());
                timelines.put(log, new Timeline());
                owed.put(log, 0.0);
            }
        }
    }

    /** The logs and their timelines. */
    Map<String, Timeline> timelines() {
        return timelines;
    }

    /** Writes what the containers write in {@code seconds} of compressed time, and the routes due at {@code fraction}. */
    synchronized void write(double seconds, double fraction, long nanos) throws IOException {
        for (Map.Entry<String, Timeline> log : timelines.entrySet()) {
            boolean agent = log.getKey().startsWith(LogsLayout.AGENT_DIR);
            double bytes = owed.get(log.getKey()) + seconds * (agent ? agentRate : simulatorRate);
            int whole = (int) bytes;
            owed.put(log.getKey(), bytes - whole);
            grow(log.getKey(), whole, nanos);
        }
        int due = (int) Math.min(routesPerAgent, Math.floor(fraction * routesPerAgent + 1e-9));
        while (routesDone < due) {
            routesDone++;
            for (int pair = 1; pair <= pairs; pair++) {
                written += checkpoint(pair, routesDone);
            }
        }
    }

    /** Appends {@code bytes} of lines to {@code log} (one of {@link #timelines()}). */
    synchronized void grow(String log, int bytes, long nanos) throws IOException {
        if (bytes > 0) {
            Path file = logs.resolve(log);
            Files.write(file, lines(log, bytes), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            written += bytes;
            timelines.get(log).add(nanos, Files.size(file));
        }
    }

    /** Every pair's done files: the end of the run. */
    void finish() throws IOException {
        for (int pair = 1; pair <= pairs; pair++) {
            for (Role role : Role.values()) {
                Files.createDirectories(logs.resolve(StatusFiles.DIRECTORY));
                Files.createFile(logs.resolve(LogsLayout.statusFile(StatusFiles.done(role, pair))));
            }
        }
    }

    synchronized long written() {
        return written;
    }

    synchronized int routesDone() {
        return routesDone;
    }

    /** Agent {@code pair}'s checkpoint after {@code done} of its routes; returns its size. */
    private long checkpoint(int pair, int done) throws IOException {
        var records = new ArrayList<RouteRecord>();
        for (int i = 0; i < done; i++) {
            int route = (pair - 1) * routesPerAgent + i;
            records.add(RouteOutcome.drive("run-cost", "RouteScenario_" + route + "_rep0", i));
        }
        CheckpointFile file = CheckpointFile.started(List.of("carla_camera", "carla_gnss", "carla_imu"),
                List.of(done, routesPerAgent), records);
        String text = ResultsJson.write(file);
        ResultsJson.writeText(logs.resolve(LogsLayout.agentCheckpoint(pair)), text);
        return text.getBytes(StandardCharsets.UTF_8).length;
    }

    /** {@code bytes} of log lines, the last one possibly cut (the next write goes on with it). */
    private static byte[] lines(String log, int bytes) {
        var text = new StringBuilder(bytes + 100);
        while (text.length() < bytes) {
            text.append(System.nanoTime()).append(' ').append(log)
                    .append(" tick: ego at (x=12.5, y=-3.2), speed 7.9 m/s, 3 actors near\n");
        }
        return text.substring(0, bytes).getBytes(StandardCharsets.US_ASCII);
    }
}
