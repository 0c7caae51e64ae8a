package org.carla.leaderboard.localstack.iam;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** IAM's evaluation as the gates apply it, on policies written as deploy/aws writes them. */
class AuthorizerTests {

    private static final String ACCOUNT = "000000000000";
    private static final String BUCKET = "arn:aws:s3:::carla-leaderboard-20";
    private static final String TABLE = "arn:aws:dynamodb:us-east-1:" + ACCOUNT + ":table/leaderboard-20";
    private static final String QUEUE = "arn:aws:sqs:us-east-1:" + ACCOUNT + ":progress-reports";

    private static Identity role(String name, Map<String, String> tags, String... policies) {
        return new Identity(name, "arn:aws:iam::" + ACCOUNT + ":role/" + name, ACCOUNT, tags,
                java.util.Arrays.stream(policies).map(text -> Policy.of(Json.parse(text))).toList());
    }

    private static Decision decide(Identity who, AccessRequest request) {
        return new Authorizer(Map.of()).decide(who, request);
    }

    @Test
    void anActionIsAllowedOnlyOnTheResourcesAStatementNamesAndCaseMattersInResourcesNotActions() {
        var relay = role("relay", Map.of(), """
                {"Statement": [{"Effect": "Allow", "Action": "S3:PutObject", "Resource": "%s/*/control/cancel"}]}"""
                .formatted(BUCKET));

        assertThat(decide(relay, AccessRequest.of("s3:PutObject", BUCKET + "/sub-1/control/cancel")).allowed()).isTrue();
        assertThat(decide(relay, AccessRequest.of("s3:PutObject", BUCKET + "/sub-1/control/Cancel")).allowed()).isFalse();
        Decision delete = decide(relay, AccessRequest.of("s3:DeleteObject", BUCKET + "/sub-1/control/cancel"));
        assertThat(delete.allowed()).isFalse();
        assertThat(delete.reason()).isEqualTo("User: arn:aws:iam::000000000000:role/relay is not authorized to perform:"
                + " s3:DeleteObject on resource: " + BUCKET + "/sub-1/control/cancel because no identity-based policy"
                + " allows the s3:DeleteObject action");
    }

    @Test
    void wildcardsMatchAnyRunAndOneCharacterAndAnIndexIsNotItsTable() {
        var reader = role("reader", Map.of(), """
                {"Statement": [{"Effect": "Allow", "Action": ["dynamodb:Get*", "dynamodb:Quer?"],
                  "Resource": "%s"}]}""".formatted(TABLE));

        assertThat(decide(reader, AccessRequest.of("dynamodb:GetItem", TABLE)).allowed()).isTrue();
        assertThat(decide(reader, AccessRequest.of("dynamodb:Query", TABLE)).allowed()).isTrue();
        assertThat(decide(reader, AccessRequest.of("dynamodb:Query", TABLE + "/index/submission_status-index"))
                .allowed()).as("a table's ARN does not cover its indexes").isFalse();
        assertThat(decide(reader, AccessRequest.of("dynamodb:Queries", TABLE)).allowed()).isFalse();
    }

    @Test
    void anExplicitDenyWinsOverAnyAllowAndNotActionAndNotResourceInvertTheirLists() {
        var worker = role("worker", Map.of(), """
                {"Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}""", """
                {"Statement": [{"Effect": "Deny", "NotAction": ["s3:GetObject", "s3:ListBucket"],
                  "NotResource": "%s/public/*"}]}""".formatted(BUCKET));

        assertThat(decide(worker, AccessRequest.of("s3:GetObject", BUCKET + "/sub-1/a")).allowed()).isTrue();
        Decision put = decide(worker, AccessRequest.of("s3:PutObject", BUCKET + "/sub-1/a"));
        assertThat(put.allowed()).isFalse();
        assertThat(put.reason()).endsWith("with an explicit deny in an identity-based policy");
        assertThat(decide(worker, AccessRequest.of("s3:PutObject", BUCKET + "/public/a")).allowed()).isTrue();
    }

    @Test
    void theScopedRoleReachesOnlyThePrefixItsSessionTagNames() {
        String scoped = """
                {"Statement": [
                  {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "%s/${aws:PrincipalTag/submission-id}/*"},
                  {"Effect": "Allow", "Action": "s3:ListBucket", "Resource": "%s",
                   "Condition": {"StringLike": {"s3:prefix": ["${aws:PrincipalTag/submission-id}/*"]}}}]}"""
                .formatted(BUCKET, BUCKET);
        var seven = role("scoped", Map.of("submission-id", "sub-7"), scoped);
        var untagged = role("scoped", Map.of(), scoped);
        var starred = role("scoped", Map.of("submission-id", "*"), scoped);

        assertThat(decide(seven, AccessRequest.of("s3:GetObject", BUCKET + "/sub-7/agent/log")).allowed()).isTrue();
        assertThat(decide(seven, AccessRequest.of("s3:GetObject", BUCKET + "/sub-8/agent/log")).allowed()).isFalse();
        assertThat(decide(seven, AccessRequest.of("s3:ListBucket", BUCKET).with("s3:prefix", "sub-7/")).allowed())
                .isTrue();
        assertThat(decide(seven, AccessRequest.of("s3:ListBucket", BUCKET).with("s3:prefix", "sub-8/")).allowed())
                .isFalse();
        assertThat(decide(seven, AccessRequest.of("s3:ListBucket", BUCKET)).allowed())
                .as("a listing without a prefix lacks the key: StringLike fails").isFalse();
        assertThat(decide(untagged, AccessRequest.of("s3:GetObject", BUCKET + "/sub-7/agent/log")).allowed())
                .as("a variable without a value matches nothing").isFalse();
        assertThat(decide(starred, AccessRequest.of("s3:GetObject", BUCKET + "/sub-7/agent/log")).allowed())
                .as("a tag's * is a character, not a wildcard").isFalse();
    }

    @Test
    void aBucketPolicysDenyForAnyoneAppliesToEveryPrincipalAndItsObjects() {
        var bucketPolicy = Policy.of(Json.parse("""
                {"Statement": [{"Sid": "TlsOnly", "Effect": "Deny", "Principal": "*", "Action": "s3:*",
                  "Resource": ["%s", "%s/*"], "Condition": {"Bool": {"aws:SecureTransport": "false"}}}]}"""
                .formatted(BUCKET, BUCKET)));
        var authorizer = new Authorizer(Map.of(BUCKET, bucketPolicy));
        var reader = role("reader", Map.of(), """
                {"Statement": [{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "%s/*"}]}""".formatted(BUCKET));

        assertThat(authorizer.decide(reader, AccessRequest.of("s3:GetObject", BUCKET + "/a")
                .with("aws:SecureTransport", "true")).allowed()).isTrue();
        Decision plain = authorizer.decide(reader, AccessRequest.of("s3:GetObject", BUCKET + "/a")
                .with("aws:SecureTransport", "false"));
        assertThat(plain.allowed()).isFalse();
        assertThat(plain.reason()).endsWith("with an explicit deny in a resource-based policy");
    }

    @Test
    void aQueuePolicyNamingThePrincipalGrantsAloneButNamingItsAccountDoesNot() {
        var sender = role("sender", Map.of());
        var byRole = Policy.of(Json.parse("""
                {"Statement": [{"Effect": "Allow", "Principal": {"AWS": "%s"}, "Action": "sqs:SendMessage",
                  "Resource": "%s"}]}""".formatted(sender.arn(), QUEUE)));
        var byAccount = Policy.of(Json.parse("""
                {"Statement": [{"Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::%s:root"},
                  "Action": "sqs:SendMessage", "Resource": "%s"}]}""".formatted(ACCOUNT, QUEUE)));

        assertThat(new Authorizer(Map.of(QUEUE, byRole)).decide(sender, AccessRequest.of("sqs:SendMessage", QUEUE))
                .allowed()).isTrue();
        assertThat(new Authorizer(Map.of(QUEUE, byAccount)).decide(sender, AccessRequest.of("sqs:SendMessage", QUEUE))
                .allowed()).isFalse();
    }

    @Test
    void missingKeysFailPlainConditionsAndPassNegatedIfExistsAndForAllValuesOnes() {
        var context = Map.<String, List<String>>of("s3:prefix", List.of("a/"));
        assertThat(condition("StringEquals", "s3:delimiter", "/").holds(context)).isFalse();
        assertThat(condition("StringNotEquals", "s3:delimiter", "/").holds(context)).isTrue();
        assertThat(condition("StringEqualsIfExists", "s3:delimiter", "/").holds(context)).isTrue();
        assertThat(condition("ForAllValues:StringEquals", "s3:delimiter", "/").holds(context)).isTrue();
        assertThat(condition("ForAnyValue:StringEquals", "s3:delimiter", "/").holds(context)).isFalse();
        assertThat(condition("Null", "s3:delimiter", "true").holds(context)).isTrue();
        assertThat(condition("StringNotLike", "s3:prefix", "a*").holds(context)).isFalse();
        assertThat(new Condition("StringLike", "s3:prefix", List.of("b/*", "a/*")).holds(context))
                .as("several values are alternatives").isTrue();
    }

    @Test
    void whatTheEvaluatorDoesNotUnderstandIsNamedSoTheStackRefusesToStart() {
        var policy = Policy.of(Json.parse("""
                {"Statement": [{"Sid": "Odd", "Effect": "Allow", "Action": "sqs:SendMessage", "Resource": "*",
                  "Condition": {"DateGreaterThan": {"aws:CurrentTime": "2020-01-01T00:00:00Z"}}},
                  {"Sid": "Tagged", "Effect": "Allow", "Action": "s3:GetObject",
                   "Resource": "arn:aws:s3:::b/${aws:SourceIdentity}/*"}]}"""));

        assertThat(policy.unsupported()).containsExactly("Odd: condition operator DateGreaterThan",
                "Odd: condition key aws:CurrentTime", "Tagged: policy variable ${aws:SourceIdentity}");
        assertThatThrownBy(() -> Policy.of(Json.parse("""
                {"Statement": [{"Effect": "Deny", "NotPrincipal": {"AWS": "x"}, "Action": "*", "Resource": "*"}]}""")))
                .hasMessageContaining("NotPrincipal");
    }

    private static Condition condition(String operator, String key, String value) {
        return new Condition(operator, key, List.of(value));
    }
}
