package org.carla.leaderboard.domain.results;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Python's float arithmetic where the Leaderboard's results depend on it: {@code round(x, n)} and {@code str(x)} /
 * {@code repr(x)}. Java's {@code Math.round} rounds half up on a scaled value and Java 17's {@code Double.toString}
 * is neither shortest nor in Python's notation, so both are re-stated here on exact decimal values.
 */
public final class PythonFloat {

    private static final MathContext[] NEAREST = new MathContext[18];
    private static final MathContext[] TOWARD_ZERO = new MathContext[18];
    private static final MathContext[] AWAY_FROM_ZERO = new MathContext[18];

    static {
        for (int digits = 1; digits <= 17; digits++) {
            NEAREST[digits] = new MathContext(digits, RoundingMode.HALF_EVEN);
            TOWARD_ZERO[digits] = new MathContext(digits, RoundingMode.DOWN);
            AWAY_FROM_ZERO[digits] = new MathContext(digits, RoundingMode.UP);
        }
    }

    private PythonFloat() {
    }

    /**
     * Python's {@code round(x, ndigits)} of a float: half-even on the exact binary value ({@code round(2.675, 2)} is
     * 2.67 because 2.675 is stored as 2.67499999...), the sign of a zero result kept.
     */
    public static double round(double x, int ndigits) {
        if (Double.isNaN(x) || Double.isInfinite(x) || x == 0) {
            return x;
        }
        BigDecimal rounded = new BigDecimal(x).setScale(ndigits, RoundingMode.HALF_EVEN);
        // Double.parseDouble is correctly rounded; BigDecimal.doubleValue is not guaranteed to be on Java 17.
        double result = Double.parseDouble(rounded.toString());
        return result == 0 ? Math.copySign(0.0, x) : result;
    }

    /**
     * Python's {@code str(x)} (= {@code repr(x)}) of a float: the shortest decimal that reads back as {@code x} (the
     * closest one when several are as short), in fixed notation with at least one decimal ({@code 0.0}, {@code 12.5},
     * {@code 0.0001}) when the decimal exponent is in [-4, 16), else scientific with a signed two-digit exponent
     * ({@code 1e-05}, {@code 1.5e+16}).
     */
    public static String str(double x) {
        if (Double.isNaN(x)) {
            return "nan";
        }
        if (Double.isInfinite(x)) {
            return x > 0 ? "inf" : "-inf";
        }
        if (x == 0) {
            return 1 / x < 0 ? "-0.0" : "0.0";
        }
        BigDecimal shortest = shortest(x).stripTrailingZeros();
        String digits = shortest.unscaledValue().abs().toString();
        // x = 0.<digits> × 10^point
        int point = digits.length() - shortest.scale();
        var text = new StringBuilder(24);
        if (x < 0) {
            text.append('-');
        }
        if (point > -4 && point <= 16) {
            if (point <= 0) {
                text.append("0.").append("0".repeat(-point)).append(digits);
            } else if (point >= digits.length()) {
                text.append(digits).append("0".repeat(point - digits.length())).append(".0");
            } else {
                text.append(digits, 0, point).append('.').append(digits, point, digits.length());
            }
        } else {
            text.append(digits.charAt(0));
            if (digits.length() > 1) {
                text.append('.').append(digits, 1, digits.length());
            }
            int exponent = point - 1;
            text.append('e').append(exponent < 0 ? '-' : '+');
            int magnitude = Math.abs(exponent);
            if (magnitude < 10) {
                text.append('0');
            }
            text.append(magnitude);
        }
        return text.toString();
    }

    /** How Python's {@code json} module writes a float: {@code repr}, except {@code NaN}, {@code Infinity}. */
    public static String json(double x) {
        if (Double.isNaN(x)) {
            return "NaN";
        }
        if (Double.isInfinite(x)) {
            return x > 0 ? "Infinity" : "-Infinity";
        }
        return str(x);
    }

    private static BigDecimal shortest(double x) {
        BigDecimal exact = new BigDecimal(x);
        for (int digits = 1; digits <= 17; digits++) {
            BigDecimal nearest = exact.round(NEAREST[digits]);
            if (readsBackAs(nearest, x)) {
                return nearest;
            }
            // Next to a power of two the interval that reads back as x is lopsided: the neighbour on the wide side
            // can read back when the nearest one does not.
            BigDecimal down = exact.round(TOWARD_ZERO[digits]);
            BigDecimal other = down.compareTo(nearest) == 0 ? exact.round(AWAY_FROM_ZERO[digits]) : down;
            if (readsBackAs(other, x)) {
                return other;
            }
        }
        return exact.round(NEAREST[17]);
    }

    private static boolean readsBackAs(BigDecimal decimal, double x) {
        return Double.parseDouble(decimal.toString()) == x;
    }
}
