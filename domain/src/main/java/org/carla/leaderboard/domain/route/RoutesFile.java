package org.carla.leaderboard.domain.route;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.regex.Pattern;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;

import org.carla.leaderboard.domain.results.RouteRecordCheck;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * A Leaderboard routes file ({@code <routes><route id="3" town="Town12">...}), read as both branches'
 * {@code route_parser.py} read it: the routes in file order, each with its waypoints — Leaderboard 2.0's
 * {@code <waypoints><position x y z/>}, 1.0's {@code <waypoint x y z .../>} children. Every id is a whole number written
 * in digits and appears once: the results read a route's number from its records' ids, and 2.0's subset parser sorts
 * the ids it selects with {@code int()}. The file is the Leaderboard image's, read by pod-runtime's agent role (which
 * passes each pair the ids of its share) and by the evaluator stand-in.
 */
public final class RoutesFile {

    /** Far above a real routes file (2.0's training routes are under 1 MB); bounds what a bad file costs. */
    public static final long MAX_BYTES = 64L * 1024 * 1024;
    private static final Pattern ID = Pattern.compile("[0-9]{1,9}");

    private final List<Route> routes;

    private RoutesFile(List<Route> routes) {
        this.routes = List.copyOf(routes);
    }

    /**
     * @throws IOException              when the file cannot be read
     * @throws IllegalArgumentException naming the file and what is wrong with it
     */
    public static RoutesFile read(Path file) throws IOException {
        if (Files.size(file) > MAX_BYTES) {
            throw new IllegalArgumentException("routes file " + file + " is larger than " + MAX_BYTES + " bytes");
        }
        try (InputStream in = Files.newInputStream(file)) {
            return parse(in, file.toString());
        }
    }

    /** @throws IllegalArgumentException naming {@code name} and what is wrong with the file */
    public static RoutesFile parse(InputStream xml, String name) throws IOException {
        NodeList elements;
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            elements = factory.newDocumentBuilder().parse(xml).getElementsByTagName("route");
        } catch (SAXException e) {
            throw new IllegalArgumentException("routes file " + name + " is not XML: " + e.getMessage(), e);
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException("the JDK's XML parser lacks a secure-processing feature", e);
        }
        var routes = new ArrayList<Route>();
        var ids = new HashSet<String>();
        for (int i = 0; i < elements.getLength(); i++) {
            Route route = route((Element) elements.item(i), name);
            if (!ids.add(route.id())) {
                throw new IllegalArgumentException("routes file " + name + " holds route id '" + route.id()
                        + "' twice");
            }
            routes.add(route);
        }
        if (routes.isEmpty()) {
            throw new IllegalArgumentException("routes file " + name + " holds no <route>");
        }
        return new RoutesFile(routes);
    }

    /** Every route, in file order. */
    public List<Route> routes() {
        return routes;
    }

    public int size() {
        return routes.size();
    }

    /**
     * The {@code --routes-subset} that selects the routes at positions {@code from} (inclusive) to {@code to}
     * (exclusive) of the file: {@code <first id>-<last id>} (both branches run a range in file order from its first id
     * to its last), or the one id of a single route (1.0's parser refuses a range whose ends are the same id).
     */
    public String subset(int from, int to) {
        if (from < 0 || to > routes.size() || to <= from) {
            throw new IllegalArgumentException("no routes at positions " + from + " to " + to + " of " + routes.size());
        }
        String first = routes.get(from).id();
        return to - from == 1 ? first : first + "-" + routes.get(to - 1).id();
    }

    private static Route route(Element route, String name) {
        String id = route.getAttribute("id");
        if (!ID.matcher(id).matches()) {
            throw new IllegalArgumentException("routes file " + name + ": route id '" + RouteRecordCheck.printable(id)
                    + "' is not a whole number of at most 9 digits");
        }
        String town = route.getAttribute("town");
        if (town.isBlank()) {
            throw new IllegalArgumentException("routes file " + name + ": route " + id + " names no town");
        }
        List<double[]> points = waypoints(route, name, id);
        double length = 0;
        for (int i = 1; i < points.size(); i++) {
            double[] a = points.get(i - 1);
            double[] b = points.get(i);
            length += Math.sqrt(Math.pow(b[0] - a[0], 2) + Math.pow(b[1] - a[1], 2) + Math.pow(b[2] - a[2], 2));
        }
        return new Route(id, town, points.size(), length);
    }

    /** 2.0's {@code <waypoints><position/>}, else 1.0's {@code <waypoint/>} children, as x, y, z. */
    private static List<double[]> waypoints(Element route, String name, String id) {
        var points = new ArrayList<double[]>();
        NodeList children = route.getChildNodes();
        for (int i = 0; i < children.getLength(); i++) {
            Node child = children.item(i);
            if (child instanceof Element element && element.getTagName().equals("waypoints")) {
                NodeList positions = element.getElementsByTagName("position");
                for (int j = 0; j < positions.getLength(); j++) {
                    points.add(point((Element) positions.item(j), name, id));
                }
            } else if (child instanceof Element element && element.getTagName().equals("waypoint")) {
                points.add(point(element, name, id));
            }
        }
        return points;
    }

    private static double[] point(Element waypoint, String name, String id) {
        double[] xyz = new double[3];
        String[] axes = { "x", "y", "z" };
        for (int i = 0; i < 3; i++) {
            try {
                xyz[i] = Double.parseDouble(waypoint.getAttribute(axes[i]));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("routes file " + name + ": route " + id + " has a waypoint whose "
                        + axes[i] + " is not a number");
            }
            if (!Double.isFinite(xyz[i])) {
                throw new IllegalArgumentException("routes file " + name + ": route " + id + " has a waypoint whose "
                        + axes[i] + " is not finite");
            }
        }
        return xyz;
    }
}
