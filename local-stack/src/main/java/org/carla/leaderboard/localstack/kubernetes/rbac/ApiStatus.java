package org.carla.leaderboard.localstack.kubernetes.rbac;

import java.util.List;

import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.StatusCause;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.MockResponse;

/**
 * The API server's refusals, as the {@code Status} objects of k8s.io/apimachinery's {@code errors.New*} and the
 * handlers' messages: 401 for a token it does not know, 403 with the authorizer's message, 404 for a namespace that
 * does not exist (the NamespaceLifecycle admission plugin), 422 for an object validation refuses, 503 while it cannot
 * serve.
 */
public final class ApiStatus {

    private ApiStatus() {
    }

    public static MockResponse unauthorized() {
        return response(new StatusBuilder().withStatus("Failure").withMessage("Unauthorized").withReason("Unauthorized")
                .withCode(401).build());
    }

    /**
     * {@code jobs.batch "x" is forbidden: User "u" cannot patch resource "jobs" in API group "batch" in the namespace
     * "n"} ({@code responsewriters.Forbidden}, {@code forbiddenMessage}, {@code errors.NewForbidden}), with the
     * resolution errors after {@code : } when there were any.
     */
    public static MockResponse forbidden(User user, RequestAttributes request, List<String> errors) {
        String message;
        if (!request.resourceRequest()) {
            message = "User \"" + user.name() + "\" cannot " + request.verb() + " path \"" + request.path() + "\"";
        } else if (!request.namespace().isEmpty()) {
            message = "User \"" + user.name() + "\" cannot " + request.verb() + " resource \""
                    + request.combinedResource() + "\" in API group \"" + request.apiGroup() + "\" in the namespace \""
                    + request.namespace() + "\"";
        } else {
            message = "User \"" + user.name() + "\" cannot " + request.verb() + " resource \""
                    + request.combinedResource() + "\" in API group \"" + request.apiGroup() + "\" at the cluster scope";
        }
        if (!errors.isEmpty()) {
            message += ": RBAC: " + aggregate(errors);
        }
        String qualified = request.resource().isEmpty() ? ""
                : request.apiGroup().isEmpty() ? request.resource() : request.resource() + "." + request.apiGroup();
        String full = qualified.isEmpty() ? "forbidden: " + message
                : request.name().isEmpty() ? qualified + " is forbidden: " + message
                : qualified + " \"" + request.name() + "\" is forbidden: " + message;
        return response(new StatusBuilder().withStatus("Failure").withMessage(full).withReason("Forbidden")
                .withNewDetails().withName(empty(request.name())).withGroup(empty(request.apiGroup()))
                .withKind(empty(request.resource())).endDetails().withCode(403).build());
    }

    /** {@code namespaces "x" not found}: what NamespaceLifecycle answers a write into a namespace that is not there. */
    public static MockResponse namespaceNotFound(String namespace) {
        return response(new StatusBuilder().withStatus("Failure").withMessage("namespaces \"" + namespace
                + "\" not found").withReason("NotFound").withNewDetails().withName(namespace).withKind("namespaces")
                .endDetails().withCode(404).build());
    }

    /** {@code Kind.group "name" is invalid: field: Invalid value: "v": detail} ({@code errors.NewInvalid}). */
    public static MockResponse invalid(String kind, String group, String name, String field, String value,
            String detail) {
        return invalid(kind, group, name, List.of(FieldError.invalid(field, "\"" + value + "\"", detail)));
    }

    /**
     * One error of validation, as apimachinery's {@code field.Error}: the field's path, its type (the cause's reason)
     * and what its {@code ErrorBody} says.
     */
    public record FieldError(String field, String type, String body) {

        /** {@code Invalid value: <value>: detail}; {@code value} as Go prints it (a string quoted, a number not). */
        public static FieldError invalid(String field, String value, String detail) {
            return new FieldError(field, "FieldValueInvalid", "Invalid value: " + value + ": " + detail);
        }

        /** {@code Required value: detail}. */
        public static FieldError required(String field, String detail) {
            return new FieldError(field, "FieldValueRequired", "Required value: " + detail);
        }

        /** {@code Forbidden: detail}. */
        public static FieldError forbidden(String field, String detail) {
            return new FieldError(field, "FieldValueForbidden", "Forbidden: " + detail);
        }

        /** {@code Unsupported value: "v": supported values: "a", "b"}. */
        public static FieldError notSupported(String field, String value, List<String> supported) {
            return new FieldError(field, "FieldValueNotSupported", "Unsupported value: \"" + value
                    + "\": supported values: " + String.join(", ", supported.stream().map(v -> "\"" + v + "\"")
                            .toList()));
        }

        @Override
        public String toString() {
            return field + ": " + body;
        }
    }

    /**
     * {@code Kind.group "name" is invalid: <errors>} ({@code errors.NewInvalid}): one error as it is, several in
     * brackets joined by ", " (an aggregate's message), each a cause of the details.
     */
    public static MockResponse invalid(String kind, String group, String name, List<FieldError> errors) {
        String qualifiedKind = group.isEmpty() ? kind : kind + "." + group;
        return response(new StatusBuilder().withStatus("Failure")
                .withMessage(qualifiedKind + " \"" + name + "\" is invalid: "
                        + aggregate(errors.stream().map(FieldError::toString).toList()))
                .withReason("Invalid").withNewDetails().withName(name).withGroup(empty(group)).withKind(kind)
                .withCauses(errors.stream().map(e -> new StatusCause(e.field(), e.body(), e.type())).toList())
                .endDetails().withCode(422).build());
    }

    /**
     * {@code the server is currently unable to handle the request}: what an API server answers while it cannot serve
     * (starting, its storage unreachable) and what a load balancer in front of it answers meanwhile
     * ({@code errors.NewServiceUnavailable}).
     */
    public static MockResponse unavailable() {
        return response(new StatusBuilder().withStatus("Failure")
                .withMessage("the server is currently unable to handle the request").withReason("ServiceUnavailable")
                .withCode(503).build());
    }

    private static String aggregate(List<String> errors) {
        return errors.size() == 1 ? errors.get(0) : "[" + String.join(", ", errors) + "]";
    }

    private static String empty(String value) {
        return value == null || value.isEmpty() ? null : value;
    }

    private static MockResponse response(Status status) {
        return new MockResponse().setResponseCode(status.getCode()).setHeader("Content-Type", "application/json")
                .setBody(Serialization.asJson(status));
    }
}
