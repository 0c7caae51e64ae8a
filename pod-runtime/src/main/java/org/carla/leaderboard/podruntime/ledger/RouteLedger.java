package org.carla.leaderboard.podruntime.ledger;

import static org.carla.leaderboard.domain.ledger.RouteLedgerTable.ENTRY;
import static org.carla.leaderboard.domain.ledger.RouteLedgerTable.LEDGER;
import static org.carla.leaderboard.domain.ledger.RouteLedgerTable.RUN_ENTRY;
import static org.carla.leaderboard.domain.ledger.RouteLedgerTable.VERSION;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import org.carla.leaderboard.domain.ledger.AttemptOutcome;
import org.carla.leaderboard.domain.ledger.Claim;
import org.carla.leaderboard.domain.ledger.ClaimFiling;
import org.carla.leaderboard.domain.ledger.ClaimPolicy;
import org.carla.leaderboard.domain.ledger.Claimer;
import org.carla.leaderboard.domain.ledger.EntryChanges;
import org.carla.leaderboard.domain.ledger.EntryChanges.Change;
import org.carla.leaderboard.domain.ledger.EntryKey;
import org.carla.leaderboard.domain.ledger.LedgerEntry;
import org.carla.leaderboard.domain.ledger.LedgerItems;
import org.carla.leaderboard.domain.ledger.LedgerItems.Versioned;
import org.carla.leaderboard.domain.ledger.PairPlacement;
import org.carla.leaderboard.domain.ledger.RouteDurations;
import org.carla.leaderboard.domain.ledger.RunItem;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;

/**
 * One run's route ledger in the DynamoDB table (domain's {@code RouteLedgerTable}), as the pods of the run share it.
 * Every write is {@link EntryChanges}' change of the item as read: a consistent {@code GetItem} (or {@code Query}),
 * the change, then a {@code PutItem} of the whole item on the condition that its version is still the one read. A write
 * that loses a race reads again and applies the change to what the winner wrote, so the outcome is the one
 * {@link EntryChanges} gives for the writes in the order the table took them — the order every pod sees.
 *
 * <p>The IAM it needs (deploy/aws, {@code RouteLedger}): {@code dynamodb:GetItem}, {@code PutItem} and {@code Query} on
 * the table.
 */
public final class RouteLedger {

    /** Reads and conditional puts of one write before it gives up: a race lost this often is not a race. */
    static final int WRITE_TRIES = 16;

    private final DynamoDbClient db;
    private final String table;
    private final String partition;
    private final EntryChanges changes;
    private final Clock clock;
    /** Per instance, made at run time: a native image must not hold a seeded generator made at build time. */
    private final SecureRandom tokens = new SecureRandom();

    public RouteLedger(DynamoDbClient db, String table, String partition, EntryChanges changes, Clock clock) {
        this.db = db;
        this.table = table;
        this.partition = partition;
        this.changes = changes;
        this.clock = clock;
    }

    /** The ledger as read at one moment: its run item (empty until the ledger is complete) and its entries. */
    public record Snapshot(Optional<RunItem> run, List<LedgerEntry> entries) {
    }

    /** What a pair that asked for its next route gets. */
    public sealed interface Next {

        /** The entry is the pair's, under {@code claim} (its token is the pair's to renew, file and release). */
        record Claimed(LedgerEntry entry, Claim claim) implements Next {
        }

        /** Ask again at {@code at} (a predecessor's claim may be taken over then). */
        record Wait(Instant at) implements Next {
        }

        /** Nothing is left for the pair; {@code cannotFinish} when an entry gave up. */
        record None(Optional<String> cannotFinish) implements Next {
        }
    }

    /**
     * Makes the ledger: every entry, then the run item, each put only where there is none, so every pod of the run
     * (and a replacement, and init retried) may do it and the first one's items stay. A ledger with its run item is
     * complete.
     *
     * @return the run item as stored: the first writer's
     */
    public RunItem create(RunItem run, List<LedgerEntry> entries) {
        for (LedgerEntry entry : entries) {
            putIfAbsent(LedgerItems.entryItem(partition, entry, 1));
        }
        putIfAbsent(LedgerItems.runItem(partition, run, 1));
        return read().run().orElseThrow(() -> new IllegalStateException("the run item of " + partition
                + " is not there after it was written"));
    }

    /** Every item of the run's partition, read consistently. */
    public Snapshot read() {
        Optional<RunItem> run = Optional.empty();
        var entries = new ArrayList<LedgerEntry>();
        var request = QueryRequest.builder().tableName(table).consistentRead(true)
                .keyConditionExpression("#l = :l").expressionAttributeNames(Map.of("#l", LEDGER))
                .expressionAttributeValues(Map.of(":l", AttributeValue.fromS(partition))).build();
        for (Map<String, AttributeValue> item : db.queryPaginator(request).items()) {
            if (RUN_ENTRY.equals(item.get(ENTRY).s())) {
                run = Optional.of(LedgerItems.run(item).value());
            } else {
                entries.add(LedgerItems.entry(item).value());
            }
        }
        return new Snapshot(run, entries);
    }

    /**
     * The pair's next route by the run's schedule ({@link ClaimPolicy}): the first candidate a conditional claim gets;
     * a candidate lost to another pair's claim passes to the next, and when all are lost the ledger is read again.
     */
    public Next claimNext(Claimer pair) {
        for (int round = 0; round < WRITE_TRIES; round++) {
            Snapshot ledger = read();
            RunItem run = ledger.run().orElseThrow(() -> new IllegalStateException("the ledger " + partition
                    + " has no run item: init has not made it"));
            ClaimPolicy.Turn turn = new ClaimPolicy(run, clock).next(ledger.entries(), pair);
            if (turn instanceof ClaimPolicy.Turn.Wait wait) {
                return new Next.Wait(wait.at());
            }
            if (turn instanceof ClaimPolicy.Turn.None none) {
                return new Next.None(none.cannotFinish());
            }
            for (LedgerEntry candidate : ((ClaimPolicy.Turn.Try) turn).candidates()) {
                Optional<Change> claimed = write(candidate.key(), entry -> changes.claim(entry, pair, token()), 1);
                if (claimed.orElse(null) instanceof Change.Written written) {
                    LedgerEntry entry = written.entry();
                    if (entry.claim().isPresent() && entry.claim().get().claimer().equals(pair)) {
                        return new Next.Claimed(entry, entry.claim().get());
                    }
                    // The lapsed claim taken over spent the entry's infrastructure bound: it gave up, look again.
                    break;
                }
            }
        }
        throw new IllegalStateException("lost the race for every route of " + partition + " " + WRITE_TRIES
                + " times");
    }

    /** Extends the lease of the pair's claim. */
    public Change renew(EntryKey key, Claim mine) {
        return change(key, entry -> changes.renew(entry, mine));
    }

    /** Files the claim's record: the entry is DONE (or the attempt is recorded as a duplicate). */
    public Change file(EntryKey key, Claim mine, PairPlacement placement, ClaimFiling.Accepted filed) {
        return change(key, entry -> changes.file(entry, mine, placement, filed));
    }

    /** Gives the claim back after a failed attempt: OPEN again, or GAVE_UP with the retry budget spent. */
    public Change release(EntryKey key, Claim mine, PairPlacement placement, AttemptOutcome outcome, String reason) {
        return change(key, entry -> changes.release(entry, mine, placement, outcome, reason));
    }

    /** A track's recorded durations of its routes, by route id ({@code RouteLedgerTable.trackPartition}). */
    public Map<String, RouteDurations> durations(String trackPartition) {
        var request = QueryRequest.builder().tableName(table).consistentRead(false)
                .keyConditionExpression("#l = :l").expressionAttributeNames(Map.of("#l", LEDGER))
                .expressionAttributeValues(Map.of(":l", AttributeValue.fromS(trackPartition))).build();
        var durations = new HashMap<String, RouteDurations>();
        for (Map<String, AttributeValue> item : db.queryPaginator(request).items()) {
            durations.put(item.get(ENTRY).s(), LedgerItems.durations(item).value());
        }
        return durations;
    }

    /** Adds a DONE attempt's wall time to the track's record of the route. */
    public RouteDurations recordDuration(String trackPartition, String routeId, double seconds) {
        for (int attempt = 0; attempt < WRITE_TRIES; attempt++) {
            var item = db.getItem(r -> r.tableName(table).consistentRead(true)
                    .key(LedgerItems.key(trackPartition, routeId)));
            Versioned<RouteDurations> read = item.hasItem() && !item.item().isEmpty()
                    ? LedgerItems.durations(item.item()) : new Versioned<>(RouteDurations.NONE, 0L);
            RouteDurations updated = read.value().plus(seconds);
            if (put(LedgerItems.durationsItem(trackPartition, routeId, updated, read.version() + 1), read.version())) {
                return updated;
            }
        }
        throw new IllegalStateException("lost the race for route " + routeId + " of " + trackPartition + " "
                + WRITE_TRIES + " times");
    }

    private Change change(EntryKey key, Function<LedgerEntry, Change> change) {
        return write(key, change, WRITE_TRIES).orElseThrow(() -> new IllegalStateException("lost the race for entry "
                + key + " of " + partition + " " + WRITE_TRIES + " times"));
    }

    /** The change applied to the entry as read and written on its version; empty when every try lost a race. */
    private Optional<Change> write(EntryKey key, Function<LedgerEntry, Change> change, int tries) {
        for (int attempt = 0; attempt < tries; attempt++) {
            var item = db.getItem(r -> r.tableName(table).consistentRead(true)
                    .key(LedgerItems.key(partition, key.text())));
            if (!item.hasItem() || item.item().isEmpty()) {
                throw new IllegalStateException("the ledger " + partition + " has no entry " + key);
            }
            Versioned<LedgerEntry> read = LedgerItems.entry(item.item());
            Change result = change.apply(read.value());
            if (result instanceof Change.Refused
                    || put(LedgerItems.entryItem(partition, ((Change.Written) result).entry(), read.version() + 1),
                            read.version())) {
                return Optional.of(result);
            }
        }
        return Optional.empty();
    }

    /** Puts the item if the stored one is at {@code version} (0: if there is none); false when it is not. */
    private boolean put(Map<String, AttributeValue> item, long version) {
        try {
            if (version == 0) {
                db.putItem(r -> r.tableName(table).item(item).conditionExpression("attribute_not_exists(#l)")
                        .expressionAttributeNames(Map.of("#l", LEDGER)));
            } else {
                db.putItem(r -> r.tableName(table).item(item).conditionExpression("#v = :v")
                        .expressionAttributeNames(Map.of("#v", VERSION))
                        .expressionAttributeValues(Map.of(":v", AttributeValue.fromN(Long.toString(version)))));
            }
            return true;
        } catch (ConditionalCheckFailedException e) {
            return false;
        }
    }

    private void putIfAbsent(Map<String, AttributeValue> item) {
        put(item, 0);
    }

    private String token() {
        byte[] bytes = new byte[16];
        tokens.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }
}
