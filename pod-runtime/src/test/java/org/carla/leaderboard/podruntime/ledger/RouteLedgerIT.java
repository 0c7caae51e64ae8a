package org.carla.leaderboard.podruntime.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import org.carla.leaderboard.domain.ledger.AttemptOutcome;
import org.carla.leaderboard.domain.ledger.ClaimFiling;
import org.carla.leaderboard.domain.ledger.Claimer;
import org.carla.leaderboard.domain.ledger.EntryChanges;
import org.carla.leaderboard.domain.ledger.EntryChanges.Change;
import org.carla.leaderboard.domain.ledger.EntryKey;
import org.carla.leaderboard.domain.ledger.EntryState;
import org.carla.leaderboard.domain.ledger.LedgerEntry;
import org.carla.leaderboard.domain.ledger.PairPlacement;
import org.carla.leaderboard.domain.ledger.RetryBudget;
import org.carla.leaderboard.domain.ledger.RouteDurations;
import org.carla.leaderboard.domain.ledger.RouteLedgerTable;
import org.carla.leaderboard.domain.ledger.RunItem;
import org.carla.leaderboard.domain.ledger.Schedule;
import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.results.GlobalStatistics;
import org.carla.leaderboard.domain.results.RouteRecord;
import org.carla.leaderboard.localstack.LocalStack;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.ServiceAccount;
import org.carla.leaderboard.localstack.aws.AwsClients;
import org.carla.leaderboard.localstack.testing.ManualClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The route ledger on DynamoDB Local, through the stack's IAM gate as the submissions' pods sign (the
 * {@code submission-worker} ServiceAccount's role): pods racing for routes, leases, filing, releasing, the track's
 * durations. Without deploy/aws's {@code RouteLedger} grant every test here is refused.
 */
class RouteLedgerIT {

    private static final ServiceAccount WORKER = new ServiceAccount("submissions", "submission-worker");
    private static final String TABLE = RouteLedgerTable.DEFAULT_NAME;
    private static final Duration LEASE = Duration.ofMinutes(2);
    private static final Instant START = Instant.parse("2026-11-28T09:00:00Z");
    private static final AtomicLong SUBMISSIONS = new AtomicLong(System.currentTimeMillis() % 1_000_000 * 100);

    private static RunningStack stack;
    private static DynamoDbClient worker;

    private final ManualClock clock = new ManualClock(START);
    private final List<ExecutorService> pools = new ArrayList<>();

    @BeforeAll
    static void startStack() {
        // Kept under target/, like a service's test stack: e2e's PermissionsUsedIT reads the gates' decisions there.
        stack = LocalStack.builder().components("dynamodb")
                .workDir(Path.of("target/local-stack/route-ledger-it-" + System.nanoTime())).start();
        worker = client(WORKER);
    }

    @AfterAll
    static void stopStack() {
        if (worker != null) {
            worker.close();
        }
        if (stack != null) {
            stack.close();
        }
    }

    @AfterEach
    void stopPools() {
        pools.forEach(ExecutorService::shutdownNow);
    }

    private static DynamoDbClient client(ServiceAccount account) {
        return AwsClients.client(DynamoDbClient.builder(), stack.endpoints().get("dynamodb"), stack.credentials(account),
                stack.region());
    }

    private RouteLedger ledger(String partition, RetryBudget budget) {
        return new RouteLedger(worker, TABLE, partition, new EntryChanges(LEASE, budget, clock), clock);
    }

    private static String newPartition() {
        return RouteLedgerTable.ledgerPartition("leaderboard-20", Long.toString(SUBMISSIONS.incrementAndGet()), 1);
    }

    /** Routes 1 .. n, one repetition; route i is expected to take i minutes. */
    private static List<LedgerEntry> entries(int routes) {
        var entries = new ArrayList<LedgerEntry>();
        for (int i = 1; i <= routes; i++) {
            entries.add(LedgerEntry.open(new EntryKey(Integer.toString(i), 0), "Town12", i * 90.0, i * 60.0));
        }
        return entries;
    }

    private static RunItem run(Schedule schedule, int total, int pods, int pairs) {
        return new RunItem(total, schedule, pods, pairs, START, OptionalInt.empty());
    }

    /** The evaluator's checkpoint of one claim: the route driven once, as {@code _rep0}. */
    private static ClaimFiling.Accepted filing(EntryKey key) {
        var record = new RouteRecord(0, key.claimRecordRouteId(), "Completed", 0, RouteRecord.emptyInfractions(),
                new RouteRecord.Scores(100, 0.9, 90), new RouteRecord.Meta(1200, 200, 400));
        var checkpoint = CheckpointFile.started(List.of("carla_camera"), List.of(1, 1), List.of(record))
                .withGlobalResults(GlobalStatistics.compute(List.of(record), 1));
        return (ClaimFiling.Accepted) ClaimFiling.check(checkpoint, key);
    }

    @Test
    void everyPodMakesTheLedgerAndTheFirstOnesItemsStay() {
        String partition = newPartition();
        RunItem first = run(Schedule.DYNAMIC, 5, 2, 1);

        RunItem stored = ledger(partition, RetryBudget.of(1)).create(first, entries(5));
        RunItem again = ledger(partition, RetryBudget.of(1)).create(run(Schedule.STATIC, 5, 2, 1), entries(5));

        assertThat(stored).isEqualTo(first);
        assertThat(again).isEqualTo(first);
        assertThat(ledger(partition, RetryBudget.of(1)).read().entries()).hasSize(5)
                .allSatisfy(entry -> assertThat(entry.state()).isEqualTo(EntryState.OPEN));
    }

    @Test
    void pairsOfTwoPodsRacingForRoutesDriveEachRouteExactlyOnceLongestFirst() throws Exception {
        String partition = newPartition();
        int routes = 24;
        ledger(partition, RetryBudget.of(1)).create(run(Schedule.DYNAMIC, routes, 2, 4), entries(routes));
        var firstClaims = new ConcurrentHashMap<Claimer, String>();
        var tasks = new ArrayList<Callable<Integer>>();
        for (int pod = 0; pod < 2; pod++) {
            for (int pair = 1; pair <= 4; pair++) {
                Claimer claimer = new Claimer("run-" + partition.hashCode() + "-" + pod, pod, pair);
                RouteLedger own = ledger(partition, RetryBudget.of(1));
                tasks.add(() -> {
                    int driven = 0;
                    while (own.claimNext(claimer) instanceof RouteLedger.Next.Claimed claimed) {
                        firstClaims.putIfAbsent(claimer, claimed.entry().key().routeId());
                        Change filed = own.file(claimed.entry().key(), claimed.claim(), PairPlacement.UNKNOWN,
                                filing(claimed.entry().key()));
                        assertThat(filed).isInstanceOf(Change.Written.class);
                        driven++;
                    }
                    return driven;
                });
            }
        }
        ExecutorService pool = Executors.newFixedThreadPool(tasks.size());
        pools.add(pool);
        int driven = 0;
        for (Future<Integer> result : pool.invokeAll(tasks)) {
            driven += result.get();
        }

        List<LedgerEntry> ledger = ledger(partition, RetryBudget.of(1)).read().entries();
        assertThat(driven).isEqualTo(routes);
        assertThat(ledger).allSatisfy(entry -> {
            assertThat(entry.state()).isEqualTo(EntryState.DONE);
            assertThat(entry.attempts()).as(entry.key().text()).hasSize(1)
                    .allSatisfy(a -> assertThat(a.outcome()).isEqualTo(AttemptOutcome.DONE));
        });
        assertThat(firstClaims.values()).as("every pair's first route").doesNotHaveDuplicates();
    }

    @Test
    void aClaimWhoseLeaseRanOutIsTakenOverAndItsHolderCanNoLongerFileIt() {
        String partition = newPartition();
        RouteLedger ledger = ledger(partition, RetryBudget.of(1));
        ledger.create(run(Schedule.DYNAMIC, 1, 2, 1), entries(1));
        Claimer lost = new Claimer("run-lost", 0, 1);
        Claimer other = new Claimer("run-other", 1, 1);
        var first = (RouteLedger.Next.Claimed) ledger.claimNext(lost);

        clock.advance(LEASE.minusSeconds(1));
        assertThat(ledger.claimNext(other)).isEqualTo(new RouteLedger.Next.None(Optional.empty()));
        clock.advance(Duration.ofSeconds(2));
        var taken = (RouteLedger.Next.Claimed) ledger.claimNext(other);

        EntryKey key = first.entry().key();
        assertThat(ledger.renew(key, first.claim())).isInstanceOf(Change.Refused.class);
        assertThat(ledger.file(key, first.claim(), PairPlacement.UNKNOWN, filing(key)))
                .isInstanceOf(Change.Refused.class);
        assertThat(taken.entry().infraTries()).isEqualTo(1);
        assertThat(taken.entry().attempts()).singleElement()
                .satisfies(a -> assertThat(a.outcome()).isEqualTo(AttemptOutcome.INFRASTRUCTURE));
        assertThat(ledger.file(key, taken.claim(), new PairPlacement("ip-10-0-2-9", "GPU-77c1"), filing(key)))
                .isInstanceOf(Change.Written.class);
    }

    @Test
    void aReleasedRouteIsDrivenAgainUntilItsRetryBudgetIsSpentThenNoPairIsGivenAnything() {
        String partition = newPartition();
        RouteLedger ledger = ledger(partition, RetryBudget.of(1));
        ledger.create(run(Schedule.DYNAMIC, 2, 1, 2), entries(2));
        Claimer pair = new Claimer("run-a", 0, 1);

        var first = (RouteLedger.Next.Claimed) ledger.claimNext(pair);
        assertThat(first.entry().key().routeId()).as("the longest route first").isEqualTo("2");
        ledger.release(first.entry().key(), first.claim(), PairPlacement.UNKNOWN, AttemptOutcome.AGENT_CRASH,
                "the evaluator exited with code 1");
        var second = (RouteLedger.Next.Claimed) ledger.claimNext(pair);
        assertThat(second.entry().key()).isEqualTo(first.entry().key());
        ledger.release(second.entry().key(), second.claim(), PairPlacement.UNKNOWN, AttemptOutcome.SIMULATOR_CRASH,
                "CARLA exited");

        var none = (RouteLedger.Next.None) ledger.claimNext(new Claimer("run-a", 0, 2));
        assertThat(none.cannotFinish()).hasValueSatisfying(why -> assertThat(why).contains("route 2")
                .contains("AGENT_CRASH").contains("SIMULATOR_CRASH"));
    }

    @Test
    void aTracksRouteDurationsAreARunningMeanThatConcurrentPodsDoNotLose() throws Exception {
        String track = RouteLedgerTable.trackPartition("leaderboard-20", "SENSORS-" + SUBMISSIONS.incrementAndGet());
        RouteLedger ledger = ledger(newPartition(), RetryBudget.of(1));
        ExecutorService pool = Executors.newFixedThreadPool(4);
        pools.add(pool);
        var tasks = new ArrayList<Callable<RouteDurations>>();
        for (int i = 1; i <= 8; i++) {
            double seconds = i * 100;
            tasks.add(() -> ledger.recordDuration(track, "27", seconds));
        }
        for (Future<RouteDurations> done : pool.invokeAll(tasks)) {
            done.get();
        }

        assertThat(ledger.durations(track)).containsOnlyKeys("27");
        assertThat(ledger.durations(track).get("27").n()).isEqualTo(8);
        assertThat(ledger.durations(track).get("27").meanSeconds()).isCloseTo(450, within(1e-6));
    }
}
