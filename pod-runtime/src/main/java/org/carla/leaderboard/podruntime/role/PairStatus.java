package org.carla.leaderboard.podruntime.role;

import java.util.Optional;
import java.util.Set;

import org.carla.leaderboard.domain.status.StatusFiles;
import org.carla.leaderboard.domain.status.StatusFiles.Role;

/**
 * What the status files say about one container's partner in the current attempt. Both containers of a pair write a
 * crash file per failed attempt, so the partner has crashed in this attempt when it has more crash files than this
 * container had when it started (K).
 */
public record PairStatus(Role self, int pair, int attemptIndex) {

    /** The K of this container: how many crash files it has written in earlier attempts. */
    static int crashIndex(Set<String> present, Role role, int pair) {
        return StatusFiles.crashCount(present, role, pair);
    }

    String container() {
        return self.container(pair);
    }

    String partnerContainer() {
        return self.partner().container(pair);
    }

    boolean cancelled(Set<String> present) {
        return present.contains(StatusFiles.SIMULATION_CANCEL);
    }

    boolean partnerDone(Set<String> present) {
        return present.contains(StatusFiles.done(self.partner(), pair));
    }

    boolean partnerCrashed(Set<String> present) {
        return StatusFiles.crashCount(present, self.partner(), pair) > attemptIndex;
    }

    String ownDone() {
        return StatusFiles.done(self, pair);
    }

    String ownCrash() {
        return StatusFiles.crash(self, pair, attemptIndex);
    }

    /** The partner's answer at the end of an attempt: its done or crash file, or the cancel file. */
    Optional<String> partnerAnswer(Set<String> present) {
        if (cancelled(present)) {
            return Optional.of(StatusFiles.SIMULATION_CANCEL);
        }
        if (partnerDone(present)) {
            return Optional.of(StatusFiles.done(self.partner(), pair));
        }
        if (partnerCrashed(present)) {
            return Optional.of(partnerContainer() + " crash file");
        }
        return Optional.empty();
    }
}
