package org.carla.leaderboard.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.carla.leaderboard.localstack.LocalStack;
import org.carla.leaderboard.localstack.deploy.CloudFormationTemplate;
import org.carla.leaderboard.localstack.deploy.Deployment;
import org.carla.leaderboard.localstack.deploy.GrantUsage;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * deploy/aws's permissions against what the system did with them: every call the local runs of this build made to
 * the enforcing stack's AWS servers (this module's runs, in {@code target/e2e-run}, and each service's and
 * pod-runtime's own tests, in their {@code target/local-stack}) was allowed, and every grant of the template was used
 * by one of them — or its statement says in the template why no local run can use it. Runs after the other ITs
 * (its own failsafe execution, pom.xml): their decisions are what it reads.
 */
class PermissionsUsedIT {

    /** The modules whose tests run services or pods against the stack as their own principals. */
    static final List<String> MODULES = List.of("ingest-service", "job-launcher", "results-relay", "ops-console",
            "pod-runtime");

    static List<GrantUsage.Call> calls;

    @BeforeAll
    static void read() {
        Path project = Path.of(System.getProperty("e2e.project-dir", "..")).toAbsolutePath().normalize();
        var roots = new ArrayList<Path>();
        roots.add(Path.of(System.getProperty("e2e.work-dir", "target/e2e-run")).toAbsolutePath());
        MODULES.forEach(module -> roots.add(project.resolve(module).resolve("target/local-stack")));
        // This build's decisions only: target/ folders not cleaned keep earlier builds' logs, of other code.
        Instant started = Instant.parse(System.getProperty("e2e.build-started", Instant.EPOCH.toString()));
        calls = GrantUsage.calls(roots, started);
    }

    /** A refusal on a resource the template does not create (a test's deliberately missing bucket) is not one. */
    @Test
    void noCallOfAnyRunToWhatTheTemplateCreatesWasRefused() {
        Map<String, Integer> refused = GrantUsage.refusals(calls, Deployment.local(LocalStack.ACCOUNT_ID,
                LocalStack.REGION));

        assertThat(calls).as("the runs' recorded decisions").isNotEmpty();
        assertThat(refused).as("calls the code makes that deploy/aws does not allow (count of each)").isEmpty();
    }

    @Test
    void everyGrantOfTheTemplateIsUsedByARunOrSaysWhyNoneCan() {
        var template = CloudFormationTemplate.packaged(CloudFormationTemplate.BACKEND);
        var deployments = List.of(Deployment.local(LocalStack.ACCOUNT_ID, LocalStack.REGION),
                Deployment.of(template, Deployment.servicesConfig(), LocalStack.ACCOUNT_ID, LocalStack.REGION,
                        Map.of(Deployment.OIDC_PARAMETER, Deployment.localIssuer(LocalStack.REGION),
                                "ScopeToSubmissionPrefix", "true")));

        assertThat(GrantUsage.unused(GrantUsage.grants(template, deployments), calls))
                .as("grants no run used: remove them, or say in the template why no local run can ('"
                        + GrantUsage.JUSTIFIED + " ...' above the statement's Sid) and test them otherwise")
                .isEmpty();
    }
}
