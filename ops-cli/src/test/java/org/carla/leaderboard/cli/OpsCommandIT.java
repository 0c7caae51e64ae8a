package org.carla.leaderboard.cli;

import io.quarkus.test.junit.main.QuarkusMainIntegrationTest;

/** The command line's tests against the packaged executable: the runnable jar, or the native one with -Pnative. */
@QuarkusMainIntegrationTest
class OpsCommandIT extends OpsCommandTests {
}
