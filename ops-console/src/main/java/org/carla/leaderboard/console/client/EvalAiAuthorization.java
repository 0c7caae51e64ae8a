package org.carla.leaderboard.console.client;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.core.MultivaluedHashMap;
import jakarta.ws.rs.core.MultivaluedMap;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.eclipse.microprofile.rest.client.ext.ClientHeadersFactory;

/** The operators' EvalAI host token ({@code evalai.token}) as a Bearer header; never logged. */
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
