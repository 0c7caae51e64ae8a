package org.carla.leaderboard.podruntime.supervisor;

/** Writes the status file that tells the other containers how this one ended (Tekton's post writer). */
public interface PostWriter {

    void post(String statusFile);
}
