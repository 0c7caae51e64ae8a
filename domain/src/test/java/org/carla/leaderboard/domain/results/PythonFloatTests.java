package org.carla.leaderboard.domain.results;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PythonFloatTests {

    @ParameterizedTest(name = "round({0}, {1}) = {2}")
    @CsvSource({
            "2.675, 2, 2.67", // stored as 2.67499999...
            "0.0005, 3, 0.001", // stored as 0.000500000000000000010...
            "1.0005, 3, 1.0", // stored just below the half
            "0.0015, 3, 0.002",
            "0.125, 2, 0.12", // an exact half goes to even
            "0.375, 2, 0.38",
            "2.5, 0, 2.0",
            "33.3333333333, 6, 33.333333",
            "-1.23456789, 3, -1.235" })
    void roundsHalfEvenOnTheBinaryValue(double x, int digits, double expected) {
        assertThat(PythonFloat.round(x, digits)).isEqualTo(expected);
    }

    @Test
    void roundKeepsTheSignOfAZeroResult() {
        assertThat(PythonFloat.str(PythonFloat.round(-0.0004, 3))).isEqualTo("-0.0");
    }

    @ParameterizedTest(name = "str({0}) = {1}")
    @CsvSource({
            "0.0, 0.0",
            "100.0, 100.0",
            "-12.5, -12.5",
            "0.30000000000000004, 0.30000000000000004",
            "0.0001, 0.0001",
            "0.00001, 1e-05",
            "1.5e-7, 1.5e-07",
            "0.000123456789, 0.000123456789",
            "1234567890123456.0, 1234567890123456.0",
            "1e16, 1e+16",
            "12345678901234567.0, 1.2345678901234568e+16",
            "2.82879384806159e17, 2.82879384806159e+17", // Java 17's Double.toString gives 2.82879384806159008E17
            "1e23, 1e+23",
            "5e-324, 5e-324",
            "1.7976931348623157e308, 1.7976931348623157e+308",
            "5.684341886080802e-14, 5.684341886080802e-14" })
    void printsAsPythonRepr(double x, String expected) {
        assertThat(PythonFloat.str(x)).isEqualTo(expected);
    }

    @Test
    void nonFiniteValues() {
        assertThat(PythonFloat.str(Double.NaN)).isEqualTo("nan");
        assertThat(PythonFloat.str(Double.NEGATIVE_INFINITY)).isEqualTo("-inf");
        assertThat(PythonFloat.json(Double.POSITIVE_INFINITY)).isEqualTo("Infinity");
    }

    /** Thousands of doubles of every magnitude: repr, round(x, 3) and round(x, 6) agree with Python's own. */
    @Test
    void agreesWithPythonOnRandomDoubles(@TempDir Path dir) throws Exception {
        var random = new Random(20241121);
        var values = new ArrayList<Double>();
        for (int i = 0; i < 2000; i++) {
            values.add(Double.longBitsToDouble(random.nextLong())); // any bit pattern
            values.add(random.nextDouble() * 100); // scores
            values.add(Math.round(random.nextDouble() * 1e6) / 1e3 + 0.0005); // near a rounding half
            values.add(random.nextDouble() * Math.pow(10, random.nextInt(40) - 20)); // around the notation switch
            values.add(Math.scalb(1.0, random.nextInt(2000) - 1000)); // powers of two: lopsided intervals
        }
        values.removeIf(value -> Double.isNaN(value) || Double.isInfinite(value));
        var input = new StringBuilder();
        var expected = new ArrayList<String>();
        for (double value : values) {
            input.append(Long.toHexString(Double.doubleToRawLongBits(value))).append('\n');
            expected.add(PythonFloat.str(value) + " " + PythonFloat.str(PythonFloat.round(value, 3)) + " "
                    + PythonFloat.str(PythonFloat.round(value, 6)));
        }
        String script = """
                import struct, sys
                for line in sys.stdin:
                    x = struct.unpack('>d', bytes.fromhex(line.strip().rjust(16, '0')))[0]
                    print(repr(x), repr(round(x, 3)), repr(round(x, 6)))
                """;
        List<String> actual = PythonOracle.run(dir, script, input.toString()).lines().toList();
        assertThat(actual).hasSize(expected.size());
        for (int i = 0; i < expected.size(); i++) {
            assertThat(expected.get(i)).as("value %s", values.get(i)).isEqualTo(actual.get(i));
        }
    }
}
