package org.carla.leaderboard.localstack;

/**
 * A server of the stack (ElasticMQ, DynamoDB Local, S3Proxy) that a test or the chaos run takes down and brings back,
 * as a dependency's outage: {@link #kill()} then {@link #start()} is a crash and a restart (connections refused
 * meanwhile), {@link #freeze()} then {@link #thaw()} a hung server (connections accepted, no answer). Every server
 * keeps its data across both: it comes back on the same port with what it held.
 */
public interface LocalServer {

    /** The component's name: {@code sqs}, {@code dynamodb}, {@code s3}. */
    String name();

    /** SIGKILL, no shutdown; returns once the process is gone. New connections are refused until {@link #start()}. */
    void kill();

    /**
     * Starts it again on the same port with the same data; returns once it answers with that data. Nothing when it
     * runs.
     */
    void start();

    /** SIGSTOP: the kernel still accepts connections, the server answers none until {@link #thaw()}. */
    void freeze();

    /** SIGCONT: a frozen server carries on with what it had accepted. */
    void thaw();

    /** Whether its process runs and is not frozen. */
    boolean isUp();
}
