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

    static int version(int value) {
        if (value != EventCodec.VERSION) {
            throw new MalformedEventException(MalformedEventException.Reason.UNSUPPORTED_VERSION, "version",
                    "this service reads version " + EventCodec.VERSION + ", the event has " + value);
        }
        return value;
    }
}
