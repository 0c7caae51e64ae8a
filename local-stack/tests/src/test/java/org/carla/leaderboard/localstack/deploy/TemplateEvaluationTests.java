package org.carla.leaderboard.localstack.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** A template's values as CloudFormation would give them, and the packaged deploy/ files read the same way. */
class TemplateEvaluationTests {

    private static final CloudFormationTemplate TEMPLATE = CloudFormationTemplate.parse("""
            Parameters:
              Issuer:
                Type: String
                AllowedPattern: "^oidc\\\\.[a-z]+$"
              Scoped:
                Type: String
                Default: "false"
                AllowedValues: ["true", "false"]
            Conditions:
              IsScoped: !Equals [!Ref Scoped, "true"]
              IsWide: !Not [!Condition IsScoped]
            Resources:
              Files:
                Type: AWS::S3::Bucket
                Properties:
                  BucketName: !Sub files-${AWS::AccountId}-${AWS::Region}
              Queue:
                Type: AWS::SQS::Queue
              Wide:
                Type: AWS::IAM::Policy
                Condition: IsWide
                Properties:
                  PolicyName: wide
                  PolicyDocument:
                    Statement:
                      - Effect: Allow
                        Action: s3:GetObject
                        Resource:
                          - !Sub "${Files.Arn}/${!aws:PrincipalTag/id}/*"
                          - !If [IsScoped, !GetAtt Queue.Arn, !Ref AWS::NoValue]
                        Condition: {Bool: {"aws:SecureTransport": false}}
            Outputs:
              QueueUrl: {Value: !Ref Queue}
              WideOnly: {Condition: IsWide, Value: !Join ["-", [a, !Ref Issuer]]}
            """);

    @Test
    void functionsParametersAndConditionsEvaluateAsCloudFormationDoes() {
        var stack = new TemplateEvaluation(TEMPLATE, "lb", "111122223333", "eu-west-1", Map.of("Issuer", "oidc.x"));

        assertThat(stack.physicalName("Files")).isEqualTo("files-111122223333-eu-west-1");
        assertThat(stack.physicalName("Queue")).as("no name property: the stack's name and the logical id")
                .isEqualTo("lb-Queue");
        assertThat(stack.ofType("AWS::IAM::Policy")).containsExactly("Wide");
        Map<String, Object> statement = CloudFormationTemplate.map(CloudFormationTemplate.list(
                CloudFormationTemplate.map(stack.properties("Wide").get("PolicyDocument")).get("Statement")).get(0));
        assertThat(statement.get("Resource")).as("${!x} is a literal ${x}; AWS::NoValue drops the item")
                .isEqualTo(List.of("arn:aws:s3:::files-111122223333-eu-west-1/${aws:PrincipalTag/id}/*"));
        assertThat(stack.outputs()).containsEntry("QueueUrl",
                "https://sqs.eu-west-1.amazonaws.com/111122223333/lb-Queue").containsEntry("WideOnly", "a-oidc.x");

        var scoped = new TemplateEvaluation(TEMPLATE, "lb", "111122223333", "eu-west-1",
                Map.of("Issuer", "oidc.x", "Scoped", "true"));
        assertThat(scoped.ofType("AWS::IAM::Policy")).as("a resource whose condition is false does not exist").isEmpty();
        assertThat(scoped.outputs()).doesNotContainKey("WideOnly");
    }

    @Test
    void aParameterWithoutDefaultMustBeGivenAndEveryValueMustBeOneCloudFormationAccepts() {
        assertThatThrownBy(() -> new TemplateEvaluation(TEMPLATE, "lb", "1", "r", Map.of()))
                .hasMessageContaining("Issuer has no default");
        assertThatThrownBy(() -> new TemplateEvaluation(TEMPLATE, "lb", "1", "r", Map.of("Issuer", "https://x")))
                .hasMessageContaining("AllowedPattern");
        assertThatThrownBy(() -> new TemplateEvaluation(TEMPLATE, "lb", "1", "r",
                Map.of("Issuer", "oidc.x", "Scoped", "yes"))).hasMessageContaining("AllowedValues");
        assertThatThrownBy(() -> new TemplateEvaluation(TEMPLATE, "lb", "1", "r",
                Map.of("Issuer", "oidc.x", "Other", "1"))).hasMessageContaining("no parameter Other");
    }

    @Test
    void thePackagedDeploymentHasTheTemplatesTablesBucketsRolesAndTheConfigMapsStorageNames() {
        var deployment = Deployment.local("000000000000", "us-east-1");

        assertThat(deployment.tables()).extracting(Deployment.Table::name)
                .containsExactly("leaderboard-10", "leaderboard-20", "leaderboard-qualifiers", "route-ledger");
        assertThat(deployment.buckets()).containsExactly("carla-leaderboard-10-000000000000-us-east-1",
                "carla-leaderboard-20-000000000000-us-east-1");
        assertThat(deployment.roleOf("leaderboard", "results-relay")).get()
                .extracting(Deployment.Principal::name).isEqualTo("carla-leaderboard-results-relay");
        assertThat(deployment.roleOf("submissions", "submission-worker")).get()
                .satisfies(worker -> assertThat(worker.policies()).as("its two inline policies (progress, ledger) and the bucket-wide one")
                        .hasSize(3));
        assertThat(deployment.roleOf("leaderboard", "default")).isEmpty();
        assertThat(deployment.storage()).containsEntry("evaluation.leaderboards.leaderboard-20.bucket",
                "carla-leaderboard-20-000000000000-us-east-1").containsEntry("evaluation.qualifier-table",
                "leaderboard-qualifiers");
        assertThat(deployment.resourcePolicies()).containsOnlyKeys("arn:aws:s3:::carla-leaderboard-10-000000000000-us-east-1",
                "arn:aws:s3:::carla-leaderboard-20-000000000000-us-east-1");
        assertThat(deployment.unsupportedPolicies()).isEmpty();
    }
}
