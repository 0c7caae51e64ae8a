package org.carla.leaderboard.launcher.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;

import org.junit.jupiter.api.Test;

class RouteSubsetTests {

    @Test
    void theSeedsTwentyRoutesOverFourPairs() {
        assertThat(RouteSubset.split(20, 4)).extracting(RouteSubset::toString)
                .containsExactly("0-4", "5-9", "10-14", "15-19");
    }

    @Test
    void unevenSplitsFollowTheLeaderboardsCeilings() {
        // step 10/3: ceil(0)=0, ceil(3.33)=4, ceil(6.67)=7, ceil(10)=10
        assertThat(RouteSubset.split(10, 3)).extracting(RouteSubset::toString).containsExactly("0-3", "4-6", "7-9");
        assertThat(RouteSubset.split(1, 4)).extracting(RouteSubset::toString).containsExactly("0-0");
        assertThat(RouteSubset.split(3, 8)).extracting(RouteSubset::toString).containsExactly("0-0", "1-1", "2-2");
    }

    @Test
    void everySplitCoversEachRouteOnceWithTheLeaderboardsBoundaries() {
        for (int routes = 1; routes <= 120; routes++) {
            for (int pairs = 1; pairs <= 16; pairs++) {
                List<RouteSubset> subsets = RouteSubset.split(routes, pairs);
                int used = Math.min(routes, pairs);
                assertThat(subsets).as("%d routes, %d pairs", routes, pairs).hasSize(used);
                int next = 0;
                for (int i = 0; i < used; i++) {
                    RouteSubset subset = subsets.get(i);
                    assertThat(subset.first()).as("%d/%d pair %d", routes, pairs, i).isEqualTo(next)
                            .isEqualTo(exactCeil(i, routes, used));
                    assertThat(subset.last() + 1).isEqualTo(exactCeil(i + 1, routes, used));
                    assertThat(subset.size()).isBetween(routes / used, routes / used + 1);
                    next = subset.last() + 1;
                }
                assertThat(next).as("%d routes, %d pairs: all covered", routes, pairs).isEqualTo(routes);
            }
        }
    }

    @Test
    void noRoutesOrNoPairsIsRefused() {
        assertThatThrownBy(() -> RouteSubset.split(0, 4)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RouteSubset.split(20, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    /** ceil(i · routes / pairs) computed in decimal, independently of the integer formula under test. */
    private static int exactCeil(int i, int routes, int pairs) {
        return BigDecimal.valueOf((long) i * routes).divide(BigDecimal.valueOf(pairs), 0, RoundingMode.CEILING)
                .intValueExact();
    }
}
