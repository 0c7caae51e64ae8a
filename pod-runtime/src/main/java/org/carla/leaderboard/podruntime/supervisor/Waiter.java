package org.carla.leaderboard.podruntime.supervisor;

import java.time.Duration;
import java.util.Set;

/** The status files a container waits for (Tekton's waiter): what is there now, and a bounded sleep until it may change. */
public interface Waiter {

    /** The names of the status files present now. */
    Set<String> present();

    /** Sleeps until a status file may have appeared, something else rang the wake-up, or {@code max} has passed. */
    void awaitChange(Duration max) throws InterruptedException;
}
