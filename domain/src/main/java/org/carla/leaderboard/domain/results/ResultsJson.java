package org.carla.leaderboard.domain.results;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;

/**
 * Reads and writes the results files as the Leaderboard's Python does ({@code json.dump(data, fd, indent=4)}): four
 * spaces, {@code ": "}, {@code []} and {@code {}} when empty, non-ASCII escaped, floats as Python's {@code repr}
 * ({@code 0.0}, {@code 1e-05}), so a file we write reads like the one their scripts write.
 */
public final class ResultsJson {

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .addModule(new SimpleModule("python-floats")
                    .addSerializer(Double.class, new PythonFloatSerializer())
                    .addSerializer(Double.TYPE, new PythonFloatSerializer()))
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .enable(JsonWriteFeature.ESCAPE_NON_ASCII)
            .disable(JsonWriteFeature.WRITE_HEX_UPPER_CASE)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    private static final ObjectWriter WRITER = MAPPER.writer(pythonIndent());

    private ResultsJson() {
    }

    /** The mapper that reads results files (it writes doubles as Python does; do not reconfigure it). */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /** Parses a results file. @throws IllegalArgumentException naming what is wrong when it is not one */
    public static CheckpointFile parse(String json) {
        if (json == null || json.isBlank()) {
            throw new IllegalArgumentException("empty");
        }
        try {
            return MAPPER.readValue(json, CheckpointFile.class);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("not a results file: " + firstLine(e.getOriginalMessage()), e);
        }
    }

    /** Reads a results file. @throws IllegalArgumentException when it is empty or not a results file */
    public static CheckpointFile read(Path path) throws IOException {
        return parse(Files.readString(path, StandardCharsets.UTF_8));
    }

    /** Python's text of any value made of maps, lists, strings, numbers and the results records. */
    public static String write(Object value) {
        try {
            return WRITER.writeValueAsString(value);
        } catch (JacksonException e) {
            throw new IllegalStateException("cannot write " + value.getClass().getSimpleName(), e);
        }
    }

    /** Writes the file whole or not at all (a reader or an upload never sees half of it). */
    public static void write(Path path, Object value) {
        writeText(path, write(value));
    }

    /** Replaces a file's text in one step: written next to it, then moved over it. */
    public static void writeText(Path path, String text) {
        try {
            Path parent = path.toAbsolutePath().getParent();
            Files.createDirectories(parent);
            Path temporary = Files.createTempFile(parent, "." + path.getFileName(), ".tmp");
            try {
                Files.writeString(temporary, text, StandardCharsets.UTF_8);
                try {
                    Files.move(temporary, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(temporary, path, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(temporary);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + path, e);
        }
    }

    private static DefaultPrettyPrinter pythonIndent() {
        var indenter = new DefaultIndenter("    ", "\n");
        var separators = Separators.createDefaultInstance()
                .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                .withObjectEmptySeparator("")
                .withArrayEmptySeparator("");
        return new DefaultPrettyPrinter(separators).withObjectIndenter(indenter).withArrayIndenter(indenter);
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    /** Doubles as Python's {@code json} writes floats. */
    private static final class PythonFloatSerializer extends JsonSerializer<Double> {
        @Override
        public void serialize(Double value, JsonGenerator generator, SerializerProvider provider) throws IOException {
            generator.writeNumber(PythonFloat.json(value));
        }
    }
}
