package org.carla.leaderboard.domain.ledger;

import static org.carla.leaderboard.domain.ledger.RouteLedgerTable.*;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;

import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The route ledger table's items ({@link RouteLedgerTable}) as DynamoDB holds them, and back: an entry, the run item and
 * a track's record of a route. Times are epoch milliseconds (N). Every item carries its {@link RouteLedgerTable#VERSION}:
 * a write puts the whole item on the condition that the version is the one read and raises it, so a change computed
 * by {@link EntryChanges} from a read is written only if nobody wrote the item since.
 *
 * <p>Reading refuses an item that is not one (a missing or mistyped attribute, an unknown state or outcome), naming
 * the attribute and the item's key: the ledger is written by pod-runtime only, so such an item is a bug or tampering.
 */
public final class LedgerItems {

    private LedgerItems() {
    }

    /** A value as read, with the item's version (0 for an item that does not exist yet). */
    public record Versioned<T>(T value, long version) {
    }

    /** The key of an item of the partition. */
    public static Map<String, AttributeValue> key(String partition, String sortKey) {
        return Map.of(LEDGER, s(partition), ENTRY, s(sortKey));
    }

    public static Map<String, AttributeValue> entryItem(String partition, LedgerEntry entry, long version) {
        var item = new HashMap<>(key(partition, entry.key().text()));
        item.put(VERSION, n(version));
        item.put(STATE, s(entry.state().name()));
        item.put(TOWN, s(entry.town()));
        item.put(LENGTH_M, n(entry.lengthMetres()));
        item.put(EXPECTED_S, n(entry.expectedSeconds()));
        item.put(TRIES, n(entry.tries()));
        item.put(INFRA_TRIES, n(entry.infraTries()));
        entry.claim().ifPresent(claim -> item.put(CLAIM, m(claimMap(claim))));
        item.put(ATTEMPTS, AttributeValue.fromL(entry.attempts().stream().map(a -> m(attemptMap(a))).toList()));
        entry.record().ifPresent(record -> item.put(RECORD, s(recordText(record))));
        item.put(SENSORS, AttributeValue.fromL(entry.sensors().stream().map(LedgerItems::s).toList()));
        return item;
    }

    public static Versioned<LedgerEntry> entry(Map<String, AttributeValue> item) {
        String where = "ledger item " + text(item, ENTRY, "the item");
        EntryKey key = parsed(where, () -> EntryKey.parse(text(item, ENTRY, where)));
        var state = EntryState.parse(text(item, STATE, where))
                .orElseThrow(() -> new IllegalArgumentException(where + ": unknown " + STATE + " " + item.get(STATE)));
        Optional<Claim> claim = Optional.ofNullable(item.get(CLAIM)).map(v -> claim(map(v, CLAIM, where), where));
        List<Attempt> attempts = list(item, ATTEMPTS, where).stream().map(v -> attempt(map(v, ATTEMPTS, where), where))
                .toList();
        Optional<String> recordText = item.containsKey(RECORD) ? Optional.of(text(item, RECORD, where))
                : Optional.empty();
        List<String> sensors = list(item, SENSORS, where).stream().map(v -> stringOf(v, SENSORS, where)).toList();
        LedgerEntry entry = parsed(where, () -> new LedgerEntry(key, state, text(item, TOWN, where),
                number(item, LENGTH_M, where), number(item, EXPECTED_S, where), claim, whole(item, TRIES, where),
                whole(item, INFRA_TRIES, where), attempts, recordText.map(RouteLedgerTable::record), sensors));
        return new Versioned<>(entry, version(item, where));
    }

    public static Map<String, AttributeValue> runItem(String partition, RunItem run, long version) {
        var item = new HashMap<>(key(partition, RUN_ENTRY));
        item.put(VERSION, n(version));
        item.put(RUN_TOTAL, n(run.total()));
        item.put(RUN_SCHEDULE, s(run.schedule().value()));
        item.put(RUN_PODS, n(run.pods()));
        item.put(RUN_PAIRS, n(run.pairsPerPod()));
        item.put(RUN_CREATED, n(run.created().toEpochMilli()));
        run.carriedFrom().ifPresent(from -> item.put(RUN_CARRIED_FROM, n(from)));
        return item;
    }

    public static Versioned<RunItem> run(Map<String, AttributeValue> item) {
        String where = "ledger run item";
        var schedule = Schedule.parse(text(item, RUN_SCHEDULE, where))
                .orElseThrow(() -> new IllegalArgumentException(where + ": unknown " + RUN_SCHEDULE + " "
                        + item.get(RUN_SCHEDULE)));
        OptionalInt carried = item.containsKey(RUN_CARRIED_FROM) ? OptionalInt.of(whole(item, RUN_CARRIED_FROM, where))
                : OptionalInt.empty();
        RunItem run = parsed(where, () -> new RunItem(whole(item, RUN_TOTAL, where), schedule, whole(item, RUN_PODS,
                where), whole(item, RUN_PAIRS, where), instant(item, RUN_CREATED, where), carried));
        return new Versioned<>(run, version(item, where));
    }

    /** A track's record of a route: the partition is {@link RouteLedgerTable#trackPartition}, the sort key its id. */
    public static Map<String, AttributeValue> durationsItem(String trackPartition, String routeId,
            RouteDurations durations, long version) {
        var item = new HashMap<>(key(trackPartition, routeId));
        item.put(VERSION, n(version));
        item.put(DURATIONS_N, n(durations.n()));
        item.put(DURATIONS_MEAN_S, n(durations.meanSeconds()));
        return item;
    }

    public static Versioned<RouteDurations> durations(Map<String, AttributeValue> item) {
        String where = "route durations of " + text(item, ENTRY, "the item");
        RouteDurations durations = parsed(where, () -> new RouteDurations(wholeLong(item, DURATIONS_N, where),
                number(item, DURATIONS_MEAN_S, where)));
        return new Versioned<>(durations, version(item, where));
    }

    private static Map<String, AttributeValue> claimMap(Claim claim) {
        return Map.of(CLAIM_POD, s(claim.pod()), CLAIM_INDEX, n(claim.index()), CLAIM_PAIR, n(claim.pair()),
                CLAIM_TOKEN, s(claim.token()), CLAIM_SINCE, n(claim.since().toEpochMilli()), CLAIM_LEASE_UNTIL,
                n(claim.leaseUntil().toEpochMilli()));
    }

    private static Claim claim(Map<String, AttributeValue> map, String where) {
        String in = where + " " + CLAIM;
        return parsed(in, () -> new Claim(text(map, CLAIM_POD, in), whole(map, CLAIM_INDEX, in), whole(map, CLAIM_PAIR,
                in), text(map, CLAIM_TOKEN, in), instant(map, CLAIM_SINCE, in), instant(map, CLAIM_LEASE_UNTIL, in)));
    }

    private static Map<String, AttributeValue> attemptMap(Attempt attempt) {
        var map = new HashMap<String, AttributeValue>();
        map.put(ATTEMPT_POD, s(attempt.pod()));
        map.put(ATTEMPT_INDEX, n(attempt.index()));
        map.put(ATTEMPT_PAIR, n(attempt.pair()));
        if (attempt.node() != null) {
            map.put(ATTEMPT_NODE, s(attempt.node()));
        }
        if (attempt.gpu() != null) {
            map.put(ATTEMPT_GPU, s(attempt.gpu()));
        }
        map.put(ATTEMPT_STARTED, n(attempt.started().toEpochMilli()));
        map.put(ATTEMPT_ENDED, n(attempt.ended().toEpochMilli()));
        map.put(ATTEMPT_DURATION_S, n(attempt.durationSeconds()));
        map.put(ATTEMPT_OUTCOME, s(attempt.outcome().name()));
        map.put(ATTEMPT_REASON, s(attempt.reason()));
        if (attempt.simSpeed() != null) {
            map.put(ATTEMPT_SIM_SPEED, n(attempt.simSpeed()));
        }
        return map;
    }

    private static Attempt attempt(Map<String, AttributeValue> map, String where) {
        String in = where + " " + ATTEMPTS;
        var outcome = AttemptOutcome.parse(text(map, ATTEMPT_OUTCOME, in))
                .orElseThrow(() -> new IllegalArgumentException(in + ": unknown " + ATTEMPT_OUTCOME + " "
                        + map.get(ATTEMPT_OUTCOME)));
        Double speed = map.containsKey(ATTEMPT_SIM_SPEED) ? number(map, ATTEMPT_SIM_SPEED, in) : null;
        return parsed(in, () -> new Attempt(text(map, ATTEMPT_POD, in), whole(map, ATTEMPT_INDEX, in), whole(map,
                ATTEMPT_PAIR, in), optionalText(map, ATTEMPT_NODE, in), optionalText(map, ATTEMPT_GPU, in),
                instant(map, ATTEMPT_STARTED, in), instant(map, ATTEMPT_ENDED, in), outcome, text(map, ATTEMPT_REASON,
                        in), speed));
    }

    private static long version(Map<String, AttributeValue> item, String where) {
        long version = wholeLong(item, VERSION, where);
        if (version < 1) {
            throw new IllegalArgumentException(where + ": " + VERSION + " is 1 or more, was " + version);
        }
        return version;
    }

    private static <T> T parsed(String where, Supplier<T> make) {
        try {
            return make.get();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where.startsWith(e.getMessage()) ? e.getMessage()
                    : where + ": " + e.getMessage(), e);
        }
    }

    private static String text(Map<String, AttributeValue> item, String name, String where) {
        return stringOf(present(item, name, where), name, where);
    }

    private static String optionalText(Map<String, AttributeValue> item, String name, String where) {
        return item.containsKey(name) ? text(item, name, where) : null;
    }

    private static String stringOf(AttributeValue value, String name, String where) {
        if (value.s() == null) {
            throw new IllegalArgumentException(where + ": " + name + " is not a string");
        }
        return value.s();
    }

    private static double number(Map<String, AttributeValue> item, String name, String where) {
        String text = numberText(item, name, where);
        try {
            return Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(where + ": " + name + " is not a number: " + text, e);
        }
    }

    private static int whole(Map<String, AttributeValue> item, String name, String where) {
        long value = wholeLong(item, name, where);
        if (value != (int) value) {
            throw new IllegalArgumentException(where + ": " + name + " is out of range: " + value);
        }
        return (int) value;
    }

    private static long wholeLong(Map<String, AttributeValue> item, String name, String where) {
        String text = numberText(item, name, where);
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(where + ": " + name + " is not a whole number: " + text, e);
        }
    }

    private static Instant instant(Map<String, AttributeValue> item, String name, String where) {
        return Instant.ofEpochMilli(wholeLong(item, name, where));
    }

    private static String numberText(Map<String, AttributeValue> item, String name, String where) {
        String text = present(item, name, where).n();
        if (text == null) {
            throw new IllegalArgumentException(where + ": " + name + " is not a number");
        }
        return text;
    }

    private static List<AttributeValue> list(Map<String, AttributeValue> item, String name, String where) {
        AttributeValue value = present(item, name, where);
        if (!value.hasL()) {
            throw new IllegalArgumentException(where + ": " + name + " is not a list");
        }
        return new ArrayList<>(value.l());
    }

    private static Map<String, AttributeValue> map(AttributeValue value, String name, String where) {
        if (!value.hasM()) {
            throw new IllegalArgumentException(where + ": " + name + " holds something other than a map");
        }
        return value.m();
    }

    private static AttributeValue present(Map<String, AttributeValue> item, String name, String where) {
        AttributeValue value = item.get(name);
        if (value == null) {
            throw new IllegalArgumentException(where + ": no " + name);
        }
        return value;
    }

    private static AttributeValue s(String value) {
        return AttributeValue.fromS(value);
    }

    private static AttributeValue n(long value) {
        return AttributeValue.fromN(Long.toString(value));
    }

    private static AttributeValue n(double value) {
        if (!Double.isFinite(value)) {
            throw new IllegalArgumentException("a ledger number is finite, was " + value);
        }
        return AttributeValue.fromN(BigDecimal.valueOf(value).stripTrailingZeros().toPlainString());
    }

    private static AttributeValue m(Map<String, AttributeValue> map) {
        return AttributeValue.fromM(map);
    }
}
