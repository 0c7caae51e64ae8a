package org.carla.leaderboard.localstack.standin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

class RoutesFileTests {

    static final Path DEMO = Path.of("src/main/resources/standin/routes_demo.xml");

    @Test
    void theDemoFileHasEightRoutesInTwoTowns() throws Exception {
        List<RoutesFile.Route> routes = RoutesFile.read(DEMO, "");

        assertThat(routes).extracting(RoutesFile.Route::id).containsExactly("0", "1", "2", "3", "4", "5", "6", "7");
        assertThat(routes).extracting(RoutesFile.Route::town).containsOnly("Town12", "Town13");
        assertThat(routes).allMatch(route -> route.waypoints() > 1);
    }

    @Test
    void subsetsAreIdsAndRangesAsTheEvaluatorReadsThem() throws Exception {
        assertThat(RoutesFile.read(DEMO, "5-7")).extracting(RoutesFile.Route::id).containsExactly("5", "6", "7");
        assertThat(RoutesFile.read(DEMO, "6, 1,3-4")).extracting(RoutesFile.Route::id).containsExactly("1", "3", "4", "6");
        assertThat(RoutesFile.read(DEMO, "2")).extracting(RoutesFile.Route::id).containsExactly("2");
    }

    @Test
    void aBadSubsetIsAnErrorNamingTheRoute() {
        assertThatThrownBy(() -> RoutesFile.read(DEMO, "4-2")).hasMessageContaining("end id before the starting one");
        assertThatThrownBy(() -> RoutesFile.read(DEMO, "3-12")).hasMessageContaining("'12'");
        assertThatThrownBy(() -> RoutesFile.read(DEMO, "1,1")).hasMessageContaining("repeated route with id '1'");
    }
}
