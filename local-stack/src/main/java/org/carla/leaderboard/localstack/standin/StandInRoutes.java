package org.carla.leaderboard.localstack.standin;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;

import org.carla.leaderboard.domain.track.LeaderboardVersion;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * Routes files for the local Leaderboard images and the tests: the demo routes ({@code standin/routes_demo.xml}, eight
 * made-up routes in two towns) under the ids asked for, taken in turn, in the format of a Leaderboard version — 2.0's
 * {@code <waypoints><position/>} with its {@code <weathers>} and {@code <scenarios>}, 1.0's {@code <waypoint/>}
 * children.
 */
public final class StandInRoutes {

    /** The demo routes, on the class path. */
    public static final String DEMO = "/standin/routes_demo.xml";

    private record Demo(String town, List<String[]> positions) {
    }

    private StandInRoutes() {
    }

    /** Writes a routes file holding a route for each of {@code ids}, in that order; returns its path. */
    public static Path write(Path file, LeaderboardVersion version, List<String> ids) throws IOException {
        List<Demo> demo = demo();
        var xml = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- The evaluator stand-in's"
                + " routes (local-stack StandInRoutes), in the Leaderboard " + version + " format. Made up. -->\n"
                + "<routes>\n");
        for (int i = 0; i < ids.size(); i++) {
            Demo route = demo.get(i % demo.size());
            xml.append("   <route id=\"").append(ids.get(i)).append("\" town=\"").append(route.town()).append("\">\n");
            if (version == LeaderboardVersion.V1_0) {
                route.positions().forEach(p -> xml.append("      <waypoint pitch=\"0.0\" roll=\"0.0\" x=\"").append(p[0])
                        .append("\" y=\"").append(p[1]).append("\" yaw=\"0.0\" z=\"").append(p[2]).append("\" />\n"));
            } else {
                xml.append("      <weathers>\n         <weather route_percentage=\"0\" cloudiness=\"5.0\"/>\n")
                        .append("      </weathers>\n      <waypoints>\n");
                route.positions().forEach(p -> xml.append("         <position x=\"").append(p[0]).append("\" y=\"")
                        .append(p[1]).append("\" z=\"").append(p[2]).append("\"/>\n"));
                xml.append("      </waypoints>\n      <scenarios>\n      </scenarios>\n");
            }
            xml.append("   </route>\n");
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        return Files.writeString(file, xml.append("</routes>\n"));
    }

    /** {@code count} ids from {@code first}: 0…n−1 as the public routes files number them, or any other start. */
    public static List<String> ids(int first, int count) {
        var ids = new ArrayList<String>();
        for (int i = 0; i < count; i++) {
            ids.add(Integer.toString(first + i));
        }
        return ids;
    }

    private static List<Demo> demo() throws IOException {
        try (InputStream in = StandInRoutes.class.getResourceAsStream(DEMO)) {
            if (in == null) {
                throw new IOException(DEMO + " is not on the class path");
            }
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            NodeList routes = factory.newDocumentBuilder().parse(in).getElementsByTagName("route");
            var demo = new ArrayList<Demo>();
            for (int i = 0; i < routes.getLength(); i++) {
                Element route = (Element) routes.item(i);
                NodeList positions = route.getElementsByTagName("position");
                var points = new ArrayList<String[]>();
                for (int j = 0; j < positions.getLength(); j++) {
                    Element p = (Element) positions.item(j);
                    points.add(new String[] { p.getAttribute("x"), p.getAttribute("y"), p.getAttribute("z") });
                }
                demo.add(new Demo(route.getAttribute("town"), points));
            }
            return demo;
        } catch (ParserConfigurationException | SAXException e) {
            throw new IOException("cannot read " + DEMO + ": " + e.getMessage(), e);
        }
    }
}
