package org.carla.leaderboard.deploy;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

/**
 * Finds the fields of a manifest that the Kubernetes schema does not know. fabric8 keeps an unknown field (a typo such
 * as {@code imagePullPolicey}) in the object's additionalProperties instead of failing, and the mock API server accepts
 * it, so an apply would silently drop what the author meant; this walk makes it a test failure.
 */
final class UnknownFields {

    private UnknownFields() {
    }

    /** Paths of the unknown fields, e.g. {@code spec.template.spec.containers[0].imagePullPolicey}. */
    static List<String> of(Object object) {
        List<String> found = new ArrayList<>();
        walk(object, "", found, new IdentityHashMap<>());
        return found;
    }

    private static void walk(Object object, String path, List<String> found, Map<Object, Boolean> seen) {
        if (object == null || seen.put(object, Boolean.TRUE) != null) {
            return;
        }
        if (object instanceof Collection<?> items) {
            int i = 0;
            for (Object item : items) {
                walk(item, path + "[" + i++ + "]", found, seen);
            }
            return;
        }
        if (object instanceof Map<?, ?> map) {
            map.forEach((key, value) -> walk(value, path + "[" + key + "]", found, seen));
            return;
        }
        if (object instanceof GenericKubernetesResource || !object.getClass().getName().startsWith("io.fabric8.kubernetes.api.model")) {
            return; // a custom resource has no schema here; a string, number or quantity has no fields
        }
        for (Method getter : object.getClass().getMethods()) {
            if (getter.getParameterCount() != 0 || Modifier.isStatic(getter.getModifiers())
                    || !getter.getName().startsWith("get") || getter.getName().equals("getClass")) {
                continue;
            }
            Object value = invoke(getter, object);
            if (getter.getName().equals("getAdditionalProperties")) {
                if (value instanceof Map<?, ?> extra) {
                    extra.keySet().forEach(key -> found.add(path.isEmpty() ? key.toString() : path + "." + key));
                }
                continue;
            }
            String name = Character.toLowerCase(getter.getName().charAt(3)) + getter.getName().substring(4);
            walk(value, path.isEmpty() ? name : path + "." + name, found, seen);
        }
    }

    private static Object invoke(Method getter, Object object) {
        try {
            return getter.invoke(object);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read " + getter, e);
        }
    }
}
