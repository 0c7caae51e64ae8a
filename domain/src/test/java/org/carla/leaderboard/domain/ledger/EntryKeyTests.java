package org.carla.leaderboard.domain.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EntryKeyTests {

    @Test
    void aKeyIsTheRouteIdAndTheRepetitionAndReadsBack() {
        var key = new EntryKey("27", 0);

        assertThat(key.text()).isEqualTo("27#0");
        assertThat(EntryKey.parse("27#0")).isEqualTo(key);
        assertThat(key.recordRouteId()).isEqualTo("RouteScenario_27_rep0");
        assertThat(new EntryKey("27", 3).claimRecordRouteId()).isEqualTo("RouteScenario_27_rep0");
        assertThat(new EntryKey("27", 3).recordRouteId()).isEqualTo("RouteScenario_27_rep3");
    }

    @Test
    void aRunHasEveryRouteTimesItsRepetitions() {
        assertThat(EntryKey.of(List.of("3", "1"), 2)).extracting(EntryKey::text).containsExactly("3#0", "3#1", "1#0",
                "1#1");
        assertThatThrownBy(() -> EntryKey.of(List.of("3"), 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EntryKey.of(List.of("3", "1", "3"), 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("more than once");
    }

    @Test
    void entryOrderIsTheMergedResultsOrderByRouteNumberThenRepetition() {
        var keys = new TreeSet<EntryKey>(List.of(new EntryKey("10", 0), new EntryKey("2", 1), new EntryKey("2", 0),
                new EntryKey("9", 0)));

        assertThat(keys).extracting(EntryKey::text).containsExactly("2#0", "2#1", "9#0", "10#0");
    }

    @ParameterizedTest
    @ValueSource(strings = { "", "#0", "27", "27#", "27#0#1", "27#-1", "-1#0", "a#0", "2 7#0", "27#0 ", "1e3#0",
            "1234567890#0", "\u0663#0", "27#\uff10", "../x#0", "27;DROP#0" })
    void anythingButDigitsHashDigitsIsRefusedNamingIt(String text) {
        assertThatThrownBy(() -> EntryKey.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("ledger entry");
    }

    @Test
    void aRouteIdOfTheWrongShapeIsRefusedPrintably() {
        assertThatThrownBy(() -> new EntryKey("27\n#", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a route id is 1 to 9 decimal digits, was 27\\u000a#");
        assertThatThrownBy(() -> new EntryKey(null, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new EntryKey("27", -1)).isInstanceOf(IllegalArgumentException.class);
    }
}
