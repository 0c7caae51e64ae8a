package org.carla.leaderboard.domain.evalai;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class EvalAiAnswerTests {

    @ParameterizedTest
    @CsvSource({ "200, OK", "204, OK", "500, UNAVAILABLE", "502, UNAVAILABLE", "503, UNAVAILABLE", "408, UNAVAILABLE",
            "429, UNAVAILABLE", "401, REFUSED", "403, REFUSED", "400, REJECTED", "404, REJECTED", "405, REJECTED",
            "409, REJECTED" })
    void aStatusMeansWhetherAskingAgainCanHelp(int status, EvalAiAnswer answer) {
        assertThat(EvalAiAnswer.of(status)).isEqualTo(answer);
    }
}
