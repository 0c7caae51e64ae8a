package org.carla.leaderboard.localstack.standin;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.carla.leaderboard.domain.layout.LogsLayout;
import org.carla.leaderboard.domain.results.ResultsJson;
import org.carla.leaderboard.domain.results.RouteRecord;
import org.carla.leaderboard.domain.status.StatusFiles;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The participant's code at its worst, as the campaign of issue 15 played it: the evaluator runs in the participant's
 * container, so the evaluator stand-in plays them. Knob {@code EVALUATOR_STANDIN_HOSTILE}: a comma-separated list of
 * {@link Action}s. Records are changed as they are registered; the forgeries in the logs volume are made once, when
 * the route {@code EVALUATOR_STANDIN_HOSTILE_AT_ROUTE} starts (default: after the last route); the checkpoint is
 * replaced after the evaluator's last write of it. Files "outside the volume" go to
 * {@code EVALUATOR_STANDIN_HOSTILE_DIR} (default: the working directory, a folder of its own per container here).
 */
final class HostileParticipant {

    static final String KNOB = "EVALUATOR_STANDIN_HOSTILE";
    static final String AT_ROUTE = "EVALUATOR_STANDIN_HOSTILE_AT_ROUTE";
    static final String OUTSIDE = "EVALUATOR_STANDIN_HOSTILE_DIR";
    static final String BAIT = "bait.txt";
    static final String OUTSIDE_RESULTS = "outside_results.json";
    static final String OUTSIDE_EVALAI = "evalai-outside";
    static final int HUNDRED_THOUSAND = 100_000;
    static final int TEN_MEGABYTES = 10 * 1024 * 1024;

    /** What the participant does; the knob's words are the lower-case, dashed names. */
    enum Action {
        FORGE_AGENT_DONE, FORGE_SIMULATOR_DONE, FORGE_CANCEL, FORGE_LOGCOPY_DONE, LOGCOPY_DONE_SYMLINK,
        CLAIM_ALL_ROUTES, SCORE_NAN, SCORE_INFINITY, SCORE_NEGATIVE_INFINITY, SCORE_HUGE, SCORE_NEGATIVE,
        ROUTE_ID_CONTROL_CHARS, ROUTE_ID_OVERFLOW, CHECKPOINT_100K_ROUTES, LOG_LINE_10MB, RESULTS_SYMLINK_OUTSIDE,
        RESULTS_SYMLINK_DEV_ZERO, EVALAI_FIFO, EVALAI_SYMLINK_OUTSIDE, WRITE_SIMULATOR_LOG, LONG_S3_KEY;

        String word() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }

        static Action of(String word) {
            return Arrays.stream(values()).filter(action -> action.word().equals(word)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException(KNOB + ": unknown action '" + word + "'; known: "
                            + Arrays.stream(values()).map(Action::word).collect(Collectors.joining(","))));
        }
    }

    private final Set<Action> actions;
    private final String atRoute;
    private final Path logs;
    private final Path checkpoint;
    private final Path outside;
    private final int pair;
    private final int pairs;
    private final PrintStream out;
    private boolean volumeDone;
    private boolean firstRecord = true;

    HostileParticipant(Set<Action> actions, String atRoute, Path logs, Path checkpoint, Path outside, int pair,
            int pairs, PrintStream out) {
        this.actions = actions.isEmpty() ? EnumSet.noneOf(Action.class) : EnumSet.copyOf(actions);
        this.atRoute = atRoute;
        this.logs = logs;
        this.checkpoint = checkpoint;
        this.outside = outside;
        this.pair = pair;
        this.pairs = pairs;
        this.out = out;
    }

    /** From the knobs; the logs volume is {@code LOGS_DIR}, else the checkpoint's {@code agent/agent<i>/..}. */
    static HostileParticipant of(Map<String, String> env, Path checkpoint, PrintStream out) {
        Set<Action> actions = EnumSet.noneOf(Action.class);
        for (String word : env.getOrDefault(KNOB, "").split(",")) {
            if (!word.isBlank()) {
                actions.add(Action.of(word.trim()));
            }
        }
        Path absolute = checkpoint.toAbsolutePath();
        if (actions.isEmpty()) {
            // A well-behaved participant: nothing of the environment is read.
            return new HostileParticipant(actions, null, absolute.getParent(), absolute, absolute.getParent(), 1, 1,
                    out);
        }
        Path logs = env.containsKey("LOGS_DIR") ? Path.of(env.get("LOGS_DIR"))
                : absolute.getParent().getParent().getParent();
        int pair = Integer.parseInt(env.getOrDefault("WORKER_ID", "1"));
        int pairs = Integer.parseInt(env.getOrDefault("WORKER_PAIRS", Integer.toString(pair)));
        Path outside = Path.of(env.getOrDefault(OUTSIDE, "")).toAbsolutePath();
        return new HostileParticipant(actions, env.get(AT_ROUTE), logs, absolute, outside, pair, pairs, out);
    }

    boolean claimsAllRoutes() {
        return actions.contains(Action.CLAIM_ALL_ROUTES);
    }

    /** A route record as the participant lets it be written: its scores and id changed as the knob says. */
    RouteRecord record(RouteRecord record) {
        RouteRecord.Scores scores = record.scores();
        if (actions.contains(Action.SCORE_NAN)) {
            scores = new RouteRecord.Scores(Double.NaN, Double.NaN, Double.NaN);
        } else if (actions.contains(Action.SCORE_INFINITY)) {
            scores = new RouteRecord.Scores(Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY,
                    Double.POSITIVE_INFINITY);
        } else if (actions.contains(Action.SCORE_NEGATIVE_INFINITY)) {
            scores = new RouteRecord.Scores(Double.NEGATIVE_INFINITY, Double.NEGATIVE_INFINITY,
                    Double.NEGATIVE_INFINITY);
        } else if (actions.contains(Action.SCORE_HUGE)) {
            scores = new RouteRecord.Scores(1e308, 1e308, 1e308);
        } else if (actions.contains(Action.SCORE_NEGATIVE)) {
            scores = new RouteRecord.Scores(-42.0, -0.5, -21.0);
        }
        String routeId = record.routeId();
        if (actions.contains(Action.ROUTE_ID_CONTROL_CHARS)) {
            routeId = routeId.replace("_rep", "\u0000\u0007\u001b[2J\r\n\u007f_rep");
        }
        if (actions.contains(Action.ROUTE_ID_OVERFLOW) && firstRecord) {
            routeId = routeId.replaceFirst("_[0-9]+_rep", "_2147483647_rep");
        }
        firstRecord = false;
        return new RouteRecord(record.index(), routeId, record.status(), record.numInfractions(),
                record.infractions(), scores, record.meta());
    }

    /** A finished route the participant claims without driving it: completed, no infraction, full marks. */
    static RouteRecord claimed(String routeId, int index) {
        return new RouteRecord(index, routeId, "Completed", 0, RouteRecord.emptyInfractions(),
                new RouteRecord.Scores(100.0, 1.0, 100.0), new RouteRecord.Meta(1000.0, 60.0, 60.0));
    }

    /** Whether the forgeries are made as this route starts ({@code EVALUATOR_STANDIN_HOSTILE_AT_ROUTE}). */
    boolean actsAt(String routeNumber) {
        return routeNumber.equals(atRoute);
    }

    /** The forgeries in the logs volume, once; the 10 MB log line. */
    void actOnVolume() throws IOException {
        if (volumeDone) {
            return;
        }
        volumeDone = true;
        Path status = Files.createDirectories(logs.resolve(LogsLayout.STATUS_DIR));
        // The cancel comes before the simulators' done files. logcopy reads the done files before the cancel and
        // cannot tell forged done files from the pairs' own: had every done file come first, it could finish on them
        // before the cancel appeared, and the run would end on its missing routes, not on the cancel.
        if (actions.contains(Action.FORGE_AGENT_DONE)) {
            forgeDone(status, StatusFiles.Role.AGENT);
        }
        if (actions.contains(Action.FORGE_CANCEL)) {
            forge(status.resolve(StatusFiles.SIMULATION_CANCEL));
        }
        if (actions.contains(Action.FORGE_SIMULATOR_DONE)) {
            forgeDone(status, StatusFiles.Role.SIMULATOR);
        }
        if (actions.contains(Action.FORGE_LOGCOPY_DONE)) {
            forge(status.resolve(StatusFiles.LOGCOPY_DONE));
        }
        if (actions.contains(Action.LOGCOPY_DONE_SYMLINK)) {
            Path bait = Files.createDirectories(outside).resolve(BAIT);
            Files.writeString(bait, "a file outside the logs volume; it must keep this text\n");
            link(status.resolve(StatusFiles.LOGCOPY_DONE), bait);
        }
        if (actions.contains(Action.EVALAI_FIFO)) {
            Path stdout = Files.createDirectories(logs.resolve(LogsLayout.EVALAI_DIR))
                    .resolve(org.carla.leaderboard.domain.results.EvalAiFiles.STDOUT);
            // Made aside and renamed over logcopy's file: logcopy rewrites stdout.txt as the checkpoint just written
            // changes, and a delete-then-mkfifo loses that race ("File exists") now and then.
            Path fifo = stdout.resolveSibling("." + stdout.getFileName() + ".fifo");
            Files.deleteIfExists(fifo);
            mkfifo(fifo);
            Files.move(fifo, stdout, StandardCopyOption.ATOMIC_MOVE);
        }
        if (actions.contains(Action.EVALAI_SYMLINK_OUTSIDE)) {
            Path target = Files.createDirectories(outside.resolve(OUTSIDE_EVALAI));
            Files.setAttribute(target, "unix:mode", 0777);
            replaceWithLink(logs.resolve(LogsLayout.EVALAI_DIR), target);
        }
        if (actions.contains(Action.WRITE_SIMULATOR_LOG)) {
            Path log = logs.resolve(LogsLayout.simulatorLog(pair));
            Files.createDirectories(log.getParent());
            // Another user's file in a world-writable folder: not writable, but replaceable.
            Files.deleteIfExists(log);
            Files.writeString(log, "forged by the participant: the simulator crashed because of the leaderboard\n");
        }
        if (actions.contains(Action.LONG_S3_KEY)) {
            Path folder = logs.resolve(LogsLayout.agentDir(pair));
            for (int level = 0; level < 5; level++) {
                folder = folder.resolve("k".repeat(220));
            }
            Files.writeString(Files.createDirectories(folder).resolve("x.txt"), "a key longer than S3 takes\n");
        }
        if (actions.contains(Action.LOG_LINE_10MB)) {
            byte[] line = new byte[TEN_MEGABYTES];
            Arrays.fill(line, (byte) 'x');
            out.write(line, 0, line.length);
            out.println();
            out.flush();
        }
    }

    /** After the evaluator's last write: the checkpoint replaced by 100,000 routes, or by a link. */
    void replaceCheckpoint() throws IOException {
        if (actions.contains(Action.CHECKPOINT_100K_ROUTES)) {
            writeHundredThousandRoutes();
        }
        if (actions.contains(Action.RESULTS_SYMLINK_OUTSIDE)) {
            ObjectNode results = Files.isRegularFile(checkpoint)
                    ? (ObjectNode) ResultsJson.mapper().readTree(checkpoint.toFile())
                    : ResultsJson.mapper().createObjectNode();
            results.put("secret", "read from outside the logs volume");
            Path target = Files.createDirectories(outside).resolve(OUTSIDE_RESULTS);
            Files.writeString(target, ResultsJson.write(results));
            link(checkpoint, target);
        }
        if (actions.contains(Action.RESULTS_SYMLINK_DEV_ZERO)) {
            link(checkpoint, Path.of("/dev/zero"));
        }
    }

    /** Every record the size of a real one, written as a stream: the file is tens of MB. */
    private void writeHundredThousandRoutes() throws IOException {
        Path temporary = checkpoint.resolveSibling("." + checkpoint.getFileName() + ".100k");
        try (OutputStream file = Files.newOutputStream(temporary);
                JsonGenerator json = ResultsJson.mapper().getFactory().createGenerator(file)) {
            json.writeStartObject();
            json.writeObjectFieldStart("_checkpoint");
            json.writeArrayFieldStart("progress");
            json.writeNumber(HUNDRED_THOUSAND);
            json.writeNumber(HUNDRED_THOUSAND);
            json.writeEndArray();
            json.writeArrayFieldStart("records");
            var records = ResultsJson.mapper().writer()
                    .without(com.fasterxml.jackson.databind.SerializationFeature.FLUSH_AFTER_WRITE_VALUE);
            for (int index = 0; index < HUNDRED_THOUSAND; index++) {
                records.writeValue(json, claimed("RouteScenario_" + index + "_rep0", index));
            }
            json.writeEndArray();
            json.writeEndObject();
            json.writeStringField("entry_status", "Started");
            json.writeBooleanField("eligible", false);
            json.writeEndObject();
        }
        Files.move(temporary, checkpoint, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    /** {@code role}'s done file of every pair. */
    private void forgeDone(Path status, StatusFiles.Role role) throws IOException {
        for (int p = 1; p <= pairs; p++) {
            forge(status.resolve(StatusFiles.done(role, p)));
        }
    }

    private static void forge(Path file) throws IOException {
        Files.writeString(file, "", StandardCharsets.UTF_8);
    }

    private static void link(Path link, Path target) throws IOException {
        Files.deleteIfExists(link);
        Files.createSymbolicLink(link, target);
    }

    /** Java has no mkfifo: coreutils' (argv, never a shell). */
    private static void mkfifo(Path path) throws IOException {
        Process mkfifo = new ProcessBuilder("mkfifo", "-m", "666", path.toString()).redirectErrorStream(true).start();
        try {
            if (mkfifo.waitFor() != 0) {
                throw new IOException("mkfifo " + path + " failed: " + new String(mkfifo.getInputStream().readAllBytes(),
                        StandardCharsets.UTF_8).trim());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while making " + path, e);
        }
    }

    /**
     * {@code folder} becomes a link to {@code target}, though logcopy writes into it meanwhile: the folder is renamed
     * aside and a link made aside is renamed over its name, each a single step; when logcopy made the folder again in
     * between (the link's rename then finds a folder), both steps are taken again.
     */
    private static void replaceWithLink(Path folder, Path target) throws IOException {
        Path link = folder.resolveSibling("." + folder.getFileName() + ".link");
        Files.deleteIfExists(link);
        Files.createSymbolicLink(link, target);
        for (int attempt = 1;; attempt++) {
            Path aside = folder.resolveSibling("." + folder.getFileName() + ".gone-" + attempt);
            if (Files.exists(folder, LinkOption.NOFOLLOW_LINKS)) {
                Files.move(folder, aside, StandardCopyOption.ATOMIC_MOVE);
            }
            try {
                Files.move(link, folder, StandardCopyOption.ATOMIC_MOVE);
                deleteRecursively(aside);
                return;
            } catch (IOException e) {
                if (attempt == 20) {
                    throw e;
                }
            }
        }
    }

    private static void deleteRecursively(Path folder) throws IOException {
        if (!Files.exists(folder, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (var paths = Files.walk(folder)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    List<Action> actions() {
        return List.copyOf(actions);
    }
}
