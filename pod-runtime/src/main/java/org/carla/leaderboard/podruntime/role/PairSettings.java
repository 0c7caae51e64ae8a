package org.carla.leaderboard.podruntime.role;

import static org.carla.leaderboard.domain.pod.PodEnvironment.CARLA_HOST;
import static org.carla.leaderboard.domain.pod.PodEnvironment.CARLA_PORT;
import static org.carla.leaderboard.domain.pod.PodEnvironment.MAX_IDLE;
import static org.carla.leaderboard.domain.pod.PodEnvironment.NVIDIA_VISIBLE_DEVICES;
import static org.carla.leaderboard.domain.pod.PodEnvironment.PARTNER_WAIT;
import static org.carla.leaderboard.domain.pod.PodEnvironment.STOP_GRACE;
import static org.carla.leaderboard.domain.pod.PodEnvironment.WORKER_ID;

import java.time.Duration;
import java.util.Map;

import org.carla.leaderboard.domain.pod.PodEnvironment;

/**
 * What only a worker pair's containers read from the environment ({@link PodEnvironment} names and parsers): which
 * pair, CARLA's port, and the pair's times.
 */
public record PairSettings(int pair, int carlaPort, String carlaHost, Duration partnerWait, Duration maxIdle,
        Duration stopGrace) {

    public static final Duration DEFAULT_PARTNER_WAIT = Duration.ofMinutes(10);
    public static final Duration DEFAULT_MAX_IDLE = Duration.ofSeconds(800);
    public static final Duration DEFAULT_STOP_GRACE = Duration.ofSeconds(10);

    /** @throws IllegalArgumentException naming the variable at fault */
    public static PairSettings from(Map<String, String> env) {
        return new PairSettings(
                pair(env),
                PodEnvironment.integer(env, CARLA_PORT).orElse(2000),
                PodEnvironment.value(env, CARLA_HOST).orElse("127.0.0.1"),
                PodEnvironment.duration(env, PARTNER_WAIT).orElse(DEFAULT_PARTNER_WAIT),
                PodEnvironment.duration(env, MAX_IDLE).orElse(DEFAULT_MAX_IDLE),
                PodEnvironment.duration(env, STOP_GRACE).orElse(DEFAULT_STOP_GRACE));
    }

    /** {@code WORKER_ID}, else the seeds' rule: the GPU in {@code NVIDIA_VISIBLE_DEVICES} plus one. */
    static int pair(Map<String, String> env) {
        return PodEnvironment.positive(env, WORKER_ID).orElseGet(() -> PodEnvironment.integer(env, NVIDIA_VISIBLE_DEVICES)
                .map(gpu -> gpu + 1).orElseThrow(() -> new IllegalArgumentException(
                        "WORKER_ID is not set, and NVIDIA_VISIBLE_DEVICES is not one GPU number")));
    }
}
