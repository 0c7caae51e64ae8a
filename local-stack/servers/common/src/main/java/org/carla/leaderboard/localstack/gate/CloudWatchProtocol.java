package org.carla.leaderboard.localstack.gate;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.carla.leaderboard.localstack.iam.AccessRequest;

/**
 * CloudWatch in the Smithy RPC v2 CBOR protocol the SDK 2.41 speaks ({@code POST
 * /service/GraniteServiceVersion20100801/operation/<Operation>}): the action is {@code cloudwatch:<Operation>}; the
 * metric reads take no resource, so it is {@code *}. A refusal is CloudWatch's {@code AccessDenied} (HTTP 403): the
 * {@code x-amzn-query-error} header the SDK reads the code from (CloudWatch is query-compatible) and a CBOR body.
 */
final class CloudWatchProtocol implements ServiceProtocol {

    private static final Pattern OPERATION = Pattern.compile("/service/[A-Za-z0-9]+/operation/([A-Za-z]+)");

    @Override
    public String signingName() {
        return "monitoring";
    }

    @Override
    public boolean readsBody(HttpHead head) {
        return true;
    }

    @Override
    public List<AccessRequest> accesses(HttpHead head, byte[] body, Account account) {
        Matcher operation = OPERATION.matcher(head.rawPath());
        if (!operation.matches()) {
            throw new IllegalArgumentException("not a CloudWatch operation: " + head.rawPath());
        }
        return List.of(AccessRequest.of("cloudwatch:" + operation.group(1), "*")
                .with("aws:SecureTransport", "true").with("aws:ResourceAccount", account.id()));
    }

    @Override
    public Response refusal(HttpHead head, Refusal refusal, String message) {
        String code = switch (refusal) {
            case ACCESS_DENIED -> "AccessDenied";
            case UNKNOWN_KEY -> "InvalidClientTokenId";
            case SIGNATURE_MISMATCH -> "SignatureDoesNotMatch";
            case NOT_SIGNED -> "MissingAuthenticationToken";
        };
        var body = new ByteArrayOutputStream();
        body.write(0xa2); // a map of two pairs
        cborText(body, "__type");
        cborText(body, "com.amazon.coral.service#" + code + "Exception");
        cborText(body, "message");
        cborText(body, message);
        return new Response(403, "Forbidden", "application/cbor",
                List.of(Map.entry("smithy-protocol", "rpc-v2-cbor"), Map.entry("x-amzn-query-error", code + ";Sender"),
                        Map.entry("x-amzn-RequestId", UUID.randomUUID().toString())),
                body.toByteArray());
    }

    /** A CBOR text string (major type 3) with its length in the shortest form. */
    private static void cborText(ByteArrayOutputStream out, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        int length = bytes.length;
        if (length < 24) {
            out.write(0x60 | length);
        } else if (length < 0x100) {
            out.write(0x78);
            out.write(length);
        } else if (length < 0x10000) {
            out.write(0x79);
            out.write(length >> 8);
            out.write(length & 0xff);
        } else {
            out.write(0x7a);
            for (int shift = 24; shift >= 0; shift -= 8) {
                out.write((length >> shift) & 0xff);
            }
        }
        out.writeBytes(bytes);
    }
}
