package org.carla.leaderboard.domain;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.carla.leaderboard.domain.status.StatusFiles;
import org.carla.leaderboard.domain.status.StatusFiles.Role;
import org.junit.jupiter.api.Test;

class StatusFilesTests {

    @Test
    void namesFollowTheSeedsProtocol() {
        assertThat(StatusFiles.done(Role.AGENT, 3)).isEqualTo("agent-3.done");
        assertThat(StatusFiles.done(Role.SIMULATOR, 1)).isEqualTo("simulator-1.done");
        assertThat(StatusFiles.crash(Role.AGENT, 2, 0)).isEqualTo("agent-2.crash0");
    }

    @Test
    void crashCountIsPerContainer() {
        var names = List.of("agent-1.crash0", "agent-1.crash1", "simulator-1.crash0", "agent-11.crash0",
                "agent-1.done");
        assertThat(StatusFiles.crashCount(names, Role.AGENT, 1)).isEqualTo(2);
        assertThat(StatusFiles.crashCount(names, Role.SIMULATOR, 1)).isEqualTo(1);
        assertThat(StatusFiles.crashCount(names, Role.AGENT, 2)).isZero();
    }

    @Test
    void restartsAreEachPairContainersStartsButItsFirstSummed() {
        var names = List.of(StatusFiles.start(Role.AGENT, 1, 0), StatusFiles.start(Role.AGENT, 1, 1),
                StatusFiles.start(Role.AGENT, 1, 2), "containers-status/" + StatusFiles.start(Role.SIMULATOR, 1, 0),
                "containers-status/" + StatusFiles.start(Role.SIMULATOR, 1, 1), StatusFiles.start(Role.AGENT, 2, 0),
                "agent-11.start0", "agent-11.start1", "agent-1.crash0", "agent-2.start");
        assertThat(StatusFiles.start(Role.SIMULATOR, 3, 1)).isEqualTo("simulator-3.start1");
        assertThat(StatusFiles.startCount(names, Role.AGENT, 1)).isEqualTo(3);
        assertThat(StatusFiles.startCount(names, Role.AGENT, 2)).isEqualTo(1);
        assertThat(StatusFiles.restarts(names, 2)).isEqualTo(3);
        assertThat(StatusFiles.restarts(names, 11)).isEqualTo(4);
        assertThat(StatusFiles.restarts(List.of(), 4)).isZero();
    }

    @Test
    void allDoneNeedsEveryDoneFile() {
        var names = new ArrayList<String>();
        for (int pair = 1; pair <= 4; pair++) {
            names.add("s3prefix/containers-status/" + StatusFiles.done(Role.AGENT, pair));
            names.add(StatusFiles.done(Role.SIMULATOR, pair));
        }
        assertThat(StatusFiles.allDone(names, 4)).isFalse();
        names.add(StatusFiles.LOGCOPY_DONE);
        assertThat(StatusFiles.allDone(names, 4)).isTrue();
        assertThat(StatusFiles.allDone(names, 5)).isFalse();
    }
}
