package org.carla.leaderboard.domain.results;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The 15 metrics of a submission's global results, in the order of the checkpoint's {@code values} / {@code labels}
 * and of EvalAI's {@code accuracies}: the three score means, then the infraction totals.
 */
public enum Metric {
    DRIVING_SCORE("Avg. driving score", "Driving score", global -> global.scoresMean().scoreComposed()),
    ROUTE_COMPLETION("Avg. route completion", "Route completion", global -> global.scoresMean().scoreRoute()),
    INFRACTION_PENALTY("Avg. infraction penalty", "Infraction penalty",
            global -> global.scoresMean().scorePenalty()),
    COLLISIONS_PEDESTRIANS("Collisions with pedestrians", "Collisions pedestrians", Infraction.COLLISIONS_PEDESTRIAN),
    COLLISIONS_VEHICLES("Collisions with vehicles", "Collisions vehicles", Infraction.COLLISIONS_VEHICLE),
    COLLISIONS_LAYOUT("Collisions with layout", "Collisions layout", Infraction.COLLISIONS_LAYOUT),
    RED_LIGHT_INFRACTIONS("Red lights infractions", "Red light infractions", Infraction.RED_LIGHT),
    STOP_SIGN_INFRACTIONS("Stop sign infractions", "Stop sign infractions", Infraction.STOP_INFRACTION),
    OFF_ROAD_INFRACTIONS("Off-road infractions", "Off-road infractions", Infraction.OUTSIDE_ROUTE_LANES),
    ROUTE_DEVIATIONS("Route deviations", "Route deviations", Infraction.ROUTE_DEV),
    ROUTE_TIMEOUTS("Route timeouts", "Route timeouts", Infraction.ROUTE_TIMEOUT),
    AGENT_BLOCKED("Agent blocked", "Agent blocked", Infraction.VEHICLE_BLOCKED),
    YIELD_EMERGENCY_VEHICLE_INFRACTIONS("Yield emergency vehicles infractions", "Yield emergency vehicle infractions",
            Infraction.YIELD_EMERGENCY_VEHICLE_INFRACTIONS),
    SCENARIO_TIMEOUTS("Scenario timeouts", "Scenario timeouts", Infraction.SCENARIO_TIMEOUTS),
    MIN_SPEED_INFRACTIONS("Min speed infractions", "Min speed infractions", Infraction.MIN_SPEED_INFRACTIONS);

    private static final List<String> LABELS = Arrays.stream(values()).map(Metric::label).toList();

    private final String label;
    private final String accuracy;
    private final ToDoubleFunction<GlobalRecord> value;

    Metric(String label, String accuracy, ToDoubleFunction<GlobalRecord> value) {
        this.label = label;
        this.accuracy = accuracy;
        this.value = value;
    }

    Metric(String label, String accuracy, Infraction infraction) {
        this(label, accuracy, global -> global.infraction(infraction));
    }

    /** The checkpoint's label: {@code Avg. driving score}. */
    public String label() {
        return label;
    }

    /** The key in EvalAI's {@code accuracies}: {@code Driving score}. */
    public String accuracy() {
        return accuracy;
    }

    /** The key of this metric in the submissions table: {@code driving_score}, {@code off-road_infractions}. */
    public String attribute() {
        return snakeCase(accuracy);
    }

    public double of(GlobalRecord global) {
        return value.applyAsDouble(global);
    }

    /** All labels in order, as the checkpoint's {@code labels}. */
    public static List<String> labels() {
        return LABELS;
    }

    /** How an accuracy's name becomes an attribute name: lower case, spaces to underscores (hyphens stay). */
    public static String snakeCase(String accuracy) {
        return accuracy.strip().toLowerCase(Locale.ROOT).replace(' ', '_');
    }
}
