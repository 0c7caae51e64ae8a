package org.carla.leaderboard.benchmarks;

import java.util.Random;

import org.carla.leaderboard.domain.ledger.ExpectedDuration;
import org.carla.leaderboard.domain.ledger.RouteDurations;

/**
 * Benchmark 7's routes: how long each route of a submission takes, and how long the ledger expects it to take.
 * <ul>
 * <li>A route's wall time is lognormal with mean {@link #MEAN_SECONDS} and coefficient of variation {@code cv}.
 * <li>Heavy tail (when {@code stuckShare} > 0): that share of the routes gets stuck and runs into its route timeout,
 * modelled as {@link #TIMEOUT_FACTOR} × the route's own time. Nothing predicts it.
 * <li>The expectation is the track's recorded mean of the route ({@link ExpectedDuration} from a {@link RouteDurations}
 * of earlier submissions), off by up to ±30 % (uniform) from the route's time without the tail.
 * </ul>
 */
final class RouteDurationModel {

    static final double MEAN_SECONDS = 900;
    static final double TIMEOUT_FACTOR = 3;
    static final double ESTIMATE_ERROR = 0.30;

    /** One submission's routes: their wall times and the ledger's expected seconds. */
    record Routes(double[] seconds, double[] expected) {

        double sum() {
            double sum = 0;
            for (double s : seconds) {
                sum += s;
            }
            return sum;
        }

        double longest() {
            double longest = 0;
            for (double s : seconds) {
                longest = Math.max(longest, s);
            }
            return longest;
        }
    }

    private final double cv;
    private final double stuckShare;

    RouteDurationModel(double cv, double stuckShare) {
        this.cv = cv;
        this.stuckShare = stuckShare;
    }

    Routes draw(int routes, Random random) {
        double sigma2 = Math.log(1 + cv * cv);
        double mu = Math.log(MEAN_SECONDS) - sigma2 / 2;
        double[] seconds = new double[routes];
        double[] expected = new double[routes];
        for (int i = 0; i < routes; i++) {
            double usual = Math.exp(mu + Math.sqrt(sigma2) * random.nextGaussian());
            double recordedMean = usual * (1 + ESTIMATE_ERROR * (2 * random.nextDouble() - 1));
            expected[i] = ExpectedDuration.seconds(new RouteDurations(3, recordedMean), 0,
                    ExpectedDuration.NOMINAL_SPEED);
            seconds[i] = random.nextDouble() < stuckShare ? usual * TIMEOUT_FACTOR : usual;
        }
        return new Routes(seconds, expected);
    }

    String describe() {
        return "lognormal CV " + cv + (stuckShare > 0 ? ", " + Math.round(stuckShare * 100) + " % stuck to the timeout ("
                + (int) TIMEOUT_FACTOR + "×)" : "");
    }
}
