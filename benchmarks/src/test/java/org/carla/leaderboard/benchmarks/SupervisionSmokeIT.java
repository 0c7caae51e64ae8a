package org.carla.leaderboard.benchmarks;

import java.util.List;

import org.junit.jupiter.api.Test;

/** Benchmark 1 at smoke size, in a JVM of its own beside {@link BenchmarkSmokeIT}: its baseline mostly sleeps. */
class SupervisionSmokeIT {

    @Test
    void measuresEachOfItsRows() throws Exception {
        BenchmarkSmokeIT.assertMeasured(BenchmarkSmokeIT.smoke(1, "benchmark-1"), List.of("1a", "1b", "1c"));
    }
}
