package org.carla.leaderboard.domain.results;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * A Leaderboard 2.0 results file ({@code agent_results.json}, the merged checkpoint, EvalAI's {@code metadata.json}):
 * the checkpoint, the entry status and eligibility, the sensors ({@link Sensors} names), and the global results as
 * strings ({@code values}) with their {@code labels}. Read and write it with {@link ResultsJson}.
 */
@RegisterForReflection
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonPropertyOrder({ "_checkpoint", "entry_status", "eligible", "sensors", "values", "labels" })
public record CheckpointFile(
        @JsonProperty("_checkpoint") Checkpoint checkpoint,
        @JsonProperty("entry_status") String entryStatus,
        @JsonProperty("eligible") boolean eligible,
        @JsonProperty("sensors") List<String> sensors,
        @JsonProperty("values") List<String> values,
        @JsonProperty("labels") List<String> labels) {

    public CheckpointFile {
        checkpoint = checkpoint == null ? Checkpoint.empty() : checkpoint;
        entryStatus = entryStatus == null ? EntryStatus.STARTED.label() : entryStatus;
        sensors = sensors == null ? List.of() : List.copyOf(sensors);
        values = values == null ? List.of() : List.copyOf(values);
        labels = labels == null ? List.of() : List.copyOf(labels);
    }

    /** What the evaluator starts from: no records, no progress, {@code Started}. */
    public static CheckpointFile empty() {
        return started(List.of(), List.of(), List.of());
    }

    /** A file without global results: entry status {@code Started}, not eligible. */
    public static CheckpointFile started(List<String> sensors, List<Integer> progress, List<RouteRecord> records) {
        return new CheckpointFile(new Checkpoint(null, progress, records), EntryStatus.STARTED.label(), false,
                sensors, List.of(), List.of());
    }

    /** This file with the global record, values, labels and entry status computed by {@link GlobalStatistics}. */
    public CheckpointFile withGlobalResults(GlobalResults results) {
        return new CheckpointFile(new Checkpoint(results.record(), checkpoint.progress(), checkpoint.records()),
                results.entryStatus().label(), results.entryStatus().eligible(), sensors, results.values(),
                Metric.labels());
    }

    /** This file with another entry status (and the eligibility that goes with it). */
    public CheckpointFile withEntryStatus(EntryStatus status) {
        return new CheckpointFile(checkpoint, status.label(), status.eligible(), sensors, values, labels);
    }

    /** Whether the global statistics have been computed. */
    public boolean hasGlobalRecord() {
        return checkpoint.globalRecord() != null;
    }
}
