package org.carla.leaderboard.localstack.gate;

/** Why the gate refuses a request, before or after IAM's evaluation. */
enum Refusal {
    /** IAM denies it (or the gate cannot tell what it asks). */
    ACCESS_DENIED,
    /** Its access key is no principal's. */
    UNKNOWN_KEY,
    /** Its signature is not the one the access key's secret gives. */
    SIGNATURE_MISMATCH,
    /** It carries no SigV4 signature. */
    NOT_SIGNED
}
