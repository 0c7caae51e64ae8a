package org.carla.leaderboard.localstack.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The comparison of a template's grants with the gates' recorded decisions. */
class GrantUsageTests {

    private static final CloudFormationTemplate TEMPLATE = CloudFormationTemplate.parse("""
            Parameters:
              Issuer: {Type: String, Default: oidc.local}
            Resources:
              Files:
                Type: AWS::S3::Bucket
                Properties: {BucketName: files}
              Relay:
                Type: AWS::IAM::Role
                Properties:
                  RoleName: relay
                  AssumeRolePolicyDocument: {Statement: []}
                  Policies:
                    - PolicyName: relay
                      PolicyDocument:
                        Statement:
                          - Sid: Read
                            Effect: Allow
                            Action: ["s3:GetObject", "ecr:GetAuthorizationToken"]
                            Resource: !Sub "${Files.Arn}/*"
                          # Why: a rare path, tested elsewhere.
                          # Not exercised locally: the redrive, which no run plays.
                          - Sid: Redrive
                            Effect: Allow
                            Action: "s3:PutObject"
                            Resource: !Sub "${Files.Arn}/*"
                          - Sid: Write
                            Effect: Allow
                            Action: "s3:PutObject"
                            Resource: !Sub "${Files.Arn}/*/control/cancel"
            """);

    @Test
    void aGrantIsUsedByAnAllowedCallOfItsPrincipalAndAnExcusedOrUnservedOneIsNotAsked(@TempDir Path runs)
            throws IOException {
        Path log = Files.createDirectories(runs.resolve("stack/s3")).resolve("access.log");
        Files.writeString(log, String.join("\n",
                "1\tALLOW\trelay\ts3:GetObject\tarn:aws:s3:::files/sub-1/a",
                "2\tDENY\trelay\ts3:PutObject\tarn:aws:s3:::files/sub-1/control/cancel",
                "3\tALLOW\tother\ts3:PutObject\tarn:aws:s3:::files/sub-1/control/cancel",
                "4\tDENY\trelay\ts3:ListBucket\tarn:aws:s3:::no-such-bucket") + "\n");
        var deployment = Deployment.of(TEMPLATE, new java.util.Properties(), "1", "r", Map.of());

        var calls = GrantUsage.calls(List.of(runs, runs.resolve("missing")));
        var grants = GrantUsage.grants(TEMPLATE, List.of(deployment));

        assertThat(grants).extracting(GrantUsage.Grant::sid).as("ECR is not served; Redrive is excused")
                .containsExactly("Read", "Write");
        assertThat(GrantUsage.unused(grants, calls)).extracting(GrantUsage.Grant::sid)
                .as("a refusal or another principal's call uses nothing").containsExactly("Write");
        assertThat(GrantUsage.refusals(calls, deployment)).as("a refusal on what the template does not create is none of its")
                .containsExactly(Map.entry("DENY relay s3:PutObject arn:aws:s3:::files/sub-1/control/cancel", 1));
    }

    @Test
    void anEarlierBuildsDecisionsLeftInTargetAreNotThisBuilds(@TempDir Path runs) throws IOException {
        Path log = Files.createDirectories(runs.resolve("stack/s3")).resolve("access.log");
        Files.writeString(log, String.join("\n",
                "1000\tDENY\trelay\ts3:PutObject\tarn:aws:s3:::files/sub-1/control/cancel",
                "2000\tALLOW\trelay\ts3:GetObject\tarn:aws:s3:::files/sub-1/a",
                "not-a-time\tDENY\trelay\ts3:PutObject\tarn:aws:s3:::files/sub-1/control/cancel") + "\n");
        var deployment = Deployment.of(TEMPLATE, new java.util.Properties(), "1", "r", Map.of());

        var calls = GrantUsage.calls(List.of(runs), java.time.Instant.ofEpochMilli(2000));

        assertThat(calls).extracting(GrantUsage.Call::toString)
                .containsExactly("ALLOW relay s3:GetObject arn:aws:s3:::files/sub-1/a");
        assertThat(GrantUsage.refusals(calls, deployment)).isEmpty();
        assertThat(GrantUsage.refusals(GrantUsage.calls(List.of(runs)), deployment)).as("every build's")
                .containsOnlyKeys("DENY relay s3:PutObject arn:aws:s3:::files/sub-1/control/cancel");
    }
}
