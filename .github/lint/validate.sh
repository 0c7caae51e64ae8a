#!/usr/bin/env bash
# Installs the pinned validators from npm (package-lock.json) and validates the workflows, the CloudFormation template
# and the Dockerfiles. Needs Node.js 18+ and the npm registry; nothing else.
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
exec node validate.mjs "$(cd ../.. && pwd)"
