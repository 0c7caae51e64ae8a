package org.carla.leaderboard.podruntime.role;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.Set;

import org.carla.leaderboard.domain.layout.LogsLayout;
import org.carla.leaderboard.domain.ledger.ClaimAssignment;
import org.carla.leaderboard.domain.status.StatusFiles;
import org.carla.leaderboard.domain.status.StatusFiles.Role;

/**
 * agent-i's side of the route ledger: the claim logcopy gave the pair in {@code claims/agent-<i>.json}, a folder only
 * logcopy's user writes. A claim is this attempt's when its number is above the last one the agent said it ended
 * ({@code agent-i.claim<n>}) and the pair has crashed no more since logcopy gave it; otherwise logcopy has not yet given
 * the next one, and the agent waits.
 */
public final class ClaimedRoutes {

    private final Path logs;
    private final int pair;

    public ClaimedRoutes(Path logs, int pair) {
        this.logs = logs;
        this.pair = pair;
    }

    /** The claim to drive now, or that none is left; empty while logcopy has not given it. */
    public Optional<ClaimAssignment> next(Set<String> present) {
        Optional<ClaimAssignment> given = read();
        if (given.isEmpty() || given.get().number() <= StatusFiles.lastClaimEnded(present, pair)) {
            return Optional.empty();
        }
        var now = new ClaimAssignment.Crashes(StatusFiles.crashCount(present, Role.AGENT, pair),
                StatusFiles.crashCount(present, Role.SIMULATOR, pair));
        return given.get().crashes().equals(now) ? given : Optional.empty();
    }

    /** Where the evaluator writes the claim's checkpoint. */
    public Path checkpoint(ClaimAssignment claim) {
        return logs.resolve(LogsLayout.claimCheckpoint(pair, claim.number(), claim.tag()));
    }

    /** The claim file as logcopy last wrote it (whole: it renames a complete file into place). */
    private Optional<ClaimAssignment> read() {
        Path file = logs.resolve(LogsLayout.claimFile(pair));
        try (InputStream in = Channels.newInputStream(Files.newByteChannel(file, Set.of(StandardOpenOption.READ,
                LinkOption.NOFOLLOW_LINKS)))) {
            byte[] bytes = in.readNBytes(ClaimAssignment.MAX_BYTES + 1);
            if (bytes.length > ClaimAssignment.MAX_BYTES) {
                return Optional.empty();
            }
            return Optional.of(ClaimAssignment.parse(new String(bytes, StandardCharsets.UTF_8)));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
