package org.carla.leaderboard.localstack.run;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One line per submission that a person can follow: refreshed in place on a terminal, appended (only when it changes)
 * when the output is a file or a pipe.
 */
public final class ProgressBoard {

    private final PrintStream out;
    private final boolean inPlace;
    private final Map<String, String> lines = new LinkedHashMap<>();
    private int printed;

    public ProgressBoard(PrintStream out, boolean inPlace) {
        this.out = out;
        this.inPlace = inPlace;
    }

    /** Sets the line of one submission; prints it now if it changed. */
    public synchronized void show(String key, String line) {
        String previous = lines.put(key, line);
        if (line.equals(previous)) {
            return;
        }
        if (!inPlace) {
            out.println(line);
            return;
        }
        if (printed > 0) {
            out.print("\u001b[" + printed + "F");
        }
        List<String> all = new ArrayList<>(lines.values());
        for (String each : all) {
            out.print("\u001b[2K");
            out.println(each);
        }
        printed = all.size();
        out.flush();
    }
}
