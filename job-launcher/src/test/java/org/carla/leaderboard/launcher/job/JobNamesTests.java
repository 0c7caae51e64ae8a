package org.carla.leaderboard.launcher.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;

import org.carla.leaderboard.domain.event.SubmissionIdentity;
import org.junit.jupiter.api.Test;

class JobNamesTests {

    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
    private static final Pattern LABEL_VALUE = Pattern.compile("([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?");

    @Test
    void aPlainTeamReadsAsItIs() {
        assertThat(JobNames.forRun(identity(412977, "Team Ætna", "SENSORS"), 1))
                .isEqualTo("team-aetna-sensors-412977-r1");
        assertThat(JobNames.forRun(identity(7, "Café Über", "MAP_QUALIFIER"), 12))
                .isEqualTo("cafe-uber-map-qualifier-7-r12");
    }

    @Test
    void hostileTeamNamesStillGiveValidNamesThatKeepTheSubmissionId() {
        long id = Long.MAX_VALUE;
        for (String team : List.of("🚗🚗🚗", "../;rm -rf /", "x".repeat(300), "---", "$(reboot)", "\u0000\n\t",
                "ＡＢＣ", "a-".repeat(100), "Ω", "\"'`<>|&")) {
            String name = JobNames.forRun(identity(id, team, "SENSORS"), Integer.MAX_VALUE);
            assertThat(name).as(team).matches(DNS_LABEL).endsWith("-" + id + "-r" + Integer.MAX_VALUE)
                    .hasSizeLessThanOrEqualTo(63);
        }
        assertThat(JobNames.forRun(identity(5, "🚗", "SENSORS"), 1)).isEqualTo("team-sensors-5-r1");
    }

    @Test
    void generatedNamesAreValidAndUniquePerRun() {
        var random = new Random(20261121);
        var names = new HashMap<String, String>();
        for (int n = 0; n < 5_000; n++) {
            long id = 1 + (random.nextBoolean() ? random.nextInt(1_000_000) : random.nextLong(Long.MAX_VALUE - 1));
            String team = randomText(random, random.nextInt(320));
            String track = random.nextInt(10) == 0 ? randomText(random, random.nextInt(80)) : "SENSORS";
            if (track.isBlank() || team.isBlank()) {
                continue;
            }
            int run = 1 + random.nextInt(random.nextBoolean() ? 3 : Integer.MAX_VALUE);
            String name = JobNames.forRun(identity(id, team, track), run);
            assertThat(name).as("team %s track %s", team, track).matches(DNS_LABEL).hasSizeLessThanOrEqualTo(63)
                    .endsWith("-" + id + "-r" + run);
            String previous = names.put(name, id + "/" + run);
            assertThat(previous == null || previous.equals(id + "/" + run)).as("%s named two runs", name).isTrue();
        }
    }

    @Test
    void labelValuesAreValidAndDistinctForDistinctValues() {
        var random = new Random(7);
        var seen = new HashMap<String, String>();
        for (int n = 0; n < 5_000; n++) {
            String raw = randomText(random, random.nextInt(120));
            String label = JobNames.labelValue(raw);
            assertThat(label).as(raw).matches(LABEL_VALUE).hasSizeLessThanOrEqualTo(63);
            String previous = seen.put(label, raw);
            assertThat(previous == null || previous.equals(raw)).as("%s labels two values", label).isTrue();
        }
        assertThat(JobNames.labelValue("leaderboard-20")).isEqualTo("leaderboard-20");
        assertThat(JobNames.labelValue("SENSORS")).isEqualTo("SENSORS");
        assertThat(JobNames.labelValue("../;rm -rf")).matches(LABEL_VALUE).startsWith("rm--rf-");
    }

    private static SubmissionIdentity identity(long id, String team, String track) {
        return new SubmissionIdentity(id, 1, 2, 3, team, "leaderboard-20", track);
    }

    /** Text from a mix of ASCII, symbols, accents, CJK, emoji and control characters. */
    private static String randomText(Random random, int length) {
        var alphabets = List.of("abcXYZ019", "-_. /;:$`'\"|&*?<>()[]{}\\", "éüßÆøçñ", "日本語中文", "🚗🏁😀",
                "\u0000\n\t\u200b");
        var text = new StringBuilder();
        for (int i = 0; i < length; i++) {
            String alphabet = alphabets.get(random.nextInt(alphabets.size()));
            int at = alphabet.offsetByCodePoints(0, random.nextInt(alphabet.codePointCount(0, alphabet.length())));
            text.appendCodePoint(alphabet.codePointAt(at));
        }
        return text.toString();
    }

}
