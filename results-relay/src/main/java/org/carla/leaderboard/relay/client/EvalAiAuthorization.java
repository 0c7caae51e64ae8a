package org.carla.leaderboard.relay.client;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.core.MultivaluedHashMap;
import jakarta.ws.rs.core.MultivaluedMap;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.rest.client.ext.ClientHeadersFactory;

/** Adds EvalAI's host token as a Bearer header; the token comes from {@code evalai.token} and is never logged. */
@ApplicationScoped
public class EvalAiAuthorization implements ClientHeadersFactory {

    private final String token;

    EvalAiAuthorization(@ConfigProperty(name = "evalai.token") String token) {
        this.token = token;
    }

    @Override
    public MultivaluedMap<String, String> update(MultivaluedMap<String, String> incoming,
            MultivaluedMap<String, String> outgoing) {
        var headers = new MultivaluedHashMap<String, String>();
        headers.putSingle("Authorization", "Bearer " + token);
        return headers;
    }

    @Override
    public String toString() {
        return "EvalAiAuthorization[token hidden]";
    }
}
