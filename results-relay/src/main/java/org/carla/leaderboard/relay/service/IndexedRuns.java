package org.carla.leaderboard.relay.service;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.domain.track.TrackCatalog;
import org.carla.leaderboard.relay.store.SubmissionRecord;
import org.carla.leaderboard.relay.store.SubmissionRecords;

/**
 * The records a scheduled check looks at, found in every leaderboard's table by a query of its index by status
 * ({@link SubmissionRecords#notOver}, {@link SubmissionRecords#unconfirmedFinals}): the cancel check's and the stuck
 * rules' one way of finding them. The index is eventually consistent: whoever acts on a record found here reads it
 * again, under the submission's lock, first.
 */
@ApplicationScoped
class IndexedRuns {

    private final TrackCatalog catalog;

    IndexedRuns(TrackCatalog catalog) {
        this.catalog = catalog;
    }

    /**
     * What {@code query} finds in each leaderboard's table, with where each submission lives; a record without its
     * identity is no submission the relay reports. A table that cannot be read is passed to {@code unreadable} (with
     * its leaderboard) and waits for the next check.
     */
    List<Found> find(Function<String, List<SubmissionRecord>> query, BiConsumer<String, RuntimeException> unreadable) {
        var found = new ArrayList<Found>();
        for (String leaderboard : catalog.leaderboards().keySet()) {
            var destination = Destination.of(catalog, leaderboard).orElseThrow();
            try {
                for (SubmissionRecord record : query.apply(destination.table())) {
                    record.identity().ifPresent(identity -> found.add(new Found(record,
                            destination.forPhase(catalog, identity.phasePk()))));
                }
            } catch (RuntimeException e) {
                unreadable.accept(leaderboard, e);
            }
        }
        return found;
    }

    /** A record as the index showed it, and where its submission lives (its leaderboard, with its phase's track). */
    record Found(SubmissionRecord record, Destination destination) {
    }
}
