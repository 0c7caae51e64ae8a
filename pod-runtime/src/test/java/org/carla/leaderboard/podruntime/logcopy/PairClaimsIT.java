package org.carla.leaderboard.podruntime.logcopy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicLong;

import org.carla.leaderboard.domain.layout.LogsLayout;
import org.carla.leaderboard.domain.ledger.AttemptOutcome;
import org.carla.leaderboard.domain.ledger.ClaimAssignment;
import org.carla.leaderboard.domain.ledger.EntryChanges;
import org.carla.leaderboard.domain.ledger.EntryKey;
import org.carla.leaderboard.domain.ledger.LedgerEntry;
import org.carla.leaderboard.domain.ledger.PairPlacement;
import org.carla.leaderboard.domain.ledger.RetryBudget;
import org.carla.leaderboard.domain.ledger.RouteLedgerTable;
import org.carla.leaderboard.domain.ledger.RunItem;
import org.carla.leaderboard.domain.ledger.Schedule;
import org.carla.leaderboard.domain.status.StatusFiles.Role;
import org.carla.leaderboard.domain.status.StatusFiles;
import org.carla.leaderboard.localstack.LocalStack;
import org.carla.leaderboard.localstack.RunningStack;
import org.carla.leaderboard.localstack.ServiceAccount;
import org.carla.leaderboard.localstack.aws.AwsClients;
import org.carla.leaderboard.localstack.testing.ManualClock;
import org.carla.leaderboard.podruntime.ledger.RouteLedger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * logcopy's claims for a pair after a crash, on DynamoDB Local as the pods sign: the crashed claim goes back to the
 * ledger at once, and the pair's next claim waits until both of its containers have restarted (their crash files are
 * even, so the restarted agent reads the claim with its own counts), or until the crash files stayed uneven for
 * {@link PairClaims#UNEVEN_CRASHES}, on an injected clock.
 */
class PairClaimsIT {

    private static final ServiceAccount WORKER = new ServiceAccount("submissions", "submission-worker");
    private static final Instant START = Instant.parse("2026-12-01T09:00:00Z");
    private static final AtomicLong SUBMISSIONS = new AtomicLong(System.currentTimeMillis() % 1_000_000 * 100 + 7);

    private static RunningStack stack;
    private static DynamoDbClient worker;

    @TempDir
    Path logs;
    private final ManualClock clock = new ManualClock(START);
    private final GuardedOpen guard = new GuardedOpen();
    private RouteLedger ledger;
    private PairClaims claims;

    @BeforeAll
    static void startStack() {
        // Kept under target/, like a service's test stack: e2e's PermissionsUsedIT reads the gates' decisions there.
        stack = LocalStack.builder().components("dynamodb")
                .workDir(Path.of("target/local-stack/pair-claims-it-" + System.nanoTime())).start();
        worker = AwsClients.client(DynamoDbClient.builder(), stack.endpoints().get("dynamodb"),
                stack.credentials(WORKER), stack.region());
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

    @BeforeEach
    void oneRunOfTwoRoutesAndOnePair() throws IOException {
        Files.createDirectories(logs.resolve(LogsLayout.STATUS_DIR));
        Files.createDirectories(logs.resolve(LogsLayout.CLAIMS_DIR));
        String partition = RouteLedgerTable.ledgerPartition("leaderboard-20",
                Long.toString(SUBMISSIONS.incrementAndGet()), 1);
        ledger = new RouteLedger(worker, RouteLedgerTable.DEFAULT_NAME, partition,
                new EntryChanges(Duration.ofMinutes(2), RetryBudget.of(1), clock), clock);
        ledger.create(new RunItem(2, Schedule.DYNAMIC, 1, 1, START, OptionalInt.empty()), List.of(
                LedgerEntry.open(new EntryKey("1", 0), "Town12", 900, 600),
                LedgerEntry.open(new EntryKey("2", 0), "Town12", 300, 200)));
        claims = new PairClaims(ledger, new VolumeFiles(logs, guard), logs.resolve(LogsLayout.STATUS_DIR), "pod-a", 0,
                1, PairPlacement.UNKNOWN, RouteLedgerTable.trackPartition("leaderboard-20", "SENSORS"), clock);
        claims.pass();
        assertThat(claim().number()).isEqualTo(1);
        assertThat(claim().entry()).contains(new EntryKey("1", 0));
    }

    @AfterEach
    void closeGuard() {
        guard.close();
    }

    @Test
    void afterTheAgentAloneCrashedTheNextClaimWaitsAMinuteForTheSimulatorsCrashFile() throws IOException {
        startRoute(1);
        crashed(Role.AGENT, 0);
        claims.pass();

        assertThat(entry("1").attempts()).singleElement()
                .satisfies(attempt -> assertThat(attempt.outcome()).isEqualTo(AttemptOutcome.AGENT_CRASH));
        assertThat(claim().number()).as("no claim while only the agent has restarted").isEqualTo(1);

        clock.advance(PairClaims.UNEVEN_CRASHES.minusSeconds(1));
        claims.pass();
        assertThat(claim().number()).isEqualTo(1);

        clock.advance(Duration.ofSeconds(1));
        claims.pass();
        assertThat(claim().number()).as("uneven for a minute: the pair gets its claim with the counts it has")
                .isEqualTo(2);
        assertThat(claim().crashes()).isEqualTo(new ClaimAssignment.Crashes(1, 0));
        assertThat(claim().entry()).contains(new EntryKey("1", 0));
    }

    @Test
    void aPairWhoseTwoContainersBothRestartedGetsItsNextClaimAtOnce() throws IOException {
        startRoute(1);
        crashed(Role.SIMULATOR, 0);
        claims.pass();
        assertThat(claim().number()).isEqualTo(1);

        crashed(Role.AGENT, 0);
        claims.pass();

        assertThat(entry("1").attempts()).singleElement()
                .satisfies(attempt -> assertThat(attempt.outcome()).isEqualTo(AttemptOutcome.SIMULATOR_CRASH));
        assertThat(claim().number()).isEqualTo(2);
        assertThat(claim().crashes()).isEqualTo(new ClaimAssignment.Crashes(1, 1));
    }

    @Test
    void unevenCrashFilesThatChangeStartTheirMinuteAgain() throws IOException {
        startRoute(1);
        crashed(Role.AGENT, 0);
        claims.pass();
        clock.advance(Duration.ofSeconds(45));
        claims.pass();

        // The agent crashed again before its partner restarted: still uneven, with other counts.
        crashed(Role.AGENT, 1);
        claims.pass();
        clock.advance(Duration.ofSeconds(45));
        claims.pass();
        assertThat(claim().number()).as("45 s since the counts last changed").isEqualTo(1);

        clock.advance(Duration.ofSeconds(15));
        claims.pass();
        assertThat(claim().number()).isEqualTo(2);
        assertThat(claim().crashes()).isEqualTo(new ClaimAssignment.Crashes(2, 0));
    }

    /** The agent started the claimed route: its claim's checkpoint exists. */
    private void startRoute(int number) throws IOException {
        ClaimAssignment held = claim();
        Path checkpoint = logs.resolve(LogsLayout.claimCheckpoint(1, number, held.tag()));
        Files.createDirectories(checkpoint.getParent());
        Files.writeString(checkpoint, "{}");
    }

    private void crashed(Role role, int k) throws IOException {
        Files.createFile(logs.resolve(LogsLayout.STATUS_DIR).resolve(StatusFiles.crash(role, 1, k)));
    }

    private ClaimAssignment claim() {
        try {
            return ClaimAssignment.parse(Files.readString(logs.resolve(LogsLayout.claimFile(1)),
                    StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private LedgerEntry entry(String routeId) {
        return ledger.read().entries().stream().filter(entry -> entry.key().routeId().equals(routeId)).findFirst()
                .orElseThrow();
    }
}
