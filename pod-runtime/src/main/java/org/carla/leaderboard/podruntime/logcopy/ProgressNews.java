package org.carla.leaderboard.podruntime.logcopy;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

import org.carla.leaderboard.domain.results.MergeResult;

/**
 * When a progress report is worth sending: the first one, then whenever the routes done, the routes total, the global
 * results or the digest of {@code results.json} changed since the last one sent, and otherwise a heartbeat once
 * {@code heartbeat} passed without one, so that silence still means something to the stuck-submission rules.
 */
final class ProgressNews {

    /** Whether to send, and as what. */
    enum Kind {
        NONE,
        NEWS,
        HEARTBEAT
    }

    private final Duration heartbeat;
    private Sent last;

    private record Sent(int routesDone, int routesTotal, boolean globalResults, String digest, Instant at) {
    }

    ProgressNews(Duration heartbeat) {
        this.heartbeat = heartbeat;
    }

    Kind at(MergeResult result, String digest, Instant now) {
        if (last == null || last.routesDone() != result.routesDone() || last.routesTotal() != result.routesTotal()
                || last.globalResults() != result.globalResults() || !Objects.equals(last.digest(), digest)) {
            return Kind.NEWS;
        }
        return Duration.between(last.at(), now).compareTo(heartbeat) >= 0 ? Kind.HEARTBEAT : Kind.NONE;
    }

    /** A report of {@code result} went out at {@code now}. */
    void sent(MergeResult result, String digest, Instant now) {
        last = new Sent(result.routesDone(), result.routesTotal(), result.globalResults(), digest, now);
    }
}
