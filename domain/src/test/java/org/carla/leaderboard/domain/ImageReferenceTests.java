package org.carla.leaderboard.domain;

import static org.assertj.core.api.Assertions.assertThat;

import org.carla.leaderboard.domain.event.ImageReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ImageReferenceTests {

    @ParameterizedTest
    @ValueSource(strings = { "ubuntu", "library/ubuntu:22.04", "localhost:5000/team/agent:v1.2-rc_3",
            "123456789012.dkr.ecr.us-west-2.amazonaws.com/evalai-submissions/4242:latest",
            "ghcr.io/team/agent@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef" })
    void plainReferencesAreAccepted(String reference) {
        assertThat(ImageReference.isValid(reference)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = { "", "team/agent:v1; rm -rf /", "team/agent:$(id)", "team/agent:`id`",
            "https://registry/team:v1", "Team/Agent", "team/agent:v1 --privileged", "team/agent:v1\n",
            "../../etc/passwd", "team/agent|sh", "team/agent:v1&&x" })
    void anythingElseIsRefused(String reference) {
        assertThat(ImageReference.isValid(reference)).isFalse();
        assertThat(ImageReference.problem(reference)).isNotBlank();
    }
}
