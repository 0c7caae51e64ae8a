package org.carla.leaderboard.localstack.deploy;

import static org.carla.leaderboard.localstack.deploy.CloudFormationTemplate.list;
import static org.carla.leaderboard.localstack.deploy.CloudFormationTemplate.map;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A template's values as a stack of it would have them in one account and region: parameters (the given values, else
 * their defaults, each checked against its {@code AllowedValues} / {@code AllowedPattern}), the pseudo parameters,
 * the conditions, and the intrinsic functions ({@code Ref}, {@code Fn::GetAtt}, {@code Fn::Sub}, {@code Fn::If},
 * {@code Fn::Equals}, {@code Fn::Not}, {@code Fn::And}, {@code Fn::Or}, {@code Fn::Join}, {@code Fn::Select},
 * {@code Fn::Split}, {@code Fn::FindInMap}, {@code Condition}); a resource whose {@code Condition} is false does not
 * exist. Physical names are the name properties ({@code QueueName}, {@code BucketName}, ...) or, without one,
 * {@code <stack>-<LogicalId>}. Any other function, or an attribute it does not know, is an error naming it.
 */
public final class TemplateEvaluation {

    /** What {@code Fn::If} and {@code AWS::NoValue} leave: the property is dropped. */
    private static final Object NO_VALUE = new Object();
    private static final Pattern SUB_VARIABLE = Pattern.compile("\\$\\{([^}]*)}");
    private static final Map<String, String> NAME_PROPERTIES = Map.of("AWS::SQS::Queue", "QueueName",
            "AWS::S3::Bucket", "BucketName", "AWS::DynamoDB::Table", "TableName", "AWS::IAM::Role", "RoleName",
            "AWS::IAM::User", "UserName", "AWS::IAM::Policy", "PolicyName", "AWS::IAM::ManagedPolicy",
            "ManagedPolicyName", "AWS::SNS::Topic", "TopicName", "AWS::ECR::Repository", "RepositoryName");

    private final CloudFormationTemplate template;
    private final String stackName;
    private final String account;
    private final String region;
    private final Map<String, String> parameters = new LinkedHashMap<>();
    private final Map<String, Boolean> conditions = new HashMap<>();

    /**
     * @param given the parameters set for this stack; every other one takes its default, and one without a default
     *              must be given
     */
    public TemplateEvaluation(CloudFormationTemplate template, String stackName, String account, String region,
            Map<String, String> given) {
        this.template = template;
        this.stackName = stackName;
        this.account = account;
        this.region = region;
        given.keySet().stream().filter(name -> !template.parameters().containsKey(name)).findFirst().ifPresent(name -> {
            throw new IllegalArgumentException("the template has no parameter " + name);
        });
        template.parameters().forEach((name, declaration) -> {
            Map<String, Object> parameter = map(declaration);
            String value = given.containsKey(name) ? given.get(name)
                    : parameter.containsKey("Default") ? String.valueOf(parameter.get("Default")) : null;
            if (value == null) {
                throw new IllegalArgumentException("the template's parameter " + name + " has no default: give it");
            }
            check(name, parameter, value);
            parameters.put(name, value);
        });
    }

    private static void check(String name, Map<String, Object> parameter, String value) {
        if (parameter.containsKey("AllowedValues")
                && list(parameter.get("AllowedValues")).stream().map(String::valueOf).noneMatch(value::equals)) {
            throw new IllegalArgumentException("parameter " + name + "=" + value + " is not one of its AllowedValues "
                    + parameter.get("AllowedValues"));
        }
        if (parameter.containsKey("AllowedPattern") && !value.matches(String.valueOf(parameter.get("AllowedPattern")))) {
            throw new IllegalArgumentException("parameter " + name + "=" + value + " does not match its AllowedPattern");
        }
    }

    public String account() {
        return account;
    }

    public String region() {
        return region;
    }

    /** Whether the resource exists in this stack (it has no {@code Condition}, or its condition is true). */
    public boolean exists(String logicalId) {
        Object condition = template.resource(logicalId).get("Condition");
        return condition == null || condition(String.valueOf(condition));
    }

    /** The logical ids of the existing resources of a type, in template order. */
    public List<String> ofType(String type) {
        return template.ofType(type).stream().filter(this::exists).toList();
    }

    /** A resource's properties with every function evaluated. */
    public Map<String, Object> properties(String logicalId) {
        Object resolved = resolve(template.properties(logicalId));
        return resolved == NO_VALUE ? Map.of() : map(resolved);
    }

    /** The outputs that exist in this stack, evaluated, by name. */
    public Map<String, String> outputs() {
        var outputs = new LinkedHashMap<String, String>();
        template.outputs().forEach((name, declaration) -> {
            Map<String, Object> output = map(declaration);
            Object condition = output.get("Condition");
            if (condition == null || condition(String.valueOf(condition))) {
                outputs.put(name, String.valueOf(resolve(output.get("Value"))));
            }
        });
        return outputs;
    }

    public boolean condition(String name) {
        Boolean known = conditions.get(name);
        if (known != null) {
            return known;
        }
        Object declaration = template.conditions().get(name);
        if (declaration == null) {
            throw new IllegalArgumentException("the template has no condition " + name);
        }
        boolean value = truth(declaration);
        conditions.put(name, value);
        return value;
    }

    /** A resource's physical name: its name property, or {@code <stack>-<LogicalId>} as CloudFormation would derive. */
    public String physicalName(String logicalId) {
        if (!exists(logicalId)) {
            throw new IllegalArgumentException(logicalId + " does not exist in this stack (its condition is false)");
        }
        String property = NAME_PROPERTIES.get(template.type(logicalId));
        Object name = property == null ? null : template.properties(logicalId).get(property);
        return name == null ? stackName + "-" + logicalId : String.valueOf(resolve(name));
    }

    /** Evaluates every function in the value (maps, lists and scalars as the YAML gives them). */
    public Object resolve(Object value) {
        if (value instanceof Map<?, ?> raw) {
            Map<String, Object> node = map(raw);
            if (node.size() == 1) {
                String key = node.keySet().iterator().next();
                if (key.equals("Ref") || key.startsWith("Fn::") || key.equals("Condition") && !(node.get(key)
                        instanceof Map)) {
                    return function(key, node.get(key));
                }
            }
            var resolved = new LinkedHashMap<String, Object>();
            node.forEach((name, child) -> {
                Object result = resolve(child);
                if (result != NO_VALUE) {
                    resolved.put(name, result);
                }
            });
            return resolved;
        }
        if (value instanceof List<?> items) {
            var resolved = new ArrayList<Object>();
            for (Object item : items) {
                Object result = resolve(item);
                if (result != NO_VALUE) {
                    resolved.add(result);
                }
            }
            return resolved;
        }
        return value;
    }

    private Object function(String name, Object argument) {
        return switch (name) {
            case "Ref" -> ref(String.valueOf(argument));
            case "Fn::GetAtt" -> {
                List<Object> parts = list(argument instanceof String text ? List.of(text.split("\\.", 2)) : argument);
                yield attribute(String.valueOf(parts.get(0)), String.valueOf(parts.get(1)));
            }
            case "Fn::Sub" -> sub(argument);
            case "Fn::If" -> {
                List<Object> parts = list(argument);
                yield resolve(condition(String.valueOf(parts.get(0))) ? parts.get(1) : parts.get(2));
            }
            case "Fn::Equals", "Fn::Not", "Fn::And", "Fn::Or", "Condition" -> truth(Map.of(name, argument));
            case "Fn::Join" -> {
                List<Object> parts = list(argument);
                yield String.join(String.valueOf(parts.get(0)), list(resolve(parts.get(1))).stream()
                        .map(String::valueOf).toList());
            }
            case "Fn::Select" -> {
                List<Object> parts = list(argument);
                yield list(resolve(parts.get(1))).get(Integer.parseInt(String.valueOf(resolve(parts.get(0)))));
            }
            case "Fn::Split" -> {
                List<Object> parts = list(argument);
                yield List.of(String.valueOf(resolve(parts.get(1))).split(Pattern.quote(String.valueOf(parts.get(0))),
                        -1));
            }
            case "Fn::FindInMap" -> {
                List<Object> parts = list(resolve(argument));
                Object found = map(map(template.mappings().get(String.valueOf(parts.get(0))))
                        .get(String.valueOf(parts.get(1)))).get(String.valueOf(parts.get(2)));
                if (found == null) {
                    throw new IllegalArgumentException("no mapping " + parts);
                }
                yield found;
            }
            default -> throw new IllegalArgumentException("the local stack does not evaluate " + name);
        };
    }

    private boolean truth(Object declaration) {
        if (declaration instanceof Boolean value) {
            return value;
        }
        Map<String, Object> node = map(declaration);
        String function = node.keySet().iterator().next();
        Object argument = node.get(function);
        return switch (function) {
            case "Fn::Equals" -> {
                List<Object> parts = list(argument);
                yield String.valueOf(resolve(parts.get(0))).equals(String.valueOf(resolve(parts.get(1))));
            }
            case "Fn::Not" -> !truth(list(argument).get(0));
            case "Fn::And" -> list(argument).stream().allMatch(this::truth);
            case "Fn::Or" -> list(argument).stream().anyMatch(this::truth);
            case "Condition" -> condition(String.valueOf(argument));
            default -> throw new IllegalArgumentException("not a condition function: " + function);
        };
    }

    private Object ref(String name) {
        switch (name) {
            case "AWS::AccountId":
                return account;
            case "AWS::Region":
                return region;
            case "AWS::Partition":
                return "aws";
            case "AWS::URLSuffix":
                return "amazonaws.com";
            case "AWS::StackName":
                return stackName;
            case "AWS::NoValue":
                return NO_VALUE;
            default:
                break;
        }
        if (parameters.containsKey(name)) {
            return parameters.get(name);
        }
        String type = template.type(name);
        String physical = physicalName(name);
        return switch (type) {
            case "AWS::SQS::Queue" -> "https://sqs." + region + ".amazonaws.com/" + account + "/" + physical;
            case "AWS::SNS::Topic" -> "arn:aws:sns:" + region + ":" + account + ":" + physical;
            default -> physical;
        };
    }

    private Object attribute(String logicalId, String attribute) {
        String type = template.type(logicalId);
        String name = physicalName(logicalId);
        String value = switch (type + "." + attribute) {
            case "AWS::SQS::Queue.Arn" -> "arn:aws:sqs:" + region + ":" + account + ":" + name;
            case "AWS::SQS::Queue.QueueName" -> name;
            case "AWS::SQS::Queue.QueueUrl" -> "https://sqs." + region + ".amazonaws.com/" + account + "/" + name;
            case "AWS::S3::Bucket.Arn" -> "arn:aws:s3:::" + name;
            case "AWS::DynamoDB::Table.Arn" -> "arn:aws:dynamodb:" + region + ":" + account + ":table/" + name;
            case "AWS::IAM::Role.Arn" -> "arn:aws:iam::" + account + ":role/" + name;
            case "AWS::IAM::User.Arn" -> "arn:aws:iam::" + account + ":user/" + name;
            case "AWS::ECR::Repository.Arn" -> "arn:aws:ecr:" + region + ":" + account + ":repository/" + name;
            case "AWS::SNS::Topic.TopicName" -> name;
            default -> null;
        };
        if (value == null) {
            throw new IllegalArgumentException("the local stack does not know " + type + "'s attribute " + attribute
                    + " (" + logicalId + ")");
        }
        return value;
    }

    private String sub(Object argument) {
        String text;
        Map<String, Object> variables = Map.of();
        if (argument instanceof List<?> parts) {
            text = String.valueOf(parts.get(0));
            variables = map(parts.get(1));
        } else {
            text = String.valueOf(argument);
        }
        Matcher matcher = SUB_VARIABLE.matcher(text);
        var out = new StringBuilder();
        while (matcher.find()) {
            String variable = matcher.group(1);
            String replacement;
            if (variable.startsWith("!")) {
                replacement = "${" + variable.substring(1) + "}";
            } else if (variables.containsKey(variable)) {
                replacement = String.valueOf(resolve(variables.get(variable)));
            } else if (variable.contains(".")) {
                String[] parts = variable.split("\\.", 2);
                replacement = String.valueOf(attribute(parts[0], parts[1]));
            } else {
                replacement = String.valueOf(ref(variable));
            }
            matcher.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        matcher.appendTail(out);
        return out.toString();
    }

    /** A parameter's value in this stack. */
    public Optional<String> parameter(String name) {
        return Optional.ofNullable(parameters.get(name));
    }
}
