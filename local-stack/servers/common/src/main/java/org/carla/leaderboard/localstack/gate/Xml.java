package org.carla.leaderboard.localstack.gate;

/** The five XML entities, both ways: S3's and SQS's error documents, S3's DeleteObjects. */
final class Xml {

    private Xml() {
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;")
                .replace("'", "&apos;");
    }

    static String unescape(String text) {
        return text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&apos;", "'")
                .replace("&amp;", "&");
    }
}
