package org.carla.leaderboard.domain.ledger;

/**
 * Where a pair drove an attempt: the node ({@code NODE_NAME}) and the GPU its simulator had (the device UUID of
 * {@code NVIDIA_VISIBLE_DEVICES}). Either is {@code null} when not known (a lapsed claim's attempt: its pod is gone).
 */
public record PairPlacement(String node, String gpu) {

    public static final PairPlacement UNKNOWN = new PairPlacement(null, null);
}
