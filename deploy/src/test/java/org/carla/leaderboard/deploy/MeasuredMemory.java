package org.carla.leaderboard.deploy;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The services' resident memory as benchmarks/README.md last measured it for the native executables the released images
 * hold (rows 4c and 4d of its table with "native executable": "idle / after the intake"), so a memory limit is checked
 * against the measurement it rests on, not against a number typed twice. The JVM rows beside them do not count: no
 * image runs a JVM.
 */
final class MeasuredMemory {

    private static final Pattern ROW = Pattern.compile(
            "^\\| 4[cd] \\| ([a-z-]+) RSS \\(native executable[^)]*\\)[^|]*\\| ([0-9.]+) MB / ([0-9.]+) MB[^|]*\\|",
            Pattern.MULTILINE);

    private MeasuredMemory() {
    }

    /** Service → RSS in MiB after the intake benchmark (1,050 submissions), the larger of its two figures. */
    static Map<String, Double> afterTheIntake() {
        Map<String, Double> measured = new TreeMap<>();
        Matcher row = ROW.matcher(DeployFiles.read(DeployFiles.root().resolve("benchmarks/README.md")));
        while (row.find()) {
            measured.put(row.group(1), Double.parseDouble(row.group(3)));
        }
        return measured;
    }
}
