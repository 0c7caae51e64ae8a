package org.carla.leaderboard.localstack.kubernetes;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import org.carla.leaderboard.localstack.process.FreePort;

/**
 * The loopback ports of the pods' port variables ({@code CARLA_PORT}: pods share the loopback here, where each pod of a
 * cluster has its own). Each live pod gets a block of its own, below the kernel's ephemeral range (32768 and up on
 * Linux), so no outgoing connection and no server started on port 0 takes a pod's port between its creation and the
 * moment its container binds it, and no two pods of this JVM share a block. A block is taken only when every port the
 * pod will use in it binds now (another JVM's pods, a stray server), and given back when the pod ends.
 */
final class PortBlocks {

    static final int FIRST = 16_000;
    /** Four pairs (2000 … 2300) with their companions. */
    static final int SIZE = 400;
    /** Up to 31999: every pod of the local run's sixteen scenarios at once, replacements included. */
    static final int COUNT = 40;
    /** Beside each declared port: CARLA's streaming port (+1) and the traffic manager's (+10). */
    static final List<Integer> COMPANIONS = List.of(0, 1, 10);

    private static final boolean[] TAKEN = new boolean[COUNT];

    private PortBlocks() {
    }

    /**
     * The first port of a free block whose ports {@code declared} (each shifted so the lowest lands on the block's first
     * port) and their companions all bind now; -1 when none is (the pod's span is wider than a block, or every block is
     * taken).
     */
    static synchronized int take(List<Integer> declared) {
        int lowest = declared.stream().mapToInt(Integer::intValue).min().orElseThrow();
        int span = declared.stream().mapToInt(Integer::intValue).max().orElseThrow() - lowest
                + COMPANIONS.get(COMPANIONS.size() - 1) + 1;
        if (span > SIZE) {
            return -1;
        }
        int offset = ThreadLocalRandom.current().nextInt(COUNT);
        for (int i = 0; i < COUNT; i++) {
            int block = (offset + i) % COUNT;
            int start = FIRST + block * SIZE;
            if (!TAKEN[block] && declared.stream().allMatch(port -> COMPANIONS.stream()
                    .allMatch(companion -> FreePort.bindable(start + port - lowest + companion)))) {
                TAKEN[block] = true;
                return start;
            }
        }
        return -1;
    }

    /** Gives back the block starting at {@code start}; nothing for a port outside the blocks. */
    static synchronized void release(int start) {
        int block = (start - FIRST) / SIZE;
        if (start >= FIRST && block < COUNT && (start - FIRST) % SIZE == 0) {
            TAKEN[block] = false;
        }
    }
}
