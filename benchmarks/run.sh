#!/usr/bin/env bash
# Runs every benchmark of benchmarks/README.md on this machine and prints the table (also written to
# benchmarks/target/results.md). Exits 1, with the reasons, when a benchmark failed or measured nothing; 2 on bad usage.
#
#   benchmarks/run.sh [--only N]... [--quick | --smoke] [--native] [--no-build] [--set SERVICE:KEY=VALUE]...
#                     [--leaderboard-checkout DIR --leaderboard-cloud-checkout DIR]
#
# --only N      run benchmark N (1-7) only; may be repeated
# --quick       fewer iterations
# --smoke       a handful of samples each (what the build runs): shows that every benchmark measures
# --native      the services as their native executables (build them first: ./mvnw -B -Pnative package
#               -DskipTests -Dquarkus.native.graalvm-home=...); benchmark 4 measures pod-runtime's whenever it is built
# --no-build    use what target/ holds (default: build the modules needed first, without tests)
# --set SERVICE:KEY=VALUE
#               a configuration key of a service run from its jar (ingest-service, job-launcher, results-relay)
# --leaderboard-checkout DIR / --leaderboard-cloud-checkout DIR
#               carla-simulator/leaderboard (branch leaderboard-2.0) and carla-simulator/leaderboard-cloud: the
#               Python baseline of benchmark 2 (needs `dictor` and ScenarioRunner's `srunner` on PYTHONPATH)
set -euo pipefail
cd "$(dirname "$0")/.."

build=true
args=()
for arg in "$@"; do
  case "$arg" in
    --no-build) build=false ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) args+=("$arg") ;;
  esac
done

if $build; then
  echo "building benchmarks and the modules it runs (no tests)..."
  ./mvnw -B -q package -DskipTests -pl benchmarks -am
fi

classpath="$PWD/benchmarks/target/classes:$(cat benchmarks/target/benchmarks.classpath)"
echo "machine: $(nproc) cores, $(free -m | awk '/^Mem:/ {print $2 " MB memory"}'), $(java -version 2>&1 | head -1), load: $(cut -d' ' -f1-3 /proc/loadavg)"
# The harness stops every process it starts; exec so that Ctrl-C reaches it.
exec java -Xmx512m -Djava.util.logging.manager=org.jboss.logmanager.LogManager -cp "$classpath" org.carla.leaderboard.benchmarks.BenchmarkRun "${args[@]}"
