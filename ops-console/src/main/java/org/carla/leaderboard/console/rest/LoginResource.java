package org.carla.leaderboard.console.rest;

import java.net.URI;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;

import io.quarkus.security.Authenticated;

/**
 * Where the page sends the browser when OIDC asks for a sign-in (the API's 499): reaching it needs an identity, which
 * starts the identity provider's code flow; signed in, on to the page. Not a resource at {@code /}: that would hide
 * the page's static files.
 */
@Path("/login")
public class LoginResource {

    @GET
    @Authenticated
    public Response login() {
        return Response.seeOther(URI.create("/")).build();
    }
}
