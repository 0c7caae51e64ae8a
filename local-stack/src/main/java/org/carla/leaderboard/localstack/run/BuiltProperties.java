package org.carla.leaderboard.localstack.run;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

import org.carla.leaderboard.localstack.ServiceAccount;

import io.fabric8.kubernetes.api.model.Quantity;

/**
 * The {@code application.properties} a module's build packaged ({@code <module>/target/classes}): its jar and its
 * native executable carry the same file, and its manifest is generated from it.
 */
public record BuiltProperties(Path file, Properties properties) {

    static final String MEMORY_LIMIT_KEY = "quarkus.kubernetes.resources.limits.memory";
    private static final long MIB = 1024 * 1024;

    /** The built file of {@code module} in {@code projectDir}. */
    public static BuiltProperties of(Path projectDir, String module) {
        Path file = projectDir.resolve(module).resolve("target/classes/application.properties");
        var properties = new Properties();
        try (var in = Files.newInputStream(file)) {
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + module + "'s built " + file, e);
        }
        return new BuiltProperties(file, properties);
    }

    /** The ServiceAccount its manifest names. */
    public ServiceAccount serviceAccount() {
        return ServiceAccount.of(properties).orElseThrow(() -> new IllegalStateException(
                file + " names no ServiceAccount for the service"));
    }

    /**
     * {@code -XX:MaxRAM} at its pod's memory limit ({@value #MEMORY_LIMIT_KEY}): a JVM or a native executable in the
     * pod sizes its heap from that limit, and so does a process given this option.
     */
    public String maxRamOption() {
        String limit = properties.getProperty(MEMORY_LIMIT_KEY, "").trim();
        long bytes;
        try {
            bytes = Quantity.getAmountInBytes(new Quantity(limit)).longValueExact();
        } catch (RuntimeException e) {
            throw new IllegalStateException("not a memory limit: '" + limit + "' (" + MEMORY_LIMIT_KEY + " in " + file
                    + ")", e);
        }
        if (bytes <= 0) {
            throw new IllegalStateException("no memory limit: '" + limit + "' (" + MEMORY_LIMIT_KEY + " in " + file + ")");
        }
        return "-XX:MaxRAM=" + (bytes % MIB == 0 ? bytes / MIB + "m" : Long.toString(bytes));
    }
}
