package org.carla.leaderboard.podruntime.supervisor;

import java.io.IOException;

/** Starts the child process of a role (Tekton's runner). */
public interface Runner {

    RunningChild start(ChildSpec spec) throws IOException;
}
