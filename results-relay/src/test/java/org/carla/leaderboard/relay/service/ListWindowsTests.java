package org.carla.leaderboard.relay.service;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.carla.leaderboard.relay.client.ListWindow;
import org.junit.jupiter.api.Test;

class ListWindowsTests {

    private static final Instant NOW = Instant.parse("2026-11-27T10:00:00.700Z");

    @Test
    void runsSubmittedCloseTogetherShareOneListBoundedOnBothSidesToTheSecond() {
        var groups = ListWindows.cover(List.of("a", "b", "c"), submitted(Map.of("a", NOW.minusSeconds(1800),
                "b", NOW, "c", NOW.minusSeconds(3000))));

        assertThat(groups).singleElement().satisfies(group -> {
            assertThat(group.runs()).containsExactly("c", "a", "b");
            assertThat(group.window()).isEqualTo(new ListWindow(Optional.of(Instant.parse("2026-11-27T09:09:59Z")),
                    Optional.of(Instant.parse("2026-11-27T10:00:01Z"))));
        });
    }

    /**
     * A resumed submission keeps its first submitted_at: it is listed alone, in a window of its own seconds, so the
     * challenge's cancelled history between it and today's runs is never read.
     */
    @Test
    void aRunSubmittedLongBeforeTheOthersIsListedApart() {
        Instant resumed = NOW.minus(Duration.ofDays(30));
        var groups = ListWindows.cover(List.of("today", "resumed", "soon"), submitted(Map.of("today", NOW,
                "resumed", resumed, "soon", NOW.plusSeconds(5))));

        assertThat(groups).hasSize(2);
        assertThat(groups.get(0).runs()).containsExactly("resumed");
        assertThat(groups.get(0).window().after()).contains(Instant.parse("2026-10-28T09:59:59Z"));
        assertThat(groups.get(0).window().before()).contains(Instant.parse("2026-10-28T10:00:01Z"));
        assertThat(groups.get(1).runs()).containsExactly("today", "soon");
    }

    @Test
    void aRunWhoseSubmissionTimeIsNotKnownIsFoundOnlyByOneListOfEverything() {
        var groups = ListWindows.cover(List.of("a", "b"), run -> run.equals("a") ? Optional.of(NOW) : Optional.empty());

        assertThat(groups).singleElement().satisfies(group -> {
            assertThat(group.window()).isEqualTo(ListWindow.ALL);
            assertThat(group.runs()).containsExactly("a", "b");
        });
        assertThat(ListWindows.cover(List.<String>of(), run -> Optional.of(NOW))).isEmpty();
    }

    private static java.util.function.Function<String, Optional<Instant>> submitted(Map<String, Instant> times) {
        return run -> Optional.ofNullable(times.get(run));
    }
}
