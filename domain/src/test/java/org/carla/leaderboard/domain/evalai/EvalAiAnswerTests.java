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

    /**
     * EvalAI's 400s (apps/jobs/views.py): its host-only views answer a user who is not a host of the challenge with
     * "not authorized", a configuration error; its other 400s reject the request as it is.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "{\"error\": \"Sorry, you are not authorized to make this request!\"}| REFUSED",
            "{\"error\": \"Sorry, you are not authorized to make this request\"}| REFUSED",
            "{\"error\": \"Sorry, submission status is invalid\"}| REJECTED",
            "{\"error\": \"Following metrics are missing in theleaderboard data: ['x']\"}| REJECTED",
            "{\"error\": \"Challenge Phase Split does not exist with phase_id: 1 andsplit codename: test\"}| REJECTED",
            "{\"status\": [\"\\\"x\\\" is not a valid choice.\"]}| REJECTED",
            "{\"detail\": \"you are not authorized to guess\"}| REJECTED",
            "<html>400 Bad Request</html>| REJECTED",
            "| REJECTED" })
    void aBadRequestSayingTheCallerIsNotAuthorizedIsATokenNotAHost(String body, EvalAiAnswer answer) {
        assertThat(EvalAiAnswer.of(400, body)).isEqualTo(answer);
        assertThat(EvalAiAnswer.of(404, body)).isEqualTo(EvalAiAnswer.REJECTED);
    }
}
