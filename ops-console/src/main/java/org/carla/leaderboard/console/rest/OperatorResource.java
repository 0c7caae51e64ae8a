package org.carla.leaderboard.console.rest;

import jakarta.annotation.security.RolesAllowed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.carla.leaderboard.console.config.ConsoleConfig;

import io.quarkus.runtime.annotations.RegisterForReflection;
import io.quarkus.security.identity.SecurityIdentity;

/** Who is signed in, and the page's settings. */
@Path("/api/operator")
public class OperatorResource {

    private final SecurityIdentity identity;
    private final ConsoleConfig config;

    OperatorResource(SecurityIdentity identity, ConsoleConfig config) {
        this.identity = identity;
        this.config = config;
    }

    @RegisterForReflection
    public record Operator(String name, long refreshSeconds, long windowDays) {
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    @RolesAllowed("${console.auth.operator-role}")
    public Operator operator() {
        return new Operator(identity.getPrincipal().getName(), config.pageRefresh().toSeconds(),
                config.window().toDays());
    }
}
