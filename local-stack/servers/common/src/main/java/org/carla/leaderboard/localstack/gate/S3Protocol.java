package org.carla.leaderboard.localstack.gate;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.carla.leaderboard.localstack.iam.AccessRequest;
import org.carla.leaderboard.localstack.iam.Decision;

/**
 * S3 in path style ({@code /<bucket>/<key>}): the action from the method, the path and the query's subresource, as
 * S3's authorization reference maps its operations (HeadObject is {@code s3:GetObject}, HeadBucket and ListObjectsV2
 * {@code s3:ListBucket}, every step of a multipart upload {@code s3:PutObject} except {@code ?uploadId} reads,
 * {@code s3:ListMultipartUploadParts}, and deletes, {@code s3:AbortMultipartUpload}; a copy also reads its source);
 * the resource the bucket's ARN or the object's ({@code arn:aws:s3:::bucket/key}); {@code s3:prefix},
 * {@code s3:delimiter} and {@code s3:max-keys} from a listing's query. DeleteObjects ({@code POST ?delete}) asks for
 * {@code s3:DeleteObject} on each key and, as S3 does, refuses key by key in its result. A refusal is S3's
 * {@code <Error><Code>AccessDenied</Code>} (HTTP 403).
 */
final class S3Protocol implements ServiceProtocol {

    private static final Pattern DELETE_KEY = Pattern.compile("<Key>(.*?)</Key>", Pattern.DOTALL);
    private static final Pattern QUIET = Pattern.compile("<Quiet>\\s*true\\s*</Quiet>", Pattern.CASE_INSENSITIVE);

    private static final Map<String, String> BUCKET_GET = Map.ofEntries(Map.entry("uploads",
            "ListBucketMultipartUploads"), Map.entry("location", "GetBucketLocation"),
            Map.entry("versions", "ListBucketVersions"), Map.entry("policy", "GetBucketPolicy"),
            Map.entry("acl", "GetBucketAcl"), Map.entry("lifecycle", "GetLifecycleConfiguration"),
            Map.entry("tagging", "GetBucketTagging"), Map.entry("encryption", "GetEncryptionConfiguration"),
            Map.entry("versioning", "GetBucketVersioning"), Map.entry("cors", "GetBucketCORS"),
            Map.entry("ownershipControls", "GetBucketOwnershipControls"),
            Map.entry("publicAccessBlock", "GetBucketPublicAccessBlock"));
    private static final Map<String, String> BUCKET_PUT = Map.of("policy", "PutBucketPolicy", "acl", "PutBucketAcl",
            "lifecycle", "PutLifecycleConfiguration", "tagging", "PutBucketTagging", "encryption",
            "PutEncryptionConfiguration", "versioning", "PutBucketVersioning", "cors", "PutBucketCORS",
            "ownershipControls", "PutBucketOwnershipControls", "publicAccessBlock", "PutBucketPublicAccessBlock");
    private static final Map<String, String> BUCKET_DELETE = Map.of("policy", "DeleteBucketPolicy", "tagging",
            "PutBucketTagging", "lifecycle", "PutLifecycleConfiguration", "cors", "PutBucketCORS", "encryption",
            "PutEncryptionConfiguration", "ownershipControls", "PutBucketOwnershipControls", "publicAccessBlock",
            "PutBucketPublicAccessBlock");
    private static final Map<String, String> OBJECT_GET = Map.of("uploadId", "ListMultipartUploadParts", "acl",
            "GetObjectAcl", "tagging", "GetObjectTagging", "attributes", "GetObjectAttributes", "retention",
            "GetObjectRetention", "legal-hold", "GetObjectLegalHold");
    private static final Map<String, String> OBJECT_PUT = Map.of("acl", "PutObjectAcl", "tagging", "PutObjectTagging",
            "retention", "PutObjectRetention", "legal-hold", "PutObjectLegalHold");

    @Override
    public String signingName() {
        return "s3";
    }

    /** Only DeleteObjects: its keys are in the body; S3 signs the payload's hash in a header. */
    @Override
    public boolean readsBody(HttpHead head) {
        return head.method().equals("POST") && head.query().containsKey("delete");
    }

    @Override
    public List<AccessRequest> accesses(HttpHead head, byte[] body, Account account) {
        String path = head.rawPath();
        String bucket;
        String key;
        String trimmed = path.startsWith("/") ? path.substring(1) : path;
        int slash = trimmed.indexOf('/');
        bucket = HttpHead.decode(slash < 0 ? trimmed : trimmed.substring(0, slash));
        key = slash < 0 ? "" : HttpHead.decode(trimmed.substring(slash + 1));
        Map<String, String> query = head.query();
        String method = head.method();
        var accesses = new ArrayList<AccessRequest>();
        if (bucket.isEmpty()) {
            accesses.add(AccessRequest.of("s3:ListAllMyBuckets", "*"));
        } else if (key.isEmpty()) {
            String bucketArn = "arn:aws:s3:::" + bucket;
            if (method.equals("POST") && query.containsKey("delete")) {
                for (String deleted : deletedKeys(body)) {
                    accesses.add(AccessRequest.of("s3:DeleteObject", bucketArn + "/" + deleted));
                }
            } else {
                AccessRequest access = AccessRequest.of("s3:" + bucketAction(method, query), bucketArn);
                for (String listing : List.of("prefix", "delimiter", "max-keys")) {
                    if (query.containsKey(listing)) {
                        access = access.with("s3:" + listing, query.get(listing));
                    }
                }
                accesses.add(access);
            }
        } else {
            String objectArn = "arn:aws:s3:::" + bucket + "/" + key;
            accesses.add(AccessRequest.of("s3:" + objectAction(method, query), objectArn));
            var copySource = head.header("x-amz-copy-source");
            if (copySource.isPresent() && method.equals("PUT")) {
                String source = HttpHead.decode(copySource.get().replaceFirst("^/", "").replaceFirst("\\?.*$", ""));
                accesses.add(AccessRequest.of("s3:GetObject", "arn:aws:s3:::" + source));
            }
        }
        return accesses.stream().map(access -> access.with("aws:SecureTransport", "true")
                .with("aws:ResourceAccount", account.id())).toList();
    }

    private static String bucketAction(String method, Map<String, String> query) {
        return switch (method) {
            case "GET" -> subresource(query, BUCKET_GET).orElse("ListBucket");
            case "HEAD" -> "ListBucket";
            case "PUT" -> subresource(query, BUCKET_PUT).orElse("CreateBucket");
            case "DELETE" -> subresource(query, BUCKET_DELETE).orElse("DeleteBucket");
            default -> throw new IllegalArgumentException("no S3 bucket operation is " + method + " " + query.keySet());
        };
    }

    private static String objectAction(String method, Map<String, String> query) {
        boolean version = query.containsKey("versionId");
        return switch (method) {
            case "GET" -> subresource(query, OBJECT_GET).orElse(version ? "GetObjectVersion" : "GetObject");
            case "HEAD" -> version ? "GetObjectVersion" : "GetObject";
            case "PUT" -> subresource(query, OBJECT_PUT).orElse("PutObject");
            case "POST" -> query.containsKey("restore") ? "RestoreObject"
                    : query.containsKey("select") ? "GetObject" : "PutObject";
            case "DELETE" -> query.containsKey("uploadId") ? "AbortMultipartUpload"
                    : query.containsKey("tagging") ? "DeleteObjectTagging"
                    : version ? "DeleteObjectVersion" : "DeleteObject";
            default -> throw new IllegalArgumentException("no S3 object operation is " + method);
        };
    }

    private static Optional<String> subresource(Map<String, String> query, Map<String, String> actions) {
        return query.keySet().stream().filter(actions::containsKey).map(actions::get).findFirst();
    }

    private static List<String> deletedKeys(byte[] body) {
        var keys = new ArrayList<String>();
        Matcher matcher = DELETE_KEY.matcher(new String(body, StandardCharsets.UTF_8));
        while (matcher.find()) {
            keys.add(Xml.unescape(matcher.group(1)));
        }
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("a DeleteObjects request names no key");
        }
        return keys;
    }

    /**
     * DeleteObjects with some keys refused: S3 deletes the others and lists each refused key with {@code AccessDenied}
     * in its {@code DeleteResult} (HTTP 200). The allowed keys are deleted one by one behind the gate.
     */
    @Override
    public Optional<Response> partly(HttpHead head, byte[] body, List<AccessRequest> accesses,
            List<Decision> decisions, Backend backend) {
        if (!readsBody(head)) {
            return Optional.empty();
        }
        boolean quiet = QUIET.matcher(new String(body, StandardCharsets.UTF_8)).find();
        String bucketPath = head.rawPath().replaceAll("/+$", "");
        var result = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
                + "<DeleteResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">");
        for (int i = 0; i < accesses.size(); i++) {
            String arn = accesses.get(i).resource();
            String key = arn.substring(arn.indexOf('/') + 1);
            if (decisions.get(i).allowed()) {
                int status;
                try {
                    var delete = new HttpHead("DELETE " + bucketPath + "/" + SigV4.encode(key, false) + " HTTP/1.1",
                            List.of(Map.entry("Host", head.header("Host").orElse("localhost")),
                                    Map.entry("Content-Length", "0")));
                    status = backend.send(delete, new byte[0]);
                } catch (java.io.IOException e) {
                    status = 500;
                }
                if (status / 100 == 2) {
                    if (!quiet) {
                        result.append("<Deleted><Key>").append(Xml.escape(key)).append("</Key></Deleted>");
                    }
                } else {
                    result.append("<Error><Key>").append(Xml.escape(key)).append("</Key><Code>InternalError</Code>"
                            + "<Message>the delete failed</Message></Error>");
                }
            } else {
                result.append("<Error><Key>").append(Xml.escape(key)).append("</Key><Code>AccessDenied</Code><Message>")
                        .append(Xml.escape(decisions.get(i).reason())).append("</Message></Error>");
            }
        }
        result.append("</DeleteResult>");
        return Optional.of(Response.text(200, "OK", "application/xml",
                List.of(Map.entry("x-amz-request-id", requestId())), result.toString()));
    }

    @Override
    public Response refusal(HttpHead head, Refusal refusal, String message) {
        String code = switch (refusal) {
            case ACCESS_DENIED, NOT_SIGNED -> "AccessDenied";
            case UNKNOWN_KEY -> "InvalidAccessKeyId";
            case SIGNATURE_MISMATCH -> "SignatureDoesNotMatch";
        };
        String requestId = requestId();
        return Response.text(403, "Forbidden", "application/xml", List.of(Map.entry("x-amz-request-id", requestId)),
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>" + code + "</Code><Message>"
                        + Xml.escape(message) + "</Message><RequestId>" + requestId + "</RequestId><HostId>"
                        + requestId + "</HostId></Error>");
    }

    private static String requestId() {
        return UUID.randomUUID().toString().replace("-", "").substring(0, 16).toUpperCase(java.util.Locale.ROOT);
    }
}
