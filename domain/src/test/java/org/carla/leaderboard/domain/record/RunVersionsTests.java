package org.carla.leaderboard.domain.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class RunVersionsTests {

    private static final RunVersions READ = new RunVersions(2, Optional.of("0123456789abcdef0123456789abcdef01234567"),
            Optional.of("0.9.13"), Optional.empty(), Optional.of("0.9.15"));

    @Test
    void theControlObjectHoldsTheRunAndTheVersionsKnownAndReadsBackTheSame() {
        assertThat(READ.json()).isEqualTo("{\"run\":2,\"leaderboard\":\"0123456789abcdef0123456789abcdef01234567\","
                + "\"scenario_runner\":\"0.9.13\",\"carla_server\":\"0.9.15\"}");
        assertThat(RunVersions.parse(READ.json())).contains(READ);
        assertThat(READ.attribute()).isEqualTo(AttributeValue.fromM(Map.of("run", AttributeValue.fromN("2"),
                "leaderboard", AttributeValue.fromS("0123456789abcdef0123456789abcdef01234567"), "scenario_runner",
                AttributeValue.fromS("0.9.13"), "carla_server", AttributeValue.fromS("0.9.15"))));
        assertThat(RunVersions.of(READ.attribute())).contains(READ);
    }

    @Test
    void aRecordsAttributeThatIsNotOneThisCodeWroteIsNone() {
        assertThat(RunVersions.of(null)).isEmpty();
        assertThat(RunVersions.of(AttributeValue.fromS("-"))).isEmpty();
        assertThat(RunVersions.of(AttributeValue.fromM(Map.of("leaderboard", AttributeValue.fromS("abc"))))).isEmpty();
        assertThat(RunVersions.of(AttributeValue.fromM(Map.of("run", AttributeValue.fromN("0"))))).isEmpty();
        assertThat(RunVersions.of(AttributeValue.fromM(Map.of("run", AttributeValue.fromN("1"), "carla_server",
                AttributeValue.fromS("0.9.15 <b>"))))).isEmpty();
        assertThat(RunVersions.of(AttributeValue.fromM(Map.of("run", AttributeValue.fromN("1"), "scenario_runner",
                AttributeValue.fromN("13"))))).contains(new RunVersions(1, Optional.empty(), Optional.empty(),
                        Optional.empty(), Optional.empty()));
    }

    @Test
    void onlyVersionsAreKeptAndAnObjectThatIsNotOneIsNoneAtAll() {
        assertThatThrownBy(() -> new RunVersions(1, Optional.of("0.9.13; rm -rf /"), Optional.empty(),
                Optional.empty(), Optional.empty())).hasMessage("not a version: 0.9.13; rm -rf /");
        assertThatThrownBy(() -> new RunVersions(0, Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty()))
                .hasMessage("a run is numbered from 1, not 0");
        assertThat(RunVersions.parse("{\"run\":1,\"scenario_runner\":\"<script>\"}")).isEmpty();
        assertThat(RunVersions.parse("{\"run\":\"one\"}")).isEmpty();
        assertThat(RunVersions.parse("[1]")).isEmpty();
        assertThat(RunVersions.parse("not json")).isEmpty();
        assertThat(RunVersions.parse("{\"run\":1,\"leaderboard\":\"" + "a".repeat(5000) + "\"}")).isEmpty();
        assertThat(RunVersions.parse("{\"run\":1,\"carla_python_api\":15}")).contains(new RunVersions(1,
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty()));
        assertThat(RunVersions.parse("{\"run\":1,\"carla_server\":\"0.9.15\\n$(id)\"}")).isEmpty();
    }
}
