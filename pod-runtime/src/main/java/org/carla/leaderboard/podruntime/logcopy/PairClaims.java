package org.carla.leaderboard.podruntime.logcopy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.carla.leaderboard.domain.layout.LogsLayout;
import org.carla.leaderboard.domain.ledger.AttemptOutcome;
import org.carla.leaderboard.domain.ledger.Claim;
import org.carla.leaderboard.domain.ledger.ClaimAssignment;
import org.carla.leaderboard.domain.ledger.ClaimAssignment.Crashes;
import org.carla.leaderboard.domain.ledger.ClaimFiling;
import org.carla.leaderboard.domain.ledger.Claimer;
import org.carla.leaderboard.domain.ledger.EntryChanges.Change;
import org.carla.leaderboard.domain.ledger.EntryKey;
import org.carla.leaderboard.domain.ledger.LedgerEntry;
import org.carla.leaderboard.domain.ledger.LedgerMerge;
import org.carla.leaderboard.domain.ledger.PairPlacement;
import org.carla.leaderboard.domain.ledger.RouteDurations;
import org.carla.leaderboard.domain.ledger.RunItem;
import org.carla.leaderboard.domain.results.CheckpointFile;
import org.carla.leaderboard.domain.results.MergeResult;
import org.carla.leaderboard.domain.results.ResultsJson;
import org.carla.leaderboard.domain.status.StatusFiles;
import org.carla.leaderboard.domain.status.StatusFiles.Role;
import org.carla.leaderboard.podruntime.ledger.RouteLedger;
import org.carla.leaderboard.podruntime.results.ResultsRefresh;
import org.jboss.logging.Logger;

/**
 * logcopy's side of the route ledger, for the pairs of its pod: it claims each pair's routes and tells the agent in
 * {@code claims/agent-<i>.json} ({@link ClaimAssignment}); it files a claim when the agent says it ended
 * ({@code agent-i.claim<n>}) and its checkpoint holds exactly the route's record ({@link ClaimFiling}), or releases it
 * ({@code INVALID_RESULT}); it releases a claim whose pair crashed ({@code AGENT_CRASH}, {@code SIMULATOR_CRASH}: who
 * crashed first; {@code INFRASTRUCTURE} when the route had not started) and gives the restarted pair a new one once both
 * of its containers have written their crash files; it renews every claim it holds at every pass; and on SIGTERM it
 * releases them all ({@code INFRASTRUCTURE}). Only this code, with the pod's AWS credentials, writes the ledger: the
 * agents read their claim files and write checkpoints and status files, which are judged here.
 *
 * <p>Status files are looked at by exact name ({@code lstat}), never by listing the folder the participant can fill.
 */
final class PairClaims {

    private static final Logger LOG = Logger.getLogger(PairClaims.class);
    /** How long a pair's crash files may stay uneven (one container restarted, its partner not) before a new claim. */
    static final Duration UNEVEN_CRASHES = Duration.ofSeconds(60);

    private final RouteLedger ledger;
    private final VolumeFiles volume;
    private final Path statusDir;
    private final String pod;
    private final int index;
    private final PairPlacement placement;
    private final String trackPartition;
    private final Clock clock;
    private final PairState[] pairs;
    private MergeResult merged;

    /** One pair: its last claim's number, the claim it holds, or that none is left. */
    private static final class PairState {
        int number;
        Held held;
        boolean none;
        Instant notBefore = Instant.MIN;
        Crashes unevenSeen;
        Instant unevenSince;
    }

    /** A claim given to the pair: its assignment, the ledger's claim (the token) and the crashes when given. */
    private record Held(ClaimAssignment assignment, EntryKey key, Claim claim) {
    }

    PairClaims(RouteLedger ledger, VolumeFiles volume, Path statusDir, String pod, int index, int workerPairs,
            PairPlacement placement, String trackPartition, Clock clock) {
        this.ledger = ledger;
        this.volume = volume;
        this.statusDir = statusDir;
        this.pod = pod;
        this.index = index;
        this.placement = placement;
        this.trackPartition = trackPartition;
        this.clock = clock;
        this.pairs = new PairState[workerPairs];
        for (int i = 0; i < workerPairs; i++) {
            pairs[i] = new PairState();
            // A restarted logcopy continues the numbers, so no claim file or checkpoint of this pod is taken again.
            pairs[i].number = Math.max(StatusFiles.lastClaimEnded(names(i + 1), i + 1), claimFileNumber(i + 1));
        }
    }

    /**
     * One pass over the pairs: file, release, renew and claim as their files say; then the ledger is read for the
     * merged results. Ledger failures are thrown (logcopy's outage handling retries the pass).
     */
    void pass() {
        for (int pair = 1; pair <= pairs.length; pair++) {
            step(pair, pairs[pair - 1]);
        }
        RouteLedger.Snapshot snapshot = ledger.read();
        int total = snapshot.run().map(RunItem::total).orElse(snapshot.entries().size());
        merged = LedgerMerge.merge(snapshot.entries(), total);
    }

    /** The merged results of the whole run (every pod's DONE entries), as of the last pass; empty before it. */
    Optional<MergeResult> merged() {
        return Optional.ofNullable(merged);
    }

    /** Whether a pair's files changed in a way the next pass acts on: a claim ended or a crash file appeared. */
    boolean due() {
        for (int pair = 1; pair <= pairs.length; pair++) {
            PairState state = pairs[pair - 1];
            if (state.held != null && (present(StatusFiles.claimEnded(pair, state.held.assignment().number()))
                    || !crashes(pair).equals(state.held.assignment().crashes()))) {
                return true;
            }
        }
        return false;
    }

    /** Gives back every claim held (SIGTERM: the pod is going away); their routes are driven again elsewhere. */
    void releaseAll(String reason) {
        for (int pair = 1; pair <= pairs.length; pair++) {
            PairState state = pairs[pair - 1];
            if (state.held != null) {
                release(pair, state, AttemptOutcome.INFRASTRUCTURE, reason);
            }
        }
    }

    private void step(int pair, PairState state) {
        Crashes crashes = crashes(pair);
        if (state.held != null) {
            Held held = state.held;
            if (present(StatusFiles.claimEnded(pair, held.assignment().number()))) {
                judge(pair, state, held);
            } else if (!crashes.equals(held.assignment().crashes())) {
                crashed(pair, state, held, crashes);
            } else {
                renew(pair, state, held);
            }
        }
        if (state.held == null && !state.none && !clock.instant().isBefore(state.notBefore) && even(state, crashes)) {
            claim(pair, state, crashes);
        }
    }

    /** The agent ended the claim: its checkpoint is filed, or the claim released as an invalid result. */
    private void judge(int pair, PairState state, Held held) {
        String relative = LogsLayout.claimCheckpoint(pair, held.assignment().number(), held.assignment().tag());
        ClaimFiling.Result result;
        try {
            CheckpointFile checkpoint = ResultsJson.parse(new String(volume.read(relative,
                    ResultsRefresh.CHECKPOINT_MAX_BYTES), StandardCharsets.UTF_8));
            result = ClaimFiling.check(checkpoint, held.key());
        } catch (IOException | IllegalArgumentException e) {
            result = new ClaimFiling.Refused("the claim's checkpoint " + relative + " cannot be read: "
                    + e.getMessage());
        }
        if (result instanceof ClaimFiling.Accepted accepted) {
            Change filed = ledger.file(held.key(), held.claim(), placement, accepted);
            LOG.infof("logcopy: agent-%d %s: %s", pair, held.assignment(), filed instanceof Change.Written
                    ? "filed, route done" : "not filed: " + ((Change.Refused) filed).reason());
            if (filed instanceof Change.Written) {
                double seconds = accepted.record().meta().durationSystem() > 0
                        ? accepted.record().meta().durationSystem()
                        : Duration.between(held.claim().since(), clock.instant()).toMillis() / 1000.0;
                RouteDurations durations = ledger.recordDuration(trackPartition, held.key().routeId(), seconds);
                LOG.debugf("logcopy: route %s of the track: %d attempts, %.0f s on average", held.key().routeId(),
                        durations.n(), durations.meanSeconds());
            }
            state.held = null;
            return;
        }
        release(pair, state, AttemptOutcome.INVALID_RESULT, ((ClaimFiling.Refused) result).reason());
    }

    /** A container of the pair crashed while it held the claim: who crashed first says why. */
    private void crashed(int pair, PairState state, Held held, Crashes now) {
        Crashes before = held.assignment().crashes();
        String relative = LogsLayout.claimCheckpoint(pair, held.assignment().number(), held.assignment().tag());
        boolean started = exists(relative);
        Optional<Instant> agent = now.agent() > before.agent()
                ? modified(StatusFiles.crash(Role.AGENT, pair, before.agent())) : Optional.empty();
        Optional<Instant> simulator = now.simulator() > before.simulator()
                ? modified(StatusFiles.crash(Role.SIMULATOR, pair, before.simulator())) : Optional.empty();
        boolean simulatorFirst = simulator.isPresent() && (agent.isEmpty() || !agent.get().isBefore(simulator.get()));
        String container = (simulatorFirst ? Role.SIMULATOR : Role.AGENT).container(pair);
        if (!started) {
            release(pair, state, AttemptOutcome.INFRASTRUCTURE, container + " crashed before the route started");
        } else {
            release(pair, state, simulatorFirst ? AttemptOutcome.SIMULATOR_CRASH : AttemptOutcome.AGENT_CRASH,
                    container + " crashed during the route (its log says why)");
        }
    }

    private void renew(int pair, PairState state, Held held) {
        if (ledger.renew(held.key(), held.claim()) instanceof Change.Refused refused) {
            // The lease ran out before this renewal (logcopy stalled longer than it): another pair has the route now.
            LOG.warnf("logcopy: agent-%d %s is no longer this pod's: %s", pair, held.assignment(), refused.reason());
            state.held = null;
        }
    }

    private void release(int pair, PairState state, AttemptOutcome outcome, String reason) {
        Held held = state.held;
        Change released = ledger.release(held.key(), held.claim(), placement, outcome, reason);
        LOG.infof("logcopy: agent-%d %s released (%s: %s)%s", pair, held.assignment(), outcome, reason,
                released instanceof Change.Refused refused ? "; not written: " + refused.reason() : "");
        state.held = null;
    }

    private void claim(int pair, PairState state, Crashes crashes) {
        RouteLedger.Next next = ledger.claimNext(new Claimer(pod, index, pair));
        if (next instanceof RouteLedger.Next.Wait wait) {
            state.notBefore = wait.at();
            return;
        }
        state.number++;
        ClaimAssignment assignment;
        if (next instanceof RouteLedger.Next.Claimed claimed) {
            LedgerEntry entry = claimed.entry();
            assignment = ClaimAssignment.drive(state.number, entry.key(), claimed.claim().token().substring(0, 8),
                    crashes);
            state.held = new Held(assignment, entry.key(), claimed.claim());
        } else {
            String reason = ((RouteLedger.Next.None) next).cannotFinish().orElse("");
            assignment = ClaimAssignment.none(state.number, crashes, reason);
            state.none = true;
        }
        try {
            volume.replace(LogsLayout.claimFile(pair), assignment.json().getBytes(StandardCharsets.UTF_8), false);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot write " + LogsLayout.claimFile(pair), e);
        }
        LOG.infof("logcopy: agent-%d: %s", pair, assignment);
    }

    /**
     * Whether a new claim may go out: both containers of the pair have written as many crash files (the restarted pair
     * reads the claim with its own counts), or they have been uneven for {@link #UNEVEN_CRASHES}.
     */
    private boolean even(PairState state, Crashes crashes) {
        if (crashes.agent() == crashes.simulator()) {
            state.unevenSeen = null;
            return true;
        }
        if (!crashes.equals(state.unevenSeen)) {
            state.unevenSeen = crashes;
            state.unevenSince = clock.instant();
        }
        return !clock.instant().isBefore(state.unevenSince.plus(UNEVEN_CRASHES));
    }

    /** The pair's crash files: K of each container, by exact names (crash0, crash1, ... until one is missing). */
    private Crashes crashes(int pair) {
        return new Crashes(count(Role.AGENT, pair), count(Role.SIMULATOR, pair));
    }

    private int count(Role role, int pair) {
        int k = 0;
        while (k < 10_000 && present(StatusFiles.crash(role, pair, k))) {
            k++;
        }
        return k;
    }

    private boolean present(String statusFile) {
        return Files.exists(statusDir.resolve(statusFile), LinkOption.NOFOLLOW_LINKS);
    }

    private Optional<Instant> modified(String statusFile) {
        try {
            return Optional.of(Files.readAttributes(statusDir.resolve(statusFile), BasicFileAttributes.class,
                    LinkOption.NOFOLLOW_LINKS).lastModifiedTime().toInstant());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private boolean exists(String relative) {
        try {
            return volume.attributes(relative).isPresent();
        } catch (IOException e) {
            return false;
        }
    }

    /** The names a restarted logcopy needs: the claim-ended files up to the claim file's number. */
    private List<String> names(int pair) {
        var names = new ArrayList<String>();
        int n = 1;
        while (n < 1_000_000 && present(StatusFiles.claimEnded(pair, n))) {
            names.add(StatusFiles.claimEnded(pair, n));
            n++;
        }
        return names;
    }

    private int claimFileNumber(int pair) {
        try {
            return ClaimAssignment.parse(new String(volume.read(LogsLayout.claimFile(pair), ClaimAssignment.MAX_BYTES),
                    StandardCharsets.UTF_8)).number();
        } catch (IOException | IllegalArgumentException e) {
            return 0;
        }
    }
}
