package org.carla.leaderboard.relay.service;

import java.util.Optional;

import org.carla.leaderboard.domain.layout.LogsLayout;
import org.carla.leaderboard.domain.layout.SubmissionFiles;
import org.carla.leaderboard.domain.layout.SubmissionLayout;
import org.carla.leaderboard.domain.ledger.ClaimAssignment;
import org.jboss.logging.Logger;

/**
 * Why a run whose routes were claimed ({@code schedule} set) could not finish: logcopy tells each pair that nothing is
 * left, and when an entry of the route ledger gave up, why ({@code LedgerEntry.gaveUpReason}: the route, its attempts
 * and how each ended), in the pair's claim file {@code claims/agent-<i>.json}, which it uploads. Only ever an
 * explanation of a run that failed already (its results lack the route): a claim file can never make a run finish.
 */
final class GaveUpRoutes {

    private static final Logger LOG = Logger.getLogger(GaveUpRoutes.class);
    /** A claim file is a line of JSON; a larger object is no claim file of logcopy's. */
    static final long MAX_CLAIM_FILE = 16 * 1024;

    private GaveUpRoutes() {
    }

    /** The first pair's reason why the run cannot finish (pod by pod); empty when no pair was told one. */
    static Optional<String> reason(SubmissionFiles files, String bucket, String submissionId, int workerPairs,
            int pods) {
        for (int pair = 1; pair <= workerPairs * pods; pair++) {
            String path = SubmissionLayout.runPairPath(pair, workerPairs, pods, LogsLayout::claimFile);
            var text = files.readBounded(bucket, submissionId, path, MAX_CLAIM_FILE).text();
            if (text.isEmpty()) {
                continue;
            }
            try {
                var claim = ClaimAssignment.parse(text.get());
                if (claim.none() && !claim.reason().isEmpty()) {
                    return Optional.of(claim.reason());
                }
            } catch (IllegalArgumentException e) {
                LOG.warnf("submission %s: %s is not a claim file: %s", submissionId, path, e.getMessage());
            }
        }
        return Optional.empty();
    }
}
