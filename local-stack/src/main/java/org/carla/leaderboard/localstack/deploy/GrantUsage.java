package org.carla.leaderboard.localstack.deploy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.carla.leaderboard.localstack.iam.Wildcard;

/**
 * What the local runs did with deploy/aws's permissions, read from the IAM gates' {@code access.log} files: the calls
 * each principal made and was refused, and the grants of the template no call ever used. A grant is one action
 * pattern on one resource pattern of an Allow statement of a role's or user's policy, on the services the local stack
 * serves (SQS, DynamoDB, S3, CloudWatch). A statement that no local run can exercise says why in a comment line
 * {@value #JUSTIFIED} directly above its {@code - Sid:}, and its grants are not required to be used.
 */
public final class GrantUsage {

    /** The comment that excuses a statement's grants from being used by a local run. */
    public static final String JUSTIFIED = "# Not exercised locally:";
    /** The services whose calls the gates see. */
    private static final List<String> SERVED = List.of("sqs:", "dynamodb:", "s3:", "cloudwatch:");
    private static final Pattern SID = Pattern.compile("^\\s*-\\s*Sid:\\s*([A-Za-z0-9]+)\\s*$");

    /** One recorded decision. */
    public record Call(boolean allowed, String principal, String action, String resource) {

        @Override
        public String toString() {
            return (allowed ? "ALLOW " : "DENY ") + principal + " " + action + " " + resource;
        }
    }

    /** One action pattern on one resource pattern that a principal's Allow statement grants. */
    public record Grant(String principal, String sid, String action, String resource) {

        boolean usedBy(Call call) {
            return call.allowed() && call.principal().equals(principal)
                    && Wildcard.matches(action, call.action(), true) && Wildcard.matches(resource, call.resource(), false);
        }

        @Override
        public String toString() {
            return principal + " " + (sid.isEmpty() ? "" : "(" + sid + ") ") + action + " on " + resource;
        }
    }

    private GrantUsage() {
    }

    /** Every decision recorded in the {@code access.log} files under the folders (missing folders hold none). */
    public static List<Call> calls(List<Path> roots) {
        return calls(roots, Instant.EPOCH);
    }

    /**
     * The decisions recorded since {@code since} in the {@code access.log} files under the folders: a build's own,
     * when {@code target/} folders still hold the logs of earlier builds, made by other code against another template.
     */
    public static List<Call> calls(List<Path> roots, Instant since) {
        long from = since.toEpochMilli();
        var calls = new ArrayList<Call>();
        for (Path root : roots) {
            if (!Files.isDirectory(root)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(root)) {
                for (Path file : files.filter(f -> f.getFileName().toString().equals("access.log")).toList()) {
                    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                        String[] fields = line.split("\t", -1);
                        if (fields.length == 5 && madeSince(fields[0], from)) {
                            calls.add(new Call(fields[1].equals("ALLOW"), fields[2], fields[3], fields[4]));
                        }
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the decisions under " + root, e);
            }
        }
        return calls;
    }

    private static boolean madeSince(String epochMillis, long from) {
        try {
            return Long.parseLong(epochMillis) >= from;
        } catch (NumberFormatException e) {
            return false; // not a line DecisionLog wrote
        }
    }

    /**
     * The grants of every role and user of the deployments on the services the local stack serves, except those of
     * statements the template excuses ({@link #JUSTIFIED}).
     */
    public static List<Grant> grants(CloudFormationTemplate template, List<Deployment> deployments) {
        Set<String> excused = excusedSids(template.text());
        var grants = new LinkedHashSet<Grant>();
        for (Deployment deployment : deployments) {
            for (Deployment.Principal principal : deployment.principals()) {
                for (Object document : principal.policies()) {
                    for (Object entry : CloudFormationTemplate.list(CloudFormationTemplate.map(document).get("Statement"))) {
                        Map<String, Object> statement = CloudFormationTemplate.map(entry);
                        String sid = statement.get("Sid") == null ? "" : statement.get("Sid").toString();
                        if (!"Allow".equals(statement.get("Effect")) || excused.contains(sid)) {
                            continue;
                        }
                        for (Object action : CloudFormationTemplate.list(statement.get("Action"))) {
                            if (SERVED.stream().noneMatch(prefix -> action.toString().toLowerCase().startsWith(prefix))) {
                                continue;
                            }
                            for (Object resource : CloudFormationTemplate.list(statement.get("Resource"))) {
                                grants.add(new Grant(principal.name(), sid, action.toString(), resource.toString()));
                            }
                        }
                    }
                }
            }
        }
        return List.copyOf(grants);
    }

    /** Each action of a statement that no allowed call used on any of its resources (one of its grants listed). */
    public static List<Grant> unused(List<Grant> grants, List<Call> calls) {
        // A statement grants its actions on its resources: an action is used when a run used it on any of them (a
        // GetObject on the objects' ARN uses the statement's GetObject; the bucket's ARN is there for ListBucket).
        var byAction = new LinkedHashMap<List<String>, List<Grant>>();
        grants.forEach(grant -> byAction.computeIfAbsent(List.of(grant.principal(), grant.sid(), grant.action()),
                key -> new ArrayList<>()).add(grant));
        return byAction.values().stream()
                .filter(same -> same.stream().noneMatch(grant -> calls.stream().anyMatch(grant::usedBy)))
                .map(same -> same.get(0))
                .toList();
    }

    /**
     * The refused calls on what the deployment creates, each once, with how often it was refused. A refusal on a
     * resource the template has no part in (a test's deliberately missing bucket) is no permission it lacks.
     */
    public static Map<String, Integer> refusals(List<Call> calls, Deployment deployment) {
        var refused = new LinkedHashMap<String, Integer>();
        calls.stream().filter(call -> !call.allowed() && deployment.creates(call.resource()))
                .forEach(call -> refused.merge(call.toString(), 1, Integer::sum));
        return refused;
    }

    /** The Sids whose statement a {@link #JUSTIFIED} comment line precedes (comments only in between). */
    static Set<String> excusedSids(String text) {
        var excused = new LinkedHashSet<String>();
        String[] lines = text.split("\n");
        for (int i = 0; i < lines.length; i++) {
            Matcher sid = SID.matcher(lines[i]);
            if (!sid.matches()) {
                continue;
            }
            for (int j = i - 1; j >= 0 && lines[j].trim().startsWith("#"); j--) {
                if (lines[j].trim().startsWith(JUSTIFIED)) {
                    excused.add(sid.group(1));
                }
            }
        }
        return excused;
    }
}
