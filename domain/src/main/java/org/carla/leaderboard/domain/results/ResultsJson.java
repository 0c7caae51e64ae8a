package org.carla.leaderboard.domain.results;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;

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

    /** The largest results file read: a Leaderboard checkpoint of thousands of routes is a few MiB. */
    public static final long MAX_FILE_BYTES = 16L * 1024 * 1024;

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

    /**
     * Reads a results file: a regular file of at most {@link #MAX_FILE_BYTES}, not through a symbolic link (the agent
     * container, where a participant's code runs, writes it).
     *
     * @throws IllegalArgumentException when it is empty, too large, not a regular file, or not a results file
     */
    public static CheckpointFile read(Path path) throws IOException {
        if (!Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).isRegularFile()) {
            throw new IllegalArgumentException("not a regular file (a link, a folder, a pipe or a device)");
        }
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
            return parse(readBounded(channel));
        }
    }

    /**
     * The text of an open file, of at most {@link #MAX_FILE_BYTES}. Positional reads: on a pipe they fail at once
     * instead of waiting for a writer.
     *
     * @throws IllegalArgumentException when the file holds more
     */
    public static String readBounded(FileChannel channel) throws IOException {
        var buffer = ByteBuffer.allocate((int) Math.min(MAX_FILE_BYTES + 1, Math.max(channel.size(), 0) + 1));
        long position = 0;
        while (true) {
            if (!buffer.hasRemaining()) {
                if (buffer.capacity() > MAX_FILE_BYTES) {
                    throw new IllegalArgumentException("larger than " + MAX_FILE_BYTES / (1024 * 1024) + " MiB");
                }
                buffer = ByteBuffer.allocate((int) Math.min(MAX_FILE_BYTES + 1, buffer.capacity() * 2L))
                        .put(buffer.flip());
            }
            int read = channel.read(buffer, position);
            if (read < 0) {
                break;
            }
            position += read;
        }
        return new String(buffer.array(), 0, buffer.position(), StandardCharsets.UTF_8);
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

    /** Replaces a file's text in one step, never through a link, readable by every container ({@link AtomicFile}). */
    public static void writeText(Path path, String text) {
        try {
            AtomicFile.replace(path, text.getBytes(StandardCharsets.UTF_8));
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
