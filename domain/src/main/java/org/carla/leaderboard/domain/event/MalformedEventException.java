package org.carla.leaderboard.domain.event;

/**
 * A queue message that cannot be taken: it is not JSON, a field is missing, has the wrong type or an invalid value,
 * or it speaks a version or event type this code does not know. Consumers send such a message to the dead-letter
 * queue, log {@link #getMessage()} and count it by {@link #reason()}.
 */
public final class MalformedEventException extends RuntimeException {

    public enum Reason {
        NOT_JSON,
        MISSING_FIELD,
        WRONG_TYPE,
        INVALID_VALUE,
        UNKNOWN_TYPE,
        UNSUPPORTED_VERSION;

        /** The form used in metric tags and log lines: {@code missing-field}. */
        public String tag() {
            return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }
    }

    private final Reason reason;
    private final String field;

    public MalformedEventException(Reason reason, String field, String detail) {
        super(reason.tag() + " at '" + field + "': " + detail);
        this.reason = reason;
        this.field = field;
    }

    public static MalformedEventException missing(String field) {
        return new MalformedEventException(Reason.MISSING_FIELD, field, "required field is missing or null");
    }

    public static MalformedEventException invalid(String field, String detail) {
        return new MalformedEventException(Reason.INVALID_VALUE, field, detail);
    }

    /** The same problem, with the field named from the document's root ({@code submission.team_name}). */
    MalformedEventException under(String parentPath) {
        if (parentPath == null || parentPath.isEmpty() || "$".equals(field)) {
            return this;
        }
        var detail = getMessage().substring(getMessage().indexOf("': ") + 3);
        return new MalformedEventException(reason, parentPath + "." + field, detail);
    }

    public Reason reason() {
        return reason;
    }

    /** The JSON field at fault, as a dotted path from the document root; {@code $} for the whole document. */
    public String field() {
        return field;
    }
}
