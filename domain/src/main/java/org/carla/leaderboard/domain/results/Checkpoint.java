package org.carla.leaderboard.domain.results;

import java.io.IOException;
import java.util.List;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * The {@code _checkpoint} object: the global record ({@code null} here, {@code {}} in JSON, until computed), the
 * progress {@code [routes_done, routes_total]} (empty before the start) and the finished route records.
 */
@RegisterForReflection
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonPropertyOrder({ "global_record", "progress", "records" })
public record Checkpoint(
        @JsonProperty("global_record")
        @JsonInclude(JsonInclude.Include.ALWAYS)
        @JsonSerialize(nullsUsing = Checkpoint.EmptyObject.class)
        @JsonDeserialize(using = Checkpoint.GlobalRecordOrEmpty.class)
        GlobalRecord globalRecord,
        @JsonProperty("progress") List<Integer> progress,
        @JsonProperty("records") List<RouteRecord> records) {

    public Checkpoint {
        progress = progress == null ? List.of() : List.copyOf(progress);
        records = records == null ? List.of() : List.copyOf(records);
    }

    public static Checkpoint empty() {
        return new Checkpoint(null, List.of(), List.of());
    }

    /** {@code progress[0]}, or 0 when there is no progress yet. */
    public int routesDone() {
        return progress.isEmpty() ? 0 : progress.get(0);
    }

    /** {@code progress[1]}, or 0 when there is no progress yet. */
    public int routesTotal() {
        return progress.size() < 2 ? 0 : progress.get(1);
    }

    /** Writes an absent global record as {@code {}}, as the Leaderboard does. */
    @RegisterForReflection
    public static final class EmptyObject extends JsonSerializer<Object> {
        @Override
        public void serialize(Object value, JsonGenerator generator, SerializerProvider provider) throws IOException {
            generator.writeStartObject();
            generator.writeEndObject();
        }
    }

    /** Reads {@code {}} as no global record. */
    @RegisterForReflection
    public static final class GlobalRecordOrEmpty extends JsonDeserializer<GlobalRecord> {
        @Override
        public GlobalRecord deserialize(JsonParser parser, DeserializationContext context) throws IOException {
            JsonNode node = parser.readValueAsTree();
            if (node == null || node.isNull() || (node.isObject() && node.isEmpty())) {
                return null;
            }
            return context.readTreeAsValue(node, GlobalRecord.class);
        }
    }
}
