package org.carla.leaderboard.localstack.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** {@code status.completedIndexes} as indexed_job_utils.go reads and writes it. */
class CompletionIndexesTests {

    @Test
    void writesIntervalsOfThreeOrMoreWithADashAndOfTwoWithACommaAsTheController() {
        CompletionIndexes indexes = new CompletionIndexes();
        assertThat(indexes).hasToString("");
        for (int index : List.of(4, 0, 2, 1)) {
            indexes.add(index);
        }
        assertThat(indexes).hasToString("0-2,4");
        assertThat(indexes.total()).isEqualTo(4);

        CompletionIndexes two = new CompletionIndexes();
        two.add(1);
        two.add(0);
        assertThat(two).hasToString("0,1");
        two.add(7);
        two.add(8);
        two.add(5);
        assertThat(two).hasToString("0,1,5,7,8");
    }

    @Test
    void readsWhatItWroteAndStopsAtCompletions() {
        assertThat(CompletionIndexes.parse("0-2,4", 10)).hasToString("0-2,4");
        assertThat(CompletionIndexes.parse("0,1,3-5", 10).total()).isEqualTo(5);
        assertThat(CompletionIndexes.parse("1-9", 4)).as("an interval past completions is cut").hasToString("1-3");
        assertThat(CompletionIndexes.parse("0,x,2,7", 5)).as("a corrupted part is skipped, one past completions ends it")
                .hasToString("0,2");
        assertThat(CompletionIndexes.parse(null, 3).total()).isZero();
        assertThat(CompletionIndexes.parse("", 3).total()).isZero();
    }

    @Test
    void thePendingIndexesAreTheLowestNeitherSucceededNorBusy() {
        CompletionIndexes succeeded = CompletionIndexes.parse("1,3", 6);
        assertThat(succeeded.firstPending(Set.of(0), 2, 6)).containsExactly(2, 4);
        assertThat(succeeded.firstPending(Set.of(), 10, 6)).containsExactly(0, 2, 4, 5);
        assertThat(succeeded.firstPending(Set.of(), 0, 6)).isEmpty();
        assertThat(succeeded.has(3)).isTrue();
        assertThat(succeeded.has(2)).isFalse();
    }
}
