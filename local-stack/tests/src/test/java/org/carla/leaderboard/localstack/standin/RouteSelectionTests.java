package org.carla.leaderboard.localstack.standin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;

import org.carla.leaderboard.domain.route.Route;
import org.carla.leaderboard.domain.route.RoutesFile;
import org.carla.leaderboard.domain.track.LeaderboardVersion;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RouteSelectionTests {

    static final Path DEMO = Path.of("../src/main/resources/standin/routes_demo.xml");
    private static final LeaderboardVersion ONE = LeaderboardVersion.V1_0;
    private static final LeaderboardVersion TWO = LeaderboardVersion.V2_0;

    @TempDir
    Path temp;

    @Test
    void theDemoFileHasEightRoutesInTwoTowns() throws Exception {
        List<Route> routes = RouteSelection.read(DEMO, "", TWO);

        assertThat(routes).extracting(Route::id).containsExactly("0", "1", "2", "3", "4", "5", "6", "7");
        assertThat(routes).extracting(Route::town).containsOnly("Town12", "Town13");
        assertThat(routes).allMatch(route -> route.waypoints() > 1);
    }

    @Test
    void subsetsAreIdsAndRangesAsTheEvaluatorReadsThem() throws Exception {
        assertThat(RouteSelection.read(DEMO, "5-7", TWO)).extracting(Route::id).containsExactly("5", "6", "7");
        assertThat(RouteSelection.read(DEMO, "6, 1,3-4", TWO)).extracting(Route::id).containsExactly("1", "3", "4", "6");
        assertThat(RouteSelection.read(DEMO, "2", ONE)).extracting(Route::id).containsExactly("2");
    }

    @Test
    void aBadSubsetIsAnErrorNamingTheRoute() {
        assertThatThrownBy(() -> RouteSelection.read(DEMO, "4-2", TWO)).hasMessageContaining("end id before the starting one");
        assertThatThrownBy(() -> RouteSelection.read(DEMO, "3-12", TWO))
                .hasMessage("Couldn't find the route with id '12' inside the given routes file");
        assertThatThrownBy(() -> RouteSelection.read(DEMO, "1,1", TWO)).hasMessageContaining("repeated route with id '1'");
        assertThatThrownBy(() -> RouteSelection.read(DEMO, "1-2-3", TWO))
                .hasMessage("too many values to unpack (expected 2)");
    }

    @Test
    void aRangeWhoseEndsAreOneIdIsThatRouteIn2AndRefusedIn1() throws Exception {
        assertThat(RouteSelection.read(DEMO, "3-3", TWO)).extracting(Route::id).containsExactly("3");
        assertThatThrownBy(() -> RouteSelection.read(DEMO, "3-3", ONE))
                .hasMessage("Malformed route subset '3-3', found the end id before the starting one");
    }

    @Test
    void theWrittenRoutesFilesAreEachVersionsFormatWithTheIdsAskedFor() throws Exception {
        for (LeaderboardVersion version : LeaderboardVersion.values()) {
            Path file = StandInRoutes.write(temp.resolve(version + ".xml"), version, List.of("11", "12", "13"));
            RoutesFile routes = RoutesFile.read(file);
            assertThat(routes.routes()).extracting(Route::id).containsExactly("11", "12", "13");
            assertThat(routes.routes()).allMatch(route -> route.waypoints() > 1 && route.length() > 0);
            assertThat(RouteSelection.read(file, "12-13", version)).extracting(Route::id).containsExactly("12", "13");
        }
        assertThat(java.nio.file.Files.readString(temp.resolve("1.0.xml"))).contains("<waypoint ")
                .doesNotContain("<position");
        assertThat(java.nio.file.Files.readString(temp.resolve("2.0.xml"))).contains("<waypoints>", "<scenarios>");
    }
}
