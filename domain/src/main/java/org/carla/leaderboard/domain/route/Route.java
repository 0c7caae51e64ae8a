package org.carla.leaderboard.domain.route;

/**
 * One route of a Leaderboard routes file.
 *
 * @param id        its {@code id} attribute: what {@code --routes-subset} selects, and the number in its records'
 *                  route ids ({@code RouteScenario_<id>_rep<k>})
 * @param town      the CARLA map it is driven in
 * @param waypoints how many waypoints describe it
 * @param length    metres along its waypoints in straight lines: a lower bound of the distance driven (the route
 *                  follows the roads between them)
 */
public record Route(String id, String town, int waypoints, double length) {
}
