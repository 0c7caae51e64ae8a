package org.carla.leaderboard.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What the machine is doing: the load average next to every figure, and a process's resident memory. */
final class Machine {

    private Machine() {
    }

    /** The 1-minute load average, from /proc/loadavg. */
    static double load() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    static String loadText() {
        return Samples.fmt(load());
    }

    /** CPU time (user + system) a live process used so far, in ms, from /proc/<pid>/stat (100 ticks a second). */
    static double cpuMs(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // after the command: state(3) ppid(4) ... utime(14) stime(15), i.e. indexes 11 and 12 here
            return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10.0;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    /** VmRSS of a live process in MB (1024 × 1024 bytes), or NaN when it is gone. */
    static double rssMb(long pid) {
        return statusKb(pid, "VmRSS:") / 1024.0;
    }

    /** VmHWM (peak resident memory) in MB. */
    static double peakRssMb(long pid) {
        return statusKb(pid, "VmHWM:") / 1024.0;
    }

    private static double statusKb(long pid, String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith(field)) {
                    return Double.parseDouble(line.substring(field.length()).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
        return Double.NaN;
    }
}
