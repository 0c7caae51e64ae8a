package org.carla.leaderboard.localstack.standin;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;

import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * A Leaderboard routes file ({@code <routes><route id="0" town="Town12">...}) and the route subset syntax of the
 * evaluator's {@code --routes-subset}: ids and ranges separated by commas ({@code 0-4}, {@code 1,3,5-7}); a range runs
 * in file order from its first id to its last.
 */
public final class RoutesFile {

    public record Route(String id, String town, int waypoints) {
    }

    private RoutesFile() {
    }

    public static List<Route> read(Path file, String subset) throws IOException {
        List<Route> all = new ArrayList<>();
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            NodeList routes = factory.newDocumentBuilder().parse(file.toFile()).getElementsByTagName("route");
            for (int i = 0; i < routes.getLength(); i++) {
                Element route = (Element) routes.item(i);
                all.add(new Route(route.getAttribute("id"), route.getAttribute("town"),
                        route.getElementsByTagName("position").getLength()));
            }
        } catch (ParserConfigurationException | SAXException e) {
            throw new IOException("cannot read routes file " + file + ": " + e.getMessage(), e);
        }
        if (subset == null || subset.isBlank()) {
            return all;
        }
        Set<String> chosen = subsetIds(all, subset);
        List<Route> result = new ArrayList<>();
        for (Route route : all) {
            if (chosen.contains(route.id())) {
                result.add(route);
            }
        }
        return result;
    }

    static Set<String> subsetIds(List<Route> all, String subset) {
        Set<String> ids = new LinkedHashSet<>();
        for (String group : subset.replace(" ", "").split(",")) {
            if (group.contains("-")) {
                String[] ends = group.split("-", 2);
                boolean inside = false;
                boolean ended = false;
                for (Route route : all) {
                    if (!inside && route.id().equals(ends[1]) && !route.id().equals(ends[0])) {
                        throw new IllegalArgumentException("Malformed route subset '" + group
                                + "', found the end id before the starting one");
                    }
                    if (!inside && route.id().equals(ends[0])) {
                        inside = true;
                    }
                    if (inside && !ended) {
                        add(ids, route.id());
                        ended = route.id().equals(ends[1]);
                    }
                }
                if (!inside) {
                    throw new IllegalArgumentException("Couldn't find the route with id '" + ends[0] + "'");
                }
                if (!ended) {
                    throw new IllegalArgumentException("Couldn't find the route with id '" + ends[1] + "'");
                }
            } else {
                if (all.stream().noneMatch(route -> route.id().equals(group))) {
                    throw new IllegalArgumentException("Couldn't find the route with id '" + group + "'");
                }
                add(ids, group);
            }
        }
        return ids;
    }

    private static void add(Set<String> ids, String id) {
        if (!ids.add(id)) {
            throw new IllegalArgumentException("Found a repeated route with id '" + id + "'");
        }
    }
}
