package org.carla.leaderboard.domain.event;

import java.math.BigInteger;
import java.util.regex.Pattern;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.InjectableValues;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.exc.InvalidTypeIdException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/**
 * The JSON form of every queue event, in one place: snake-case fields, ISO-8601 instants, unknown fields ignored
 * (a newer producer may add some). Parsing never throws anything but {@link MalformedEventException}, which names the
 * field at fault. Written text is plain ASCII: every other character is escaped ({@code \\uFFFE}), so a value EvalAI
 * allows (a team name with U+FFFF or a lone surrogate, which SQS refuses raw) travels as data.
 */
public final class EventCodec {

    /** The version of the events this code writes and reads; 2 added the run to every event. */
    public static final int VERSION = 2;

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .propertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
            .addModule(new JavaTimeModule())
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
            .enable(JsonWriteFeature.ESCAPE_NON_ASCII)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_MISSING_CREATOR_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .injectableValues(new InjectableValues.Std().addValue(JobFinished.ABSENT, null))
            .build();

    private static final Pattern MISSING_PROPERTY = Pattern.compile("^Missing (?:required )?creator property '([^']*)'");
    private static final Pattern NUMERIC = Pattern.compile("\\s*\\+?[0-9]+\\s*");

    private EventCodec() {
    }

    /** The mapper configured for the events; do not reconfigure it. */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    public static String write(Object event) {
        try {
            return MAPPER.writeValueAsString(event);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + event.getClass().getSimpleName(), e);
        }
    }

    public static LaunchRequest parseLaunchRequest(String body) {
        return read(body, LaunchRequest.class);
    }

    /** A lifecycle event of {@code submission-events}. */
    public static SubmissionEvent parseSubmissionEvent(String body) {
        return read(body, SubmissionEvent.class);
    }

    /** A report of {@code progress-reports}; a lifecycle event there is refused as of an unknown type. */
    public static Progress parseProgress(String body) {
        JsonNode type = tree(body).path("type");
        if (!type.isMissingNode() && !Progress.TYPE.equals(type.asText())) {
            throw new MalformedEventException(MalformedEventException.Reason.UNKNOWN_TYPE, "type",
                    "progress-reports carries only '" + Progress.TYPE + "', not '" + type.asText() + "'");
        }
        return read(body, Progress.class);
    }

    /**
     * Reads EvalAI's message. The pks may be JSON numbers or numeric strings; they must be positive integers that fit
     * in 64 bits. {@code submitted_image_uri} is optional here (a cancelled submission needs none); whoever launches
     * checks it with {@link ImageReference}.
     */
    public static SubmissionAnnounced parseAnnouncement(String body) {
        JsonNode root = tree(body);
        if (!root.isObject()) {
            throw new MalformedEventException(MalformedEventException.Reason.WRONG_TYPE, "$",
                    "expected a JSON object, got " + root.getNodeType().name().toLowerCase());
        }
        long challenge = primaryKey(root, "challenge_pk");
        long phase = primaryKey(root, "phase_pk");
        long submission = primaryKey(root, "submission_pk");
        String image = null;
        JsonNode imageNode = root.get("submitted_image_uri");
        if (imageNode != null && !imageNode.isNull()) {
            if (!imageNode.isTextual()) {
                throw new MalformedEventException(MalformedEventException.Reason.WRONG_TYPE, "submitted_image_uri",
                        "expected a string");
            }
            image = imageNode.asText();
        }
        boolean staticUpload = false;
        JsonNode staticNode = root.get("is_static_dataset_code_upload_submission");
        if (staticNode != null && !staticNode.isNull()) {
            if (staticNode.isBoolean()) {
                staticUpload = staticNode.booleanValue();
            } else if (staticNode.isTextual() && staticNode.asText().matches("(?i)true|false")) {
                staticUpload = Boolean.parseBoolean(staticNode.asText());
            } else {
                throw new MalformedEventException(MalformedEventException.Reason.WRONG_TYPE,
                        "is_static_dataset_code_upload_submission", "expected a boolean");
            }
        }
        return new SubmissionAnnounced(challenge, phase, submission, image, staticUpload);
    }

    private static long primaryKey(JsonNode root, String field) {
        JsonNode node = root.get(field);
        if (node == null || node.isNull()) {
            throw MalformedEventException.missing(field);
        }
        BigInteger value;
        if (node.isIntegralNumber()) {
            value = node.bigIntegerValue();
        } else if (node.isTextual() && NUMERIC.matcher(node.asText()).matches()) {
            value = new BigInteger(node.asText().trim());
        } else {
            throw new MalformedEventException(MalformedEventException.Reason.WRONG_TYPE, field,
                    "expected an integer or a numeric string");
        }
        if (value.signum() <= 0 || value.bitLength() > 63) {
            throw MalformedEventException.invalid(field, "must be a positive integer below 2^63");
        }
        return value.longValue();
    }

    private static JsonNode tree(String body) {
        if (body == null || body.isBlank()) {
            throw new MalformedEventException(MalformedEventException.Reason.NOT_JSON, "$", "empty message body");
        }
        try {
            return MAPPER.readTree(body);
        } catch (JacksonException e) {
            throw new MalformedEventException(MalformedEventException.Reason.NOT_JSON, "$",
                    "not valid JSON: " + e.getOriginalMessage());
        }
    }

    private static <T> T read(String body, Class<T> type) {
        JsonNode root = tree(body);
        if (!root.isObject()) {
            throw new MalformedEventException(MalformedEventException.Reason.WRONG_TYPE, "$", "expected a JSON object");
        }
        JsonNode version = root.get("version");
        if (version == null || version.isNull()) {
            throw MalformedEventException.missing("version");
        }
        if (!version.canConvertToInt() || version.asInt() != VERSION) {
            throw new MalformedEventException(MalformedEventException.Reason.UNSUPPORTED_VERSION, "version",
                    "this service reads version " + VERSION + ", the event has " + version);
        }
        try {
            return MAPPER.treeToValue(root, type);
        } catch (ValueInstantiationException e) {
            if (e.getCause() instanceof MalformedEventException cause) {
                throw cause.under(parentPath(e));
            }
            throw MalformedEventException.invalid(path(e), e.getOriginalMessage());
        } catch (InvalidTypeIdException e) {
            throw new MalformedEventException(MalformedEventException.Reason.UNKNOWN_TYPE, "type",
                    "unknown or missing event type " + (e.getTypeId() == null ? "" : "'" + e.getTypeId() + "'"));
        } catch (MismatchedInputException e) {
            String message = e.getOriginalMessage();
            var missing = message == null ? null : MISSING_PROPERTY.matcher(message);
            if (missing != null && missing.find()) {
                String path = path(e);
                String field = missing.group(1);
                throw MalformedEventException.missing(
                        path.equals(field) || path.endsWith("." + field) ? path : join(parentPath(e), field));
            }
            throw new MalformedEventException(MalformedEventException.Reason.WRONG_TYPE, path(e),
                    "wrong type: " + firstLine(message));
        } catch (JsonMappingException e) {
            throw MalformedEventException.invalid(path(e), firstLine(e.getOriginalMessage()));
        } catch (InputCoercionException e) {
            throw MalformedEventException.invalid("$", "number out of range: " + firstLine(e.getOriginalMessage()));
        } catch (JacksonException e) {
            throw MalformedEventException.invalid("$", firstLine(e.getOriginalMessage()));
        }
    }

    private static String path(JsonMappingException e) {
        var path = new StringBuilder();
        for (var ref : e.getPath()) {
            if (ref.getFieldName() != null) {
                if (!path.isEmpty()) {
                    path.append('.');
                }
                path.append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                path.append('[').append(ref.getIndex()).append(']');
            }
        }
        return path.isEmpty() ? "$" : path.toString();
    }

    /** For an error raised while building an object: the path of that object (the last reference names a field of it only for nested ones). */
    private static String parentPath(JsonMappingException e) {
        String path = path(e);
        return "$".equals(path) ? "" : path;
    }

    private static String join(String parent, String field) {
        return parent.isEmpty() ? field : parent + "." + field;
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
