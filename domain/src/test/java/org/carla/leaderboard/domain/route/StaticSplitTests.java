package org.carla.leaderboard.domain.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;

import org.junit.jupiter.api.Test;

class StaticSplitTests {

    /** A routes file of {@code n} routes whose ids are 100, 103, 106, ...: never a route's position. */
    private static RoutesFile file(int n) throws IOException {
        var xml = new StringBuilder("<routes>");
        for (int i = 0; i < n; i++) {
            xml.append("<route id=\"").append(100 + 3 * i).append("\" town=\"Town12\"><waypoints>")
                    .append("<position x=\"0\" y=\"0\" z=\"0\"/></waypoints><scenarios/></route>");
        }
        return RoutesFileTests.parse(xml.append("</routes>").toString());
    }

    @Test
    void theSeedsTwentyRoutesOverFourPairsGoByTheIdsAtThosePositions() throws Exception {
        RoutesFile routes = file(20);
        assertThat(List.of(1, 2, 3, 4)).extracting(pair -> StaticSplit.share(routes, pair, 4).subset())
                .containsExactly("100-112", "115-127", "130-142", "145-157");
        assertThat(StaticSplit.share(routes, 2, 4).routes()).extracting(Route::id)
                .containsExactly("115", "118", "121", "124", "127");
    }

    @Test
    void unevenSplitsFollowTheLeaderboardsCeilings() throws Exception {
        // step 10/3: ceil(0)=0, ceil(3.33)=4, ceil(6.67)=7, ceil(10)=10
        RoutesFile ten = file(10);
        assertThat(List.of(1, 2, 3)).extracting(pair -> StaticSplit.share(ten, pair, 3).routes().size())
                .containsExactly(4, 3, 3);
        RoutesFile three = file(3);
        assertThat(List.of(1, 2, 3)).extracting(pair -> StaticSplit.share(three, pair, 3).subset())
                .containsExactly("100", "103", "106");
    }

    @Test
    void everySplitCoversEachRouteOnceWithTheLeaderboardsBoundaries() throws Exception {
        for (int routes = 1; routes <= 60; routes++) {
            RoutesFile file = file(routes);
            for (int pairs = 1; pairs <= Math.min(routes, 16); pairs++) {
                int next = 0;
                for (int pair = 1; pair <= pairs; pair++) {
                    List<Route> share = StaticSplit.share(file, pair, pairs).routes();
                    int first = file.routes().indexOf(share.get(0));
                    assertThat(first).as("%d/%d pair %d", routes, pairs, pair).isEqualTo(next)
                            .isEqualTo(exactCeil(pair - 1, routes, pairs));
                    next = first + share.size();
                    assertThat(next).isEqualTo(exactCeil(pair, routes, pairs));
                    assertThat(share.size()).isBetween(routes / pairs, routes / pairs + 1);
                }
                assertThat(next).as("%d routes, %d pairs: all covered", routes, pairs).isEqualTo(routes);
            }
        }
    }

    @Test
    void aPairWithoutARouteIsRefused() throws Exception {
        RoutesFile three = file(3);
        assertThatThrownBy(() -> StaticSplit.share(three, 4, 4))
                .hasMessage("4 worker pairs for 3 routes: pair 4 would drive none");
        assertThatThrownBy(() -> StaticSplit.share(three, 0, 2)).hasMessageContaining("is not a worker pair");
        assertThatThrownBy(() -> StaticSplit.share(three, 3, 2)).hasMessageContaining("is not a worker pair");
    }

    /** ceil(i · routes / pairs) computed in decimal, independently of the integer formula under test. */
    private static int exactCeil(int i, int routes, int pairs) {
        return BigDecimal.valueOf((long) i * routes).divide(BigDecimal.valueOf(pairs), 0, RoundingMode.CEILING)
                .intValueExact();
    }
}
