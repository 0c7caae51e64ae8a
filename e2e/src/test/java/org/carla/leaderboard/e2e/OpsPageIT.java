package org.carla.leaderboard.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.carla.leaderboard.localstack.run.LocalRun;
import org.carla.leaderboard.localstack.run.LocalRunConfig;
import org.carla.leaderboard.localstack.run.LocalSystem;
import org.carla.leaderboard.localstack.run.Packaging;
import org.carla.leaderboard.localstack.run.RunLog;
import org.carla.leaderboard.localstack.run.Scenario;
import org.carla.leaderboard.localstack.run.SubmissionRun;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The operators' page in a real browser (Debian's chromium, through chromedriver) during a local run, as an operator
 * uses it: sign in with the run's operator token, see the submissions, open one that runs, cancel it, and see it end
 * CANCELLED on EvalAI; then the command line refuses to resume it. One stack and one browser for the whole story, to
 * keep it short on 2 cores.
 */
class OpsPageIT {

    private static final Duration STEP = Duration.ofSeconds(90);
    private static LocalSystem system;
    private static WebDriver browser;
    private static Path workDir;
    private static SubmissionRun happy;
    private static SubmissionRun slow;

    @BeforeAll
    static void startTheSystemAndABrowser() throws IOException {
        Path projectDir = Path.of(System.getProperty("e2e.project-dir", "..")).toAbsolutePath().normalize();
        workDir = Path.of(System.getProperty("e2e.work-dir", "target/e2e-run")).toAbsolutePath()
                .resolve("ops-page-" + System.currentTimeMillis());
        RunLog.toFile(workDir.resolve("local-run.log"));
        system = LocalSystem.start(LocalRunConfig.demo(projectDir, workDir, Packaging.fromSystemProperty()));
        // The slow one's second route lasts 4 minutes (the cancel scenario's knobs); nobody plays the host here but the
        // page.
        var runs = new LocalRun(system).submit(List.of(Scenario.HAPPY, Scenario.CANCEL));
        happy = runs.get(0);
        slow = runs.get(1);

        var options = new ChromeOptions();
        options.setBinary("/usr/bin/chromium");
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--disable-quic", "--window-size=1400,1100",
                "--user-data-dir=" + Files.createDirectories(workDir.resolve("chromium-profile")));
        var driver = new ChromeDriverService.Builder().usingDriverExecutable(new File("/usr/bin/chromedriver"))
                .usingAnyFreePort().withLogFile(workDir.resolve("chromedriver.log").toFile()).build();
        browser = new ChromeDriver(driver, options);
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (system != null) {
            system.close();
        }
    }

    @Test
    void anOperatorSeesTheSubmissionsOpensOneCancelsItAndEvalAiShowsItCancelled() throws Exception {
        browser.get(system.consoleUrl());
        await().atMost(STEP).ignoreExceptions().until(() -> browser.findElement(By.id("token")).isDisplayed());
        browser.findElement(By.id("token")).sendKeys(system.config().operatorToken());
        browser.findElement(By.id("sign-in-button")).click();
        await().atMost(STEP).ignoreExceptions().until(() -> browser.findElement(By.id("operator")).getText()
                .equals("operator " + LocalRunConfig.OPERATOR));

        // Both submissions are listed; the slow one runs.
        await().atMost(STEP).ignoreExceptions().until(() -> row(happy) != null && row(slow) != null);
        await().atMost(STEP).ignoreExceptions().until(() -> row(slow).getText().contains("RUNNING"));
        screenshot("ops-page-overview.png");

        row(slow).click();
        await().atMost(STEP).ignoreExceptions().until(() -> browser.findElement(By.id("detail-id")).getText()
                .equals(slow.submissionId()));
        assertThat(browser.findElement(By.id("detail-team")).getText()).contains("Team 2");
        // What the running pod ran: each container by digest, and the CARLA server's version that init read.
        await().atMost(STEP).ignoreExceptions().until(() -> browser.findElements(By.cssSelector("#images tbody tr"))
                .stream().anyMatch(image -> image.getText().contains("agent-1")));
        assertThat(browser.findElements(By.cssSelector("#images tbody tr td:nth-child(4)")))
                .allSatisfy(digest -> assertThat(digest.getText()).matches("[^@\\s]+@sha256:[0-9a-f]{64}"));
        await().atMost(STEP).ignoreExceptions().until(() -> browser.findElement(By.id("versions")).getText()
                .contains("CARLA server"));
        await().atMost(STEP).ignoreExceptions().until(() -> browser.findElement(By.id("cancel-button")).isEnabled());
        // The operator cancels once EvalAI shows the first route reported, as the local run's host does: while the
        // second route drives (4 minutes) no partial update goes out. Earlier, while the first route drives, the
        // partial that reports it may follow the relay's list by an instant in which a cancel is overwritten (EvalAI
        // has no conditional update; results-relay's README).
        await().atMost(STEP).until(() -> slow.read(system.stack().evalAi()).routesDone() >= 1);

        browser.findElement(By.id("cancel-button")).click();
        browser.findElement(By.id("confirm-yes")).click();
        await().atMost(STEP).ignoreExceptions().until(() -> browser.findElement(By.id("action-message")).getText()
                .contains("cancelled on EvalAI"));

        // The relay sees the cancel, the pod stops, the run ends CANCELLED: on the page and on EvalAI.
        await().atMost(STEP).ignoreExceptions().until(() -> browser.findElement(By.id("detail-status")).getText()
                .equals("CANCELLED"));
        screenshot("ops-page-cancelled.png");
        assertThat(system.stack().evalAi().submission(slow.pk()).orElseThrow().status()).isEqualTo("cancelled");
        assertThat(system.stack().evalAi().calls()).anySatisfy(call -> {
            assertThat(call.method()).isEqualTo("PUT");
            assertThat(call.path()).endsWith("/update_submission/");
            assertThat(call.body()).contains("\"submission\":" + slow.pk()).containsIgnoringCase("cancelled");
        });
        await().atMost(STEP).ignoreExceptions().until(() -> !browser.findElement(By.id("cancel-button")).isEnabled());

        // The command line, on the same API: resuming a cancelled submission is refused, and says why.
        var resume = cli("resume", Long.toString(slow.pk()));
        assertThat(resume.exitCode).isEqualTo(1);
        assertThat(resume.errors).contains("is CANCELLED: only a failed submission can be resumed");
        var list = cli("submissions", "--status", "CANCELLED");
        assertThat(list.exitCode).isZero();
        assertThat(list.output).contains(slow.submissionId());

        // Back to the list: both ended, with their routes and GPU-hours, and the day's GPU-hours drawn.
        browser.findElement(By.linkText("← all submissions")).click();
        await().atMost(STEP).ignoreExceptions().until(() -> row(happy).getText().contains("FINISHED")
                && row(happy).getText().contains("4/4") && row(slow).getText().contains("CANCELLED"));
        await().atMost(STEP).ignoreExceptions().until(() -> !browser.findElements(
                By.cssSelector("#days-chart svg rect")).isEmpty());
        // The backend's health: every live queue's oldest message has an age, read from the local stack's CloudWatch.
        await().atMost(STEP).ignoreExceptions().until(() -> {
            var queues = browser.findElements(By.cssSelector("#queues tbody tr"));
            return queues.size() == 4 && queues.stream().allMatch(queue -> queue.findElements(By.tagName("td")).get(4)
                    .getText().matches("\\d+ (s|min)"));
        });
        screenshot("ops-page-ended.png");
        var health = cli("health");
        assertThat(health.exitCode).isZero();
        assertThat(health.output).contains("OLDEST");
        assertThat(health.output.lines().filter(line -> line.startsWith("submissions "))).singleElement()
                .asString().containsPattern("\\d+ s ");
    }

    private static WebElement row(SubmissionRun submission) {
        var rows = browser.findElements(By.cssSelector("#submissions tr[data-submission='" + submission.submissionId()
                + "']"));
        return rows.isEmpty() ? null : rows.get(0);
    }

    private static void screenshot(String name) throws IOException {
        Files.write(workDir.resolve(name), ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
    }

    private record Result(int exitCode, String output, String errors) {
    }

    private static Result cli(String... args) throws Exception {
        var config = system.config();
        var command = new ArrayList<>(config.packaging().command(config.program("ops-cli"),
                List.of("-XX:TieredStopAtLevel=1")));
        command.addAll(List.of(args));
        command.addAll(List.of("--url", system.consoleUrl(), "--token-file",
                system.config().operatorTokenFile().toString()));
        Path out = Files.createTempFile(workDir, "ops-cli", ".out");
        Path err = Files.createTempFile(workDir, "ops-cli", ".err");
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("ops-cli " + String.join(" ", args) + " did not end within 60 s");
        }
        return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
