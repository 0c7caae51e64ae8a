package org.carla.leaderboard.podruntime.results;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;

import org.carla.leaderboard.domain.layout.LogsLayout;
import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.results.CheckpointMerge;
import org.carla.leaderboard.domain.results.EvalAiFiles;
import org.carla.leaderboard.domain.results.MergeResult;
import org.carla.leaderboard.domain.results.ResultsJson;

/**
 * One refresh of a submission's results from the text of its N agents' checkpoints
 * ({@code agent/agent<i>/agent_results.json}): the merged checkpoint ({@code agent_results.json}) and EvalAI's three
 * files ({@code evalai/...}), as texts by their path in the logs volume. No file access here: logcopy reads the
 * checkpoints with a size bound and without following links, and writes and uploads these texts itself, from memory.
 * An agent's file caught half-written counts with its last complete content; a missing one counts as no data, and so
 * does one that is not usable at all (not a regular file, too large): the reason is named in the result.
 */
public final class ResultsRefresh {

    /** The largest agent checkpoint read: a real one of hundreds of routes is under 1 MiB. */
    public static final long CHECKPOINT_MAX_BYTES = 8L * 1024 * 1024;
    /** The files a refresh writes, by path in the logs volume. */
    public static final Set<String> FILES = Set.of(LogsLayout.mergedCheckpoint(),
            LogsLayout.evalAiFile(EvalAiFiles.RESULTS), LogsLayout.evalAiFile(EvalAiFiles.STDOUT),
            LogsLayout.evalAiFile(EvalAiFiles.METADATA));

    private final int workerPairs;
    private final OptionalInt expectedRoutes;
    private final String[] lastText;
    private final CheckpointFile[] lastParsed;
    private final CheckpointFile[] lastGood;
    private final String[] lastProblem;
    private Map<String, String> files = Map.of();
    private String resultsDigest = digest(ResultsJson.write(EvalAiFiles.results(Optional.empty())));

    /** One agent's checkpoint as logcopy found it: its text, or why there is none. */
    public record AgentFile(String text, String problem) {

        public static AgentFile of(String text) {
            return new AgentFile(text, null);
        }

        public static AgentFile missing() {
            return new AgentFile(null, "missing");
        }

        /** Not usable whatever it holds (a link, a pipe, too large): no data, and its last content is forgotten. */
        public static AgentFile unusable(String why) {
            return new AgentFile(null, why);
        }
    }

    /** The merge, the files' texts by path, which of them changed since the last refresh, the results' digest. */
    public record Refreshed(MergeResult result, Map<String, String> files, Set<String> changed, String resultsDigest) {
    }

    public ResultsRefresh(int workerPairs, OptionalInt expectedRoutes) {
        this.workerPairs = workerPairs;
        this.expectedRoutes = expectedRoutes;
        this.lastText = new String[workerPairs];
        this.lastParsed = new CheckpointFile[workerPairs];
        this.lastGood = new CheckpointFile[workerPairs];
        this.lastProblem = new String[workerPairs];
    }

    /** Merges the agents' checkpoints, pair 1 first ({@code agents.size()} = the worker pairs). */
    public Refreshed refresh(List<AgentFile> agents) {
        if (agents.size() != workerPairs) {
            throw new IllegalArgumentException(workerPairs + " agents' checkpoints expected, got " + agents.size());
        }
        var inputs = new ArrayList<CheckpointFile>();
        var skipped = new ArrayList<String>();
        for (int i = 0; i < workerPairs; i++) {
            String name = LogsLayout.agentCheckpoint(i + 1);
            AgentFile agent = agents.get(i);
            if (agent.text() == null) {
                lastText[i] = null;
                lastGood[i] = null;
                skipped.add(agent.problem().startsWith(name) ? agent.problem() : name + ": " + agent.problem());
                continue;
            }
            if (!agent.text().equals(lastText[i])) {
                lastText[i] = agent.text();
                try {
                    lastParsed[i] = ResultsJson.parse(agent.text());
                    lastProblem[i] = null;
                    lastGood[i] = lastParsed[i];
                } catch (IllegalArgumentException e) {
                    lastParsed[i] = null;
                    lastProblem[i] = e.getMessage();
                }
            }
            if (lastParsed[i] != null) {
                inputs.add(lastParsed[i]);
            } else if (lastGood[i] != null) {
                // The evaluator rewrites its file in place (truncate, then write): a read can catch it half-written.
                inputs.add(lastGood[i]);
            } else {
                skipped.add(name + ": " + lastProblem[i]);
            }
        }
        MergeResult merge = CheckpointMerge.merge(inputs, expectedRoutes);
        return refreshMerged(new MergeResult(merge.merged(), merge.routesDone(), merge.routesTotal(),
                merge.globalResults(), merge.problems(), skipped, merge.invalidReason()));
    }

    /** The files of a merge made elsewhere: a run with a route ledger merges its DONE entries (domain's LedgerMerge). */
    public Refreshed refreshMerged(MergeResult result) {
        String merged = ResultsJson.write(result.merged());
        var texts = new LinkedHashMap<String, String>();
        texts.put(LogsLayout.mergedCheckpoint(), merged);
        for (Map.Entry<String, String> file : EvalAiFiles.texts(merged).entrySet()) {
            texts.put(LogsLayout.evalAiFile(file.getKey()), file.getValue());
        }
        var changed = new TreeSet<String>();
        texts.forEach((path, text) -> {
            if (!text.equals(files.get(path))) {
                changed.add(path);
            }
        });
        if (changed.contains(LogsLayout.evalAiFile(EvalAiFiles.RESULTS))) {
            resultsDigest = digest(texts.get(LogsLayout.evalAiFile(EvalAiFiles.RESULTS)));
        }
        files = Map.copyOf(texts);
        return new Refreshed(result, texts, changed, resultsDigest);
    }

    /** SHA-256 (hex) of the last {@code results.json}: what a progress report names as its news. */
    public String resultsDigest() {
        return resultsDigest;
    }

    /** SHA-256 (hex) of a text's UTF-8 bytes. */
    public static String digest(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JVM", e);
        }
    }
}
