package org.carla.leaderboard.domain.results;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.Test;

/** {@code RouteIndexer.validate_and_resume} of the Leaderboard 2.0 evaluator. */
class ResumePointTests {

    private static final Optional<List<String>> FIVE_ROUTES = Optional.of(List.of(Routes.id(0, 0), Routes.id(1, 0),
            Routes.id(2, 0), Routes.id(3, 0), Routes.id(4, 0)));

    private static Optional<CheckpointFile> twoOfFive() {
        return Optional.of(Routes.agent(5, Routes.perfect(0, 0), Routes.perfect(1, 0)));
    }

    @Test
    void aCheckpointOfAKilledRunResumesAfterItsFinishedRoutes() {
        ResumePoint point = ResumePoint.of(twoOfFive(), FIVE_ROUTES);

        assertThat(point.index()).isEqualTo(2);
        assertThat(point.keepsRoutes()).isTrue();
        assertThat(point.refusal()).isEmpty();
        assertThat(ResumePoint.of(twoOfFive(), Optional.empty()).index()).as("route ids unknown").isEqualTo(2);
    }

    @Test
    void aCrashedEntryRunsItsLastRouteAgain() {
        CheckpointFile crashed = twoOfFive().get().withEntryStatus(EntryStatus.CRASHED);

        assertThat(ResumePoint.of(Optional.of(crashed), FIVE_ROUTES).index()).isEqualTo(1);
        CheckpointFile oneCrashed = Routes.agent(5, Routes.perfect(0, 0)).withEntryStatus(EntryStatus.CRASHED);
        assertThat(ResumePoint.of(Optional.of(oneCrashed), FIVE_ROUTES).keepsRoutes()).isFalse();
    }

    @Test
    void nothingToKeepStartsFresh() {
        assertThat(ResumePoint.of(Optional.empty(), FIVE_ROUTES).refusal()).hasValue("Found no data");
        assertThat(ResumePoint.of(Optional.of(CheckpointFile.empty()), Optional.empty()).keepsRoutes()).isFalse();
        assertThat(ResumePoint.of(Optional.of(Routes.agent(5)), Optional.empty()).keepsRoutes()).isFalse();
    }

    @Test
    void anInvalidEntryStartsFresh() {
        CheckpointFile invalid = twoOfFive().get().withEntryStatus(EntryStatus.INVALID);

        ResumePoint point = ResumePoint.of(Optional.of(invalid), Optional.empty());
        assertThat(point.keepsRoutes()).isFalse();
        assertThat(point.refusal()).hasValue("The 'entry_status' is 'Invalid'");
    }

    @Test
    void anotherRouteTotalOrOtherRoutesStartFresh() {
        Optional<CheckpointFile> twoOfSix = Optional.of(Routes.agent(6, Routes.perfect(0, 0), Routes.perfect(1, 0)));
        assertThat(ResumePoint.of(twoOfSix, FIVE_ROUTES).refusal())
                .hasValue("Endpoint's amount of routes does not match the given one");

        Optional<CheckpointFile> otherRoutes = Optional.of(Routes.agent(5, Routes.perfect(5, 0), Routes.perfect(6, 0)));
        assertThat(ResumePoint.of(otherRoutes, FIVE_ROUTES).refusal())
                .hasValue("Checkpoint routes don't match the current ones");
    }

    @Test
    void aMalformedProgressStartsFresh() {
        CheckpointFile ahead = CheckpointFile.started(Routes.SENSORS, List.of(6, 5), List.of(Routes.perfect(0, 0)));
        CheckpointFile oneNumber = CheckpointFile.started(Routes.SENSORS, List.of(2), List.of(Routes.perfect(0, 0)));

        assertThat(ResumePoint.of(Optional.of(ahead), Optional.empty()).keepsRoutes()).isFalse();
        assertThat(ResumePoint.of(Optional.of(oneNumber), Optional.empty()).keepsRoutes()).isFalse();
    }

    @Test
    void aProgressAheadOfItsRecordsResumesOneBeforeTheLastRecordAsTheLeaderboardPatches() {
        CheckpointFile ahead = CheckpointFile.started(Routes.SENSORS, List.of(4, 5),
                List.of(Routes.perfect(0, 0), Routes.perfect(1, 0), Routes.perfect(2, 0)));

        assertThat(ResumePoint.of(Optional.of(ahead), FIVE_ROUTES).index()).isEqualTo(2);
    }
}
