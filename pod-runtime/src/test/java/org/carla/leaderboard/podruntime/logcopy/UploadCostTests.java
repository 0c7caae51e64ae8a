package org.carla.leaderboard.podruntime.logcopy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalInt;
import java.util.Random;

import org.carla.leaderboard.domain.results.CheckpointMerge;
import org.carla.leaderboard.domain.results.MergeResult;
import org.junit.jupiter.api.Test;

/** The two rules that keep a long run cheap: the upload budget and when a progress report is worth sending. */
class UploadCostTests {

    @Test
    void theBudgetLetsNewBytesGoAndHoldsResendsToHalfOfWhatWasWritten() {
        var budget = new UploadBudget();
        var random = new Random(7);
        long resendsRefused = 0;
        for (int i = 0; i < 10_000; i++) {
            long written = random.nextInt(64 * 1024);
            budget.written(written);
            assertThat(budget.allows(written)).as("new bytes always fit").isTrue();
            budget.sent(written);
            long resend = random.nextInt(5 * 1024 * 1024);
            if (budget.allows(resend)) {
                budget.sent(resend);
            } else {
                resendsRefused++;
            }
            assertThat(budget.sent()).isLessThanOrEqualTo((long) (UploadBudget.RATIO * budget.written())
                    + UploadBudget.ALLOWANCE);
        }
        assertThat(resendsRefused).isPositive();
    }

    @Test
    void aReportGoesOnNewsAndOtherwiseOnlyAsAHeartbeat() {
        var news = new ProgressNews(Duration.ofMinutes(5));
        Instant start = Instant.parse("2026-11-23T10:00:00Z");
        MergeResult none = CheckpointMerge.merge(List.of(), OptionalInt.of(4));

        assertThat(news.at(none, "a", start)).isEqualTo(ProgressNews.Kind.NEWS);
        news.sent(none, "a", start);
        assertThat(news.at(none, "a", start.plusSeconds(10))).isEqualTo(ProgressNews.Kind.NONE);
        assertThat(news.at(none, "a", start.plusSeconds(299))).isEqualTo(ProgressNews.Kind.NONE);
        assertThat(news.at(none, "b", start.plusSeconds(20))).isEqualTo(ProgressNews.Kind.NEWS);
        assertThat(news.at(none, "a", start.plusSeconds(300))).isEqualTo(ProgressNews.Kind.HEARTBEAT);
        news.sent(none, "a", start.plusSeconds(300));
        assertThat(news.at(none, "a", start.plusSeconds(310))).isEqualTo(ProgressNews.Kind.NONE);
    }
}
