package org.carla.leaderboard.localstack.deploy;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
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
 * {@code !GetAtt}, ...) become their long form ({@code {"Ref": ...}}, {@code {"Fn::Sub": ...}}). The text as written;
 * {@link TemplateEvaluation} gives the values a stack would have.
 */
public final class CloudFormationTemplate {

    /** Where the build puts {@code deploy/aws/leaderboard-backend.yaml} in local-stack's jar (see its pom). */
    public static final String BACKEND = "deploy/aws/leaderboard-backend.yaml";

    private final Map<String, Object> template;
    private final String text;

    private CloudFormationTemplate(Map<String, Object> template, String text) {
        this.template = template;
        this.text = text;
    }

    public static CloudFormationTemplate read(Path file) {
        try {
            return parse(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    /** A template packaged on the class path, e.g. {@link #BACKEND}. */
    public static CloudFormationTemplate packaged(String name) {
        try (InputStream in = CloudFormationTemplate.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is not on the class path: local-stack's build packages it"
                        + " from the repository's " + name + " (./mvnw -B -pl local-stack -am package)");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + name, e);
        }
    }

    public static CloudFormationTemplate parse(String text) {
        return new CloudFormationTemplate(new Yaml(new IntrinsicConstructor()).load(text), text);
    }

    /** The template as written, comments included. */
    public String text() {
        return text;
    }

    public Map<String, Object> parameters() {
        return orEmpty(template.get("Parameters"));
    }

    public Map<String, Object> outputs() {
        return orEmpty(template.get("Outputs"));
    }

    public Map<String, Object> conditions() {
        return orEmpty(template.get("Conditions"));
    }

    public Map<String, Object> mappings() {
        return orEmpty(template.get("Mappings"));
    }

    public Map<String, Object> resources() {
        return orEmpty(template.get("Resources"));
    }

    public Map<String, Object> resource(String logicalId) {
        Map<String, Object> resource = map(resources().get(logicalId));
        if (resource == null) {
            throw new IllegalArgumentException("no resource " + logicalId);
        }
        return resource;
    }

    public Map<String, Object> properties(String logicalId) {
        Map<String, Object> properties = map(resource(logicalId).get("Properties"));
        return properties == null ? Map.of() : properties;
    }

    public String type(String logicalId) {
        return String.valueOf(resource(logicalId).get("Type"));
    }

    /** Logical ids of the resources of one type, in template order. */
    public List<String> ofType(String type) {
        return resources().entrySet().stream().filter(e -> type.equals(map(e.getValue()).get("Type")))
                .map(Map.Entry::getKey).toList();
    }

    /** The logical id of the resource of the type whose property has the value, e.g. the queue named submissions. */
    public String named(String type, String property, String value) {
        return ofType(type).stream().filter(id -> value.equals(properties(id).get(property))).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no " + type + " with " + property + " " + value));
    }

    private static Map<String, Object> orEmpty(Object value) {
        return value == null ? new LinkedHashMap<>() : map(value);
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> map(Object value) {
        return (Map<String, Object>) value;
    }

    @SuppressWarnings("unchecked")
    public static List<Object> list(Object value) {
        return value instanceof List<?> list ? (List<Object>) list : List.of(value);
    }

    private static final class IntrinsicConstructor extends SafeConstructor {

        IntrinsicConstructor() {
            super(new LoaderOptions());
            for (String function : List.of("Base64", "Cidr", "Equals", "FindInMap", "GetAZs", "If", "ImportValue",
                    "Join", "Not", "And", "Or", "Select", "Split", "Sub", "Transform", "ToJsonString", "Length")) {
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
