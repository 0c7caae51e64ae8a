package org.carla.leaderboard.localstack.gate;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * AWS Signature Version 4 as a service checks it (the {@code Authorization} header form): the canonical request from
 * the method, path, query, signed headers and payload hash, the string to sign with the credential scope, and the
 * HMAC chain from the caller's secret. Proves the request was signed with the secret of the access key it names, so
 * each process of the local stack must use its own credentials. S3's path is canonical as sent; every other
 * service's is encoded once more, as the SDK signs it. The per-chunk signatures of an {@code aws-chunked} upload and
 * the request's age are not checked.
 */
final class SigV4 {

    static final String ALGORITHM = "AWS4-HMAC-SHA256";

    /** What the {@code Authorization} header names: its access key, scope, signed headers and signature. */
    record Authorization(String accessKeyId, String date, String region, String service, List<String> signedHeaders,
            String signature) {

        String scope() {
            return date + "/" + region + "/" + service + "/aws4_request";
        }
    }

    enum Verdict { VALID, UNKNOWN_KEY, MISMATCH }

    private SigV4() {
    }

    /** The header's parts; empty when there is no SigV4 {@code Authorization} header or it is malformed. */
    static Optional<Authorization> authorization(HttpHead head) {
        Optional<String> header = head.header("Authorization");
        if (header.isEmpty() || !header.get().startsWith(ALGORITHM + " ")) {
            return Optional.empty();
        }
        Map<String, String> parts = new TreeMap<>();
        for (String part : header.get().substring(ALGORITHM.length()).split(",")) {
            int equals = part.indexOf('=');
            if (equals > 0) {
                parts.put(part.substring(0, equals).trim(), part.substring(equals + 1).trim());
            }
        }
        String[] credential = parts.getOrDefault("Credential", "").split("/");
        if (credential.length != 5 || !parts.containsKey("SignedHeaders") || !parts.containsKey("Signature")) {
            return Optional.empty();
        }
        return Optional.of(new Authorization(credential[0], credential[1], credential[2], credential[3],
                List.of(parts.get("SignedHeaders").split(";")), parts.get("Signature")));
    }

    /**
     * Whether the request's signature is the one its access key's secret gives.
     *
     * @param payloadHash the hex SHA-256 of the body, or the {@code x-amz-content-sha256} value S3 signs instead
     * @param secrets     the secret of each known access key (null for an unknown one)
     */
    static Verdict verify(HttpHead head, Authorization authorization, String payloadHash,
            Function<String, String> secrets) {
        String secret = secrets.apply(authorization.accessKeyId());
        if (secret == null) {
            return Verdict.UNKNOWN_KEY;
        }
        String amzDate = head.header("X-Amz-Date").orElse("");
        String canonical = canonicalRequest(head, authorization, payloadHash);
        String toSign = ALGORITHM + "\n" + amzDate + "\n" + authorization.scope() + "\n" + hex(sha256(
                canonical.getBytes(StandardCharsets.UTF_8)));
        byte[] key = hmac(("AWS4" + secret).getBytes(StandardCharsets.UTF_8), authorization.date());
        key = hmac(key, authorization.region());
        key = hmac(key, authorization.service());
        key = hmac(key, "aws4_request");
        String expected = hex(hmac(key, toSign));
        return MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII),
                authorization.signature().getBytes(StandardCharsets.US_ASCII)) ? Verdict.VALID : Verdict.MISMATCH;
    }

    private static String canonicalRequest(HttpHead head, Authorization authorization, String payloadHash) {
        String path = head.rawPath().isEmpty() ? "/" : head.rawPath();
        if (!authorization.service().equals("s3")) {
            path = encode(path, false);
        }
        var headers = new StringBuilder();
        for (String name : authorization.signedHeaders()) {
            String value = String.join(",", head.headerValues(name).stream()
                    .map(v -> v.trim().replaceAll(" +", " ")).toList());
            headers.append(name.toLowerCase(Locale.ROOT)).append(':').append(value).append('\n');
        }
        return head.method() + "\n" + path + "\n" + canonicalQuery(head.rawQuery()) + "\n" + headers + "\n"
                + String.join(";", authorization.signedHeaders()) + "\n" + payloadHash;
    }

    private static String canonicalQuery(String rawQuery) {
        var pairs = new ArrayList<String[]>();
        for (String pair : rawQuery.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int equals = pair.indexOf('=');
            String name = HttpHead.decode(equals < 0 ? pair : pair.substring(0, equals));
            String value = equals < 0 ? "" : HttpHead.decode(pair.substring(equals + 1));
            pairs.add(new String[] {encode(name, true), encode(value, true)});
        }
        pairs.sort((a, b) -> a[0].equals(b[0]) ? a[1].compareTo(b[1]) : a[0].compareTo(b[0]));
        return String.join("&", pairs.stream().map(p -> p[0] + "=" + p[1]).toList());
    }

    /** RFC 3986 percent-encoding of everything but unreserved characters (and {@code /} in a path). */
    static String encode(String text, boolean slash) {
        var out = new StringBuilder();
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_'
                    || c == '.' || c == '~' || c == '/' && !slash) {
                out.append(c);
            } else {
                out.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return out.toString();
    }

    static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    private static byte[] hmac(byte[] key, String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
