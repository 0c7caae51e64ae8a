package org.carla.leaderboard.cli;

/** Runs a command's work and turns the console's answers into the exit status and one line on stderr. */
final class Run {

    static final int DONE = 0;
    static final int REFUSED = 1;
    static final int UNAVAILABLE = 3;

    private Run() {
    }

    static int safely(Runnable work) {
        try {
            work.run();
            return DONE;
        } catch (ConsoleApi.Refused e) {
            System.err.println("ops: " + Text.printable(e.getMessage()));
            return REFUSED;
        } catch (ConsoleApi.Unavailable e) {
            System.err.println("ops: " + Text.printable(e.getMessage()));
            return UNAVAILABLE;
        }
    }
}
