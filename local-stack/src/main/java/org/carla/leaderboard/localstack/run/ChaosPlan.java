package org.carla.leaderboard.localstack.run;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * What the chaos run does to the system, and when, drawn from a seed (the same seed, the same plan): each of the three
 * services killed with SIGKILL and started again {@value #KILLS_PER_SERVICE} times; ElasticMQ, DynamoDB Local and
 * S3Proxy each taken down once (killed then started with its data, or frozen then thawed); EvalAI failing
 * {@value #EVALAI_OUTAGES} times (5xx, throttled with 429, hanging, or refusing connections). Moments are uniform in
 * {@code [START, window]}; the outages of one target never overlap (the next waits for the previous to end), those of
 * different targets may.
 */
public record ChaosPlan(long seed, Duration window, List<Outage> outages) {

    public static final List<String> SERVICES = List.of("ingest-service", "job-launcher", "results-relay");
    public static final List<String> SERVERS = List.of("sqs", "dynamodb", "s3");
    public static final String EVALAI = "evalai";
    static final int KILLS_PER_SERVICE = 2;
    static final int EVALAI_OUTAGES = 2;
    /** Nothing happens before the first submissions are on their way. */
    static final Duration START = Duration.ofSeconds(5);

    /** How a target is taken down. */
    public enum Kind {
        /** SIGKILL, started again after {@code lasting} (its start takes as long as a start takes). */
        KILLED,
        /** SIGSTOP, SIGCONT after {@code lasting}: connections accepted, nothing answered. */
        FROZEN,
        /** EvalAI answers 503 to every API call. */
        FAILING,
        /** EvalAI answers 429 with {@code Retry-After}. */
        THROTTLING,
        /** EvalAI takes calls and answers none. */
        HANGING,
        /** EvalAI refuses connections. */
        REFUSING;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** One outage: at {@code at} after the start of the chaos, {@code target} is {@code kind} for {@code lasting}. */
    public record Outage(Duration at, String target, Kind kind, Duration lasting) {

        public String describe() {
            return String.format(Locale.ROOT, "%s %s for %d s at +%d s", target, kind.label(), lasting.toSeconds(),
                    at.toSeconds());
        }
    }

    /** The plan of a seed, its moments within {@code window}. */
    public static ChaosPlan of(long seed, Duration window) {
        if (window.compareTo(START.plusSeconds(10)) < 0) {
            throw new IllegalArgumentException("the chaos window must be at least " + START.plusSeconds(10));
        }
        var random = new Random(seed);
        var outages = new ArrayList<Outage>();
        for (String service : SERVICES) {
            for (int i = 0; i < KILLS_PER_SERVICE; i++) {
                outages.add(new Outage(moment(random, window), service, Kind.KILLED, seconds(random, 2, 8)));
            }
        }
        for (String server : SERVERS) {
            Kind kind = random.nextBoolean() ? Kind.KILLED : Kind.FROZEN;
            outages.add(new Outage(moment(random, window), server, kind, seconds(random, 5, 20)));
        }
        var evalAiKinds = List.of(Kind.FAILING, Kind.THROTTLING, Kind.HANGING, Kind.REFUSING);
        for (int i = 0; i < EVALAI_OUTAGES; i++) {
            outages.add(new Outage(moment(random, window), EVALAI, evalAiKinds.get(random.nextInt(evalAiKinds.size())),
                    seconds(random, 10, 40)));
        }
        outages.sort(Comparator.comparing(Outage::at).thenComparing(Outage::target));
        return new ChaosPlan(seed, window, List.copyOf(outages));
    }

    /** How long the moments of the chaos spread for {@code submissions} submissions, submitted over the same time. */
    public static Duration window(int submissions) {
        return Duration.ofSeconds(Math.max(60, 12L * submissions));
    }

    /** The outages of one target, in order. */
    public List<Outage> of(String target) {
        return outages.stream().filter(outage -> outage.target().equals(target)).toList();
    }

    private static Duration moment(Random random, Duration window) {
        long span = window.minus(START).toMillis();
        return START.plusMillis((long) (random.nextDouble() * span));
    }

    private static Duration seconds(Random random, int from, int to) {
        return Duration.ofSeconds(from + random.nextInt(to - from + 1));
    }
}
