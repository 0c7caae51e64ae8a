package org.carla.leaderboard.cli;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/** Plain-text output: aligned columns, and values of the participants' (team names) made printable. */
final class Text {

    private Text() {
    }

    /** A field of a JSON object as text; {@code -} for null or absent. */
    static String field(JsonNode node, String name) {
        JsonNode value = node == null ? null : node.get(name);
        return value == null || value.isNull() ? "-" : printable(value.asText());
    }

    /** Control characters (a hostile team name's NUL, escape sequences) as {@code ?}. */
    static String printable(String text) {
        var out = new StringBuilder(text.length());
        text.codePoints().forEach(c -> out.appendCodePoint(Character.isISOControl(c) || c == 0xfffe || c == 0xffff
                ? '?' : c));
        return out.toString();
    }

    static String table(List<String> header, List<List<String>> rows) {
        int[] widths = new int[header.size()];
        var all = new ArrayList<List<String>>();
        all.add(header);
        all.addAll(rows);
        for (List<String> row : all) {
            for (int i = 0; i < row.size(); i++) {
                widths[i] = Math.min(40, Math.max(widths[i], row.get(i).length()));
            }
        }
        var out = new StringBuilder();
        for (List<String> row : all) {
            var line = new StringBuilder();
            for (int i = 0; i < row.size(); i++) {
                String cell = row.get(i).length() > 40 ? row.get(i).substring(0, 39) + "~" : row.get(i);
                line.append(i == 0 ? "" : "  ").append(i == row.size() - 1 ? cell
                        : String.format("%-" + widths[i] + "s", cell));
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
        return out.toString();
    }

    static String duration(JsonNode seconds) {
        if (seconds == null || seconds.isNull()) {
            return "-";
        }
        long s = seconds.asLong();
        return s < 60 ? s + "s" : s < 7200 ? (s / 60) + "m" : (s / 3600) + "h" + (s % 3600 / 60) + "m";
    }
}
