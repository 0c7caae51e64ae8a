package org.carla.leaderboard.localstack.kubernetes.rbac;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * What the API server authorizes a request as, read from its method and path the way the API server's
 * {@code RequestInfoFactory.NewRequestInfo} (k8s.io/apiserver/pkg/endpoints/request/requestinfo.go) reads it: the verb
 * ({@code get}, {@code list}, {@code watch} — {@code ?watch=true} or the {@code /watch/} prefix —, {@code create},
 * {@code update}, {@code patch}, {@code delete}, {@code deletecollection}), the API group and version, the namespace,
 * the resource, the subresource and the name (from the path, or from a {@code metadata.name} field selector of a list
 * or watch). A path outside {@code /api} and {@code /apis/<group>} is a non-resource request whose verb is the
 * lower-cased method.
 */
public record RequestAttributes(boolean resourceRequest, String path, String verb, String apiGroup, String apiVersion,
        String namespace, String resource, String subresource, String name) {

    private static final Set<String> SPECIAL_VERBS = Set.of("proxy", "watch");
    private static final Set<String> NAMESPACE_SUBRESOURCES = Set.of("status", "finalize");

    /** {@code method} as sent, {@code target} the request target: path and query. */
    public static RequestAttributes of(String method, String target) {
        URI uri = URI.create(target);
        String path = uri.getPath() == null ? "" : uri.getPath();
        String query = uri.getRawQuery();
        var nonResource = new RequestAttributes(false, path, method.toLowerCase(Locale.ROOT), "", "", "", "", "", "");
        List<String> parts = new ArrayList<>(Arrays.stream(path.split("/")).filter(part -> !part.isEmpty()).toList());
        if (parts.size() < 3 || !(parts.get(0).equals("api") || parts.get(0).equals("apis"))) {
            return nonResource;
        }
        String group = "";
        if (parts.get(0).equals("apis")) {
            if (parts.size() < 4) {
                return nonResource;
            }
            group = parts.get(1);
            parts = parts.subList(2, parts.size());
        } else {
            parts = parts.subList(1, parts.size());
        }
        String version = parts.get(0);
        parts = parts.subList(1, parts.size());
        String verb;
        boolean verbFromPath = SPECIAL_VERBS.contains(parts.get(0));
        if (verbFromPath) {
            verb = parts.get(0);
            parts = parts.subList(1, parts.size());
        } else {
            verb = switch (method.toUpperCase(Locale.ROOT)) {
                case "POST" -> "create";
                case "GET", "HEAD" -> "get";
                case "PUT" -> "update";
                case "PATCH" -> "patch";
                case "DELETE" -> "delete";
                default -> "";
            };
        }
        String namespace = "";
        if (!parts.isEmpty() && parts.get(0).equals("namespaces") && parts.size() > 1) {
            namespace = parts.get(1);
            if (parts.size() > 2 && !NAMESPACE_SUBRESOURCES.contains(parts.get(2))) {
                parts = parts.subList(2, parts.size());
            }
        }
        String resource = parts.isEmpty() ? "" : parts.get(0);
        String name = parts.size() >= 2 ? parts.get(1) : "";
        String subresource = parts.size() >= 3 && !verb.equals("proxy") ? parts.get(2) : "";
        if (name.isEmpty() && verb.equals("get")) {
            verb = watchRequested(query) ? "watch" : "list";
            name = nameSelected(query).orElse("");
        }
        if (name.isEmpty() && verb.equals("delete")) {
            verb = "deletecollection";
        }
        return new RequestAttributes(true, path, verb, group, version, namespace, resource, subresource, name);
    }

    /** {@code resource/subresource}, as RBAC rules name it. */
    public String combinedResource() {
        return subresource.isEmpty() ? resource : resource + "/" + subresource;
    }

    /** Whether this request writes an object (what admission sees: create, update, patch). */
    public boolean writes() {
        return resourceRequest && (verb.equals("create") || verb.equals("update") || verb.equals("patch"));
    }

    /** Any value of {@code watch} but {@code false} and {@code 0} asks for a watch, as the parameter decoding reads it. */
    private static boolean watchRequested(String query) {
        return parameter(query, "watch").map(value -> !value.equalsIgnoreCase("false") && !value.equals("0"))
                .orElse(false);
    }

    /** {@code fieldSelector} requiring {@code metadata.name} exactly ({@code =} or {@code ==}), a valid path segment. */
    private static Optional<String> nameSelected(String query) {
        return parameter(query, "fieldSelector").flatMap(selector -> Arrays.stream(selector.split(","))
                .map(String::trim)
                .filter(term -> term.startsWith("metadata.name=") && !term.startsWith("metadata.name!="))
                .map(term -> term.substring(term.indexOf('=') + 1))
                .map(value -> value.startsWith("=") ? value.substring(1) : value)
                .filter(value -> !value.isEmpty() && !value.equals(".") && !value.equals("..")
                        && !value.contains("/") && !value.contains("%"))
                .findFirst());
    }

    private static Optional<String> parameter(String query, String name) {
        if (query == null) {
            return Optional.empty();
        }
        for (String pair : query.split("&")) {
            int equals = pair.indexOf('=');
            String key = decode(equals < 0 ? pair : pair.substring(0, equals));
            if (key.equals(name)) {
                return Optional.of(equals < 0 ? "" : decode(pair.substring(equals + 1)));
            }
        }
        return Optional.empty();
    }

    private static String decode(String text) {
        return URLDecoder.decode(text, StandardCharsets.UTF_8);
    }
}
