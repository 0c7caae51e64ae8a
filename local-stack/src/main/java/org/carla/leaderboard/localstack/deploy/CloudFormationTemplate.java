package org.carla.leaderboard.deploy;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.AbstractConstruct;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * A CloudFormation template read as CloudFormation reads it: the short-form tags ({@code !Ref}, {@code !Sub},
 * {@code !GetAtt}, ...) become their long form ({@code {"Ref": ...}}, {@code {"Fn::Sub": ...}}).
 */
final class CloudFormationTemplate {

    private final Map<String, Object> template;

    private CloudFormationTemplate(Map<String, Object> template) {
        this.template = template;
    }

    static CloudFormationTemplate read(Path file) {
        return new CloudFormationTemplate(new Yaml(new IntrinsicConstructor()).load(DeployFiles.read(file)));
    }

    Map<String, Object> parameters() {
        return map(template.get("Parameters"));
    }

    Map<String, Object> outputs() {
        return map(template.get("Outputs"));
    }

    Map<String, Object> conditions() {
        return map(template.get("Conditions"));
    }

    Map<String, Object> resources() {
        return map(template.get("Resources"));
    }

    Map<String, Object> resource(String logicalId) {
        Map<String, Object> resource = map(resources().get(logicalId));
        if (resource == null) {
            throw new AssertionError("no resource " + logicalId);
        }
        return resource;
    }

    Map<String, Object> properties(String logicalId) {
        return map(resource(logicalId).get("Properties"));
    }

    /** Logical ids of the resources of one type, in template order. */
    List<String> ofType(String type) {
        return resources().entrySet().stream().filter(e -> type.equals(map(e.getValue()).get("Type"))).map(Map.Entry::getKey).toList();
    }

    /** The logical id of the resource of the type whose property has the value, e.g. the queue named submissions. */
    String named(String type, String property, String value) {
        return ofType(type).stream().filter(id -> value.equals(properties(id).get(property))).findFirst()
                .orElseThrow(() -> new AssertionError("no " + type + " with " + property + " " + value));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object value) {
        return (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    static List<Object> list(Object value) {
        return value instanceof List<?> list ? (List<Object>) list : List.of(value);
    }

    private static final class IntrinsicConstructor extends SafeConstructor {

        IntrinsicConstructor() {
            super(new LoaderOptions());
            for (String function : List.of("Base64", "Cidr", "Equals", "FindInMap", "GetAZs", "If", "ImportValue", "Join",
                    "Not", "And", "Or", "Select", "Split", "Sub", "Transform", "ToJsonString", "Length")) {
                yamlConstructors.put(new Tag("!" + function), new Intrinsic("Fn::" + function));
            }
            yamlConstructors.put(new Tag("!Ref"), new Intrinsic("Ref"));
            yamlConstructors.put(new Tag("!Condition"), new Intrinsic("Condition"));
            yamlConstructors.put(new Tag("!GetAtt"), new Intrinsic("Fn::GetAtt"));
        }

        private final class Intrinsic extends AbstractConstruct {
            private final String function;

            Intrinsic(String function) {
                this.function = function;
            }

            @Override
            public Object construct(Node node) {
                Object argument;
                if (node instanceof ScalarNode scalar) {
                    String value = constructScalar(scalar);
                    // !GetAtt Resource.Attribute is the short form of [Resource, Attribute]
                    argument = function.equals("Fn::GetAtt") ? Arrays.asList(value.split("\\.", 2)) : value;
                } else if (node instanceof SequenceNode sequence) {
                    argument = constructSequence(sequence);
                } else {
                    argument = constructMapping((MappingNode) node);
                }
                return Map.of(function, argument);
            }
        }
    }
}
