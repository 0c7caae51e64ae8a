package org.carla.leaderboard.domain.event;

/** The invariants the event records check in their constructors, so a bad event names the field at fault. */
final class Require {

    private Require() {
    }

    static <T> T present(T value, String field) {
        if (value == null) {
            throw MalformedEventException.missing(field);
        }
        return value;
    }

    static String text(String value, String field) {
        if (value == null || value.isBlank()) {
            throw MalformedEventException.missing(field);
        }
        return value;
    }

    static long positive(long value, String field) {
        if (value <= 0) {
            throw MalformedEventException.invalid(field, "must be a positive integer, was " + value);
        }
        return value;
    }

    static int atLeast(int value, int min, String field) {
        if (value < min) {
            throw MalformedEventException.invalid(field, "must be at least " + min + ", was " + value);
        }
        return value;
    }

    static int run(int value) {
        return atLeast(value, 1, "run");
    }

    /** Lower-case letters, digits, '.', '_' and '-': safe as a key part, a label or a file name. */
    static String identifier(String value, String field) {
        if (!value.matches("[a-z0-9][a-z0-9._-]{0,62}")) {
            throw MalformedEventException.invalid(field, "must be lower-case letters, digits, '.', '_' or '-'"
                    + " (at most 63)");
        }
        return value;
    }

    static int version(int value) {
        if (value != EventCodec.VERSION) {
            throw new MalformedEventException(MalformedEventException.Reason.UNSUPPORTED_VERSION, "version",
                    "this service reads version " + EventCodec.VERSION + ", the event has " + value);
        }
        return value;
    }
}
