package org.carla.leaderboard.domain.ledger;

import org.carla.leaderboard.domain.results.ResultsJson;
import org.carla.leaderboard.domain.results.RouteRecord;

import com.fasterxml.jackson.core.JacksonException;

/**
 * The route ledger table (template resource {@code RouteLedgerTable}, its name in the pod's {@code LEDGER_TABLE}): the
 * one description of its keys and attributes, for every component that reads or writes it. Partition key
 * {@link #LEDGER} (S), sort key {@link #ENTRY} (S). Times are epoch milliseconds (N), so a condition compares them.
 *
 * <p>It holds two kinds of partitions: one ledger per run ({@link #ledgerPartition}: an item per {@link EntryKey} and
 * the {@link #RUN_ENTRY} item), and one record of route durations per track ({@link #trackPartition}: an item per route
 * id). logcopy, in every pod of the run, is the only writer of a ledger ({@link EntryChanges}); init creates its
 * entries; the relay and ops-console read it.
 */
public final class RouteLedgerTable {

    /** Its name in deploy/aws ({@code TableName}); the pods are given it as {@code LEDGER_TABLE}. */
    public static final String DEFAULT_NAME = "route-ledger";

    // The key.
    public static final String LEDGER = "ledger";
    public static final String ENTRY = "entry";

    /**
     * Every item's version (N, from 1): each write puts the whole item on the condition that the version is still the
     * one read, and raises it ({@link LedgerItems}).
     */
    public static final String VERSION = "version";

    /** The sort key of a ledger's run item. */
    public static final String RUN_ENTRY = "#run";

    // An entry (LedgerEntry).
    /** {@link EntryState} name. */
    public static final String STATE = "state";
    public static final String EXPECTED_S = "expected_s";
    public static final String LENGTH_M = "length_m";
    public static final String TOWN = "town";
    /** A map, present while CLAIMED ({@link Claim}). */
    public static final String CLAIM = "claim";
    public static final String CLAIM_POD = "pod";
    /** The pod's completion index in the Job. */
    public static final String CLAIM_INDEX = "index";
    public static final String CLAIM_PAIR = "pair";
    public static final String CLAIM_TOKEN = "token";
    public static final String CLAIM_SINCE = "since";
    public static final String CLAIM_LEASE_UNTIL = "lease_until";
    public static final String TRIES = "tries";
    public static final String INFRA_TRIES = "infra_tries";
    /** A list of maps, oldest first ({@link Attempt}), appended with {@code list_append}. */
    public static final String ATTEMPTS = "attempts";
    public static final String ATTEMPT_POD = "pod";
    public static final String ATTEMPT_INDEX = "index";
    public static final String ATTEMPT_PAIR = "pair";
    public static final String ATTEMPT_NODE = "node";
    public static final String ATTEMPT_GPU = "gpu";
    public static final String ATTEMPT_STARTED = "started";
    public static final String ATTEMPT_ENDED = "ended";
    public static final String ATTEMPT_DURATION_S = "duration_s";
    /** {@link AttemptOutcome} name. */
    public static final String ATTEMPT_OUTCOME = "outcome";
    public static final String ATTEMPT_REASON = "reason";
    public static final String ATTEMPT_SIM_SPEED = "sim_speed";
    /** The route's record (S, {@link #recordText}), set once, when the entry is DONE. */
    public static final String RECORD = "record";
    /** The filed checkpoint's sensors (L of S). */
    public static final String SENSORS = "sensors";

    // The run item (RunItem).
    public static final String RUN_TOTAL = "total";
    /** {@link Schedule#value()}. */
    public static final String RUN_SCHEDULE = "schedule";
    public static final String RUN_PODS = "pods";
    /** Pairs per pod. */
    public static final String RUN_PAIRS = "pairs";
    public static final String RUN_CREATED = "created";
    /** On a resume: the run whose DONE entries this one carried over. */
    public static final String RUN_CARRIED_FROM = "carried_from";

    // A track's route durations (RouteDurations); the sort key is the route id.
    public static final String DURATIONS_N = "n";
    public static final String DURATIONS_MEAN_S = "mean_s";

    private static final String SEPARATOR = "#";
    private static final String TRACK_PREFIX = "track";

    private RouteLedgerTable() {
    }

    /** The ledger of a run: {@code <leaderboard>#<submission_id>#r<run>}. */
    public static String ledgerPartition(String leaderboard, String submissionId, int run) {
        part(leaderboard, "leaderboard");
        if (TRACK_PREFIX.equals(leaderboard)) {
            throw new IllegalArgumentException("a leaderboard named '" + TRACK_PREFIX + "' would share the track records' "
                    + "partitions");
        }
        part(submissionId, "submission id");
        if (run < 1) {
            throw new IllegalArgumentException("runs count from 1, was " + run);
        }
        return leaderboard + SEPARATOR + submissionId + SEPARATOR + "r" + run;
    }

    /** A track's route durations: {@code track#<leaderboard>#<track>}. */
    public static String trackPartition(String leaderboard, String track) {
        return TRACK_PREFIX + SEPARATOR + part(leaderboard, "leaderboard") + SEPARATOR + part(track, "track");
    }

    /** The text of the {@link #RECORD} attribute. */
    public static String recordText(RouteRecord record) {
        return ResultsJson.write(record);
    }

    /** Reads the {@link #RECORD} attribute. @throws IllegalArgumentException when it is not a route record */
    public static RouteRecord record(String text) {
        try {
            return ResultsJson.mapper().readValue(text, RouteRecord.class);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("not a route record: " + e.getOriginalMessage(), e);
        }
    }

    private static String part(String value, String what) {
        if (value == null || value.isEmpty() || value.contains(SEPARATOR)) {
            throw new IllegalArgumentException("a " + what + " in a ledger key is not empty and holds no '" + SEPARATOR
                    + "'");
        }
        return value;
    }
}
