package org.carla.leaderboard.console.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import jakarta.enterprise.context.ApplicationScoped;

import org.carla.leaderboard.console.config.ConsoleConfig;
import org.jboss.logging.Logger;

import io.quarkus.security.identity.IdentityProviderManager;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.AuthenticationRequest;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.quarkus.vertx.http.runtime.security.ChallengeData;
import io.quarkus.vertx.http.runtime.security.HttpAuthenticationMechanism;
import io.smallrye.mutiny.Uni;
import io.vertx.ext.web.RoutingContext;

/**
 * The local stack's operator sign-in: {@code Authorization: Bearer <token>} against the static tokens of
 * {@code console.auth.operator-tokens.<operator>}, compared in constant time (as digests, so the length of a token is
 * not told either); the operator's name becomes the identity every action is logged with. Inactive when no token is
 * configured (the cluster, where OIDC signs operators in). A token that matches none is left to the other mechanisms.
 * Tokens are never logged.
 */
@ApplicationScoped
public class OperatorTokenAuthentication implements HttpAuthenticationMechanism {

    private static final Logger LOG = Logger.getLogger(OperatorTokenAuthentication.class);
    private static final String BEARER = "Bearer ";

    private final Map<String, byte[]> digests = new LinkedHashMap<>();
    private final String role;

    OperatorTokenAuthentication(ConsoleConfig config) {
        this.role = config.auth().operatorRole();
        config.auth().operatorTokens().forEach((operator, token) -> {
            if (token == null || token.length() < 16) {
                throw new IllegalStateException("console.auth.operator-tokens." + operator
                        + " is shorter than 16 characters");
            }
            digests.put(operator, digest(token));
        });
        if (!digests.isEmpty()) {
            LOG.infof("static operator tokens accepted for: %s", String.join(", ", digests.keySet()));
        }
    }

    @Override
    public Uni<SecurityIdentity> authenticate(RoutingContext context, IdentityProviderManager identityProviderManager) {
        String header = context.request().getHeader("Authorization");
        if (digests.isEmpty() || header == null || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return Uni.createFrom().nullItem();
        }
        byte[] presented = digest(header.substring(BEARER.length()).trim());
        String operator = null;
        for (var entry : digests.entrySet()) {
            if (MessageDigest.isEqual(presented, entry.getValue()) && operator == null) {
                operator = entry.getKey();
            }
        }
        if (operator == null) {
            return Uni.createFrom().nullItem();
        }
        return Uni.createFrom().item(QuarkusSecurityIdentity.builder().setPrincipal(new QuarkusPrincipal(operator))
                .addRole(role).addAttribute("authentication", "operator-token").build());
    }

    @Override
    public Uni<ChallengeData> getChallenge(RoutingContext context) {
        return Uni.createFrom().item(new ChallengeData(401, "WWW-Authenticate", "Bearer realm=\"ops-console\""));
    }

    @Override
    public Set<Class<? extends AuthenticationRequest>> getCredentialTypes() {
        return Set.of();
    }

    private static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
