package org.carla.leaderboard.domain.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ExpectedDurationTests {

    @Test
    void withNothingRecordedARouteIsExpectedToTakeItsLengthAtTheNominalSpeed() {
        assertThat(ExpectedDuration.seconds(RouteDurations.NONE, 1500, ExpectedDuration.NOMINAL_SPEED))
                .isEqualTo(1000.0);
        assertThat(ExpectedDuration.seconds(RouteDurations.NONE, 1500, 3)).isEqualTo(500.0);
    }

    @Test
    void onceDrivenTheTracksRecordedMeanIsExpectedWhateverTheLength() {
        RouteDurations recorded = RouteDurations.NONE.plus(600);

        assertThat(ExpectedDuration.seconds(recorded, 1500, ExpectedDuration.NOMINAL_SPEED)).isEqualTo(600.0);
    }

    @Test
    void theRecordKeepsTheMeanOfEveryDoneAttempt() {
        RouteDurations recorded = RouteDurations.NONE.plus(600).plus(900).plus(300).plus(1000);

        assertThat(recorded.n()).isEqualTo(4);
        assertThat(recorded.meanSeconds()).isCloseTo(700.0, within(1e-9));
    }

    @Test
    void aSpeedOrLengthOrDurationThatIsNotANumberFromZeroIsRefused() {
        assertThatThrownBy(() -> ExpectedDuration.seconds(RouteDurations.NONE, 1500, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nominal speed");
        assertThatThrownBy(() -> ExpectedDuration.seconds(RouteDurations.NONE, Double.NaN, 1.5))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("length");
        assertThatThrownBy(() -> RouteDurations.NONE.plus(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RouteDurations.NONE.plus(Double.POSITIVE_INFINITY))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
