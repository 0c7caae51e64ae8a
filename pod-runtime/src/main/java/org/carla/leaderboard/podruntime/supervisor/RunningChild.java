package org.carla.leaderboard.podruntime.supervisor;

import java.time.Duration;
import java.time.Instant;
import java.util.OptionalInt;

/** A started child: its exit, its last output, and a stop that reaches its whole process group. */
public interface RunningChild {

    long pid();

    /** The exit code once the child has ended; empty while it runs. */
    OptionalInt exitCode();

    /** When the child last wrote a line (its start, before the first one). */
    Instant lastOutput();

    /** SIGTERM to every process of the child's group, then SIGKILL to what is left after {@code grace}. */
    void stop(Duration grace);
}
