package org.carla.leaderboard.domain.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class RoutesFileTests {

    /** Leaderboard 2.0's format (data/routes_devtest.xml's shape), ids not 0…n−1 and not in order. */
    static final String TWO = """
            <?xml version="1.0" encoding="UTF-8"?>
            <routes>
               <route id="12" town="Town12">
                  <weathers><weather route_percentage="0" cloudiness="5.0"/></weathers>
                  <waypoints>
                     <position x="0.0" y="0.0" z="0.0"/>
                     <position x="3.0" y="4.0" z="0.0"/>
                     <position x="3.0" y="4.0" z="12.0"/>
                  </waypoints>
                  <scenarios>
                     <scenario name="Accident_1" type="Accident"><trigger_point x="1" y="1" z="0" yaw="0"/></scenario>
                  </scenarios>
               </route>
               <route id="3" town="Town13">
                  <waypoints><position x="10" y="10" z="0"/><position x="10" y="20" z="0"/></waypoints>
                  <scenarios/>
               </route>
               <route id="40" town="Town12">
                  <waypoints><position x="0" y="0" z="0"/><position x="0" y="1" z="0"/></waypoints>
                  <scenarios/>
               </route>
            </routes>
            """;

    /** Leaderboard 1.0's format (data/routes_devtest.xml's shape): waypoints as children of the route. */
    static final String ONE = """
            <?xml version="1.0" encoding="UTF-8"?>
            <routes>
               <route id="1" town="Town01">
                  <waypoint pitch="360.0" roll="0.0" x="338.7" y="226.75" yaw="269.97" z="0.0" />
                  <waypoint pitch="360.0" roll="0.0" x="338.7" y="126.75" yaw="269.97" z="0.0" />
               </route>
               <route id="2" town="Town03">
                  <waypoint pitch="360.0" roll="0.0" x="-39.8" y="207.6" yaw="359.8" z="0.0" />
               </route>
            </routes>
            """;

    static RoutesFile parse(String xml) throws IOException {
        return RoutesFile.parse(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)), "routes.xml");
    }

    @Test
    void theRoutesOfBothFormatsInFileOrderWithTheirTownsAndLengths() throws Exception {
        RoutesFile two = parse(TWO);
        assertThat(two.routes()).extracting(Route::id).containsExactly("12", "3", "40");
        assertThat(two.routes()).extracting(Route::town).containsExactly("Town12", "Town13", "Town12");
        assertThat(two.routes().get(0).waypoints()).isEqualTo(3);
        assertThat(two.routes().get(0).length()).isCloseTo(5.0 + 12.0, within(1e-9));
        assertThat(two.routes().get(1).length()).isCloseTo(10.0, within(1e-9));

        RoutesFile one = parse(ONE);
        assertThat(one.routes()).extracting(Route::id).containsExactly("1", "2");
        assertThat(one.routes().get(0).length()).isCloseTo(100.0, within(1e-9));
        assertThat(one.routes().get(1).length()).isZero();
    }

    @Test
    void aSubsetNamesTheIdsAtThosePositions() throws Exception {
        RoutesFile two = parse(TWO);
        assertThat(two.subset(0, 3)).isEqualTo("12-40");
        assertThat(two.subset(1, 3)).isEqualTo("3-40");
        assertThat(two.subset(1, 2)).as("one route: its id, never 3-3 (1.0's parser refuses that)").isEqualTo("3");
        assertThatThrownBy(() -> two.subset(2, 2)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> two.subset(2, 4)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void whatTheEvaluatorOrTheResultsCouldNotTakeIsRefusedNamingIt() {
        assertThatThrownBy(() -> parse(TWO.replace("id=\"3\"", "id=\"12\"")))
                .hasMessage("routes file routes.xml holds route id '12' twice");
        assertThatThrownBy(() -> parse(TWO.replace("id=\"3\"", "id=\"three\"")))
                .hasMessage("routes file routes.xml: route id 'three' is not a whole number of at most 9 digits");
        assertThatThrownBy(() -> parse(TWO.replace("id=\"3\"", "id=\"1-2\"")))
                .hasMessageContaining("route id '1-2' is not a whole number");
        assertThatThrownBy(() -> parse(TWO.replace("town=\"Town13\"", "")))
                .hasMessage("routes file routes.xml: route 3 names no town");
        assertThatThrownBy(() -> parse(TWO.replace("x=\"10\"", "x=\"NaN\"")))
                .hasMessageContaining("route 3 has a waypoint whose x is not finite");
        assertThatThrownBy(() -> parse("<routes/>")).hasMessage("routes file routes.xml holds no <route>");
        assertThatThrownBy(() -> parse("<routes>")).hasMessageStartingWith("routes file routes.xml is not XML");
    }

    @Test
    void aDoctypeIsRefusedSoNoEntityIsExpanded() {
        String xxe = "<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
                + "<routes><route id=\"1\" town=\"&x;\"/></routes>";
        assertThatThrownBy(() -> parse(xxe)).hasMessageContaining("is not XML").hasMessageContaining("DOCTYPE");
    }
}
