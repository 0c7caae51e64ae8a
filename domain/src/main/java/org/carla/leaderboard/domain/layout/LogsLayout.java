package org.carla.leaderboard.domain.layout;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.carla.leaderboard.domain.results.EvalAiFiles;
import org.carla.leaderboard.domain.status.StatusFiles;

/**
 * The shared logs volume of a submission's pod, as paths relative to it; logcopy mirrors the volume as is, so these are
 * also the keys under the submission's S3 prefix ({@link SubmissionLayout}). Pairs are numbered from 1.
 */
public final class LogsLayout {

    public static final String AGENT_DIR = "agent";
    public static final String SIMULATOR_DIR = "simulator";
    public static final String LOGCOPY_DIR = "logcopy";
    public static final String STATUS_DIR = StatusFiles.DIRECTORY;
    public static final String EVALAI_DIR = EvalAiFiles.DIRECTORY;
    /** The agent's checkpoint in its folder, and the merged one at the volume's root. */
    public static final String CHECKPOINT = "agent_results.json";
    public static final String AGENT_LOG = "leaderboard.log";
    public static final String LOGCOPY_LOG = LOGCOPY_DIR + "/logcopy.log";
    /** The route ledger's claims, one file per pair: written by logcopy only (init makes the folder 0755, its own). */
    public static final String CLAIMS_DIR = "claims";

    private static final Pattern WORKER_CONTAINER = Pattern.compile("(agent|simulator)-([1-9][0-9]{0,3})");

    private LogsLayout() {
    }

    /** {@code agent/agent<i>}: the folder of pair i's agent. */
    public static String agentDir(int pair) {
        return AGENT_DIR + "/agent" + requirePair(pair);
    }

    public static String agentCheckpoint(int pair) {
        return agentDir(pair) + "/" + CHECKPOINT;
    }

    /** {@code claims/agent-<i>.json}: the claim logcopy gives pair i ({@code ledger.ClaimAssignment}). */
    public static String claimFile(int pair) {
        return CLAIMS_DIR + "/agent-" + requirePair(pair) + ".json";
    }

    /**
     * {@code agent/agent<i>/claim-<n>-<tag>.json}: the evaluator's checkpoint of pair i's claim n; the tag (8 hex digits
     * of the claim's token) keeps a replacement pod's claims apart from its predecessor's, whose files a resume brings.
     */
    public static String claimCheckpoint(int pair, int n, String tag) {
        if (n < 1 || tag == null || !tag.matches("[0-9a-f]{8}")) {
            throw new IllegalArgumentException("a claim's checkpoint is named by its number from 1 and 8 hex digits, was "
                    + n + " and " + tag);
        }
        return agentDir(pair) + "/claim-" + n + "-" + tag + ".json";
    }

    /** The evaluator's output, as the agent role writes it. */
    public static String agentLog(int pair) {
        return agentDir(pair) + "/" + AGENT_LOG;
    }

    /** CARLA's output, as the simulator role writes it: {@code simulator/simulator<i>.log}. */
    public static String simulatorLog(int pair) {
        return SIMULATOR_DIR + "/simulator" + requirePair(pair) + ".log";
    }

    public static String mergedCheckpoint() {
        return CHECKPOINT;
    }

    public static String evalAiFile(String name) {
        return EVALAI_DIR + "/" + name;
    }

    public static String statusFile(String name) {
        return STATUS_DIR + "/" + name;
    }

    /**
     * The one log a container of the Job writes, by container name ({@code agent-2}, {@code simulator-1},
     * {@code logcopy}); empty for a container that writes none here. Exact paths, never a search: a file a participant
     * placed in a folder must not stand in for a container's log.
     */
    public static Optional<String> containerLog(String container) {
        if ("logcopy".equals(container)) {
            return Optional.of(LOGCOPY_LOG);
        }
        Matcher worker = WORKER_CONTAINER.matcher(container);
        if (!worker.matches()) {
            return Optional.empty();
        }
        int pair = Integer.parseInt(worker.group(2));
        return Optional.of(StatusFiles.Role.AGENT.prefix().equals(worker.group(1)) ? agentLog(pair) : simulatorLog(pair));
    }

    private static int requirePair(int pair) {
        if (pair < 1) {
            throw new IllegalArgumentException("worker pairs are numbered from 1, was " + pair);
        }
        return pair;
    }
}
