#!/usr/bin/env bash
# Runs the evaluation backend on this machine.
#   ./run-local.sh [--submissions N] [--scenario happy|crash|cancel|resume|mixed] [--keep] [--native]
#                                           the whole system: the stack, the three services and ops-console from their
#                                           jars (--native: their native executables, and pod-runtime's), sample
#                                           submissions through the real path, progress, a table of the outcomes;
#                                           prints the address of the operators' page
#   ./run-local.sh --stack-only [options]   the local stack only (ElasticMQ, DynamoDB Local, S3Proxy, the EvalAI
#                                           stand-in, the Kubernetes API server and Job runner), until Ctrl-C
#   ./run-local.sh --help
# Builds what it needs first (./mvnw package, never install) when a jar is missing or older than its sources.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
STACK_JAR="$ROOT/local-stack/target/local-stack-1.0.0-SNAPSHOT.jar"
STACK_CLASSPATH="$ROOT/local-stack/target/local-stack-run.classpath"
# Touched after each build: Maven leaves a jar alone when its content did not change, so the jar's own time is no guide.
STACK_STAMP="$ROOT/local-stack/target/run-local.built"
# What the local stack is built from: a main source or pom newer than the stamp means a rebuild (and deploy/'s template,
# ConfigMap and manifests, which its jar packages: the AWS endpoints and the Kubernetes API server enforce them).
DEPLOY_SOURCES=(deploy/aws deploy/services deploy/kubernetes deploy/submissions deploy/cluster)
STACK_SOURCES=(pom.xml domain local-stack "${DEPLOY_SOURCES[@]}")
# The full run also needs the services' and pod-runtime's packaged jars.
ALL_MODULES=local-stack,pod-runtime,ingest-service,job-launcher,results-relay,ops-console
ALL_SOURCES=(pom.xml domain messaging local-stack "${DEPLOY_SOURCES[@]}" pod-runtime ingest-service job-launcher
  results-relay ops-console)
ALL_JARS=(pod-runtime ingest-service job-launcher results-relay ops-console)
ALL_STAMP="$ROOT/local-stack/target/run-local-all.built"
# --native: the same modules built by the Maven profile native (GraalVM's native-image from $GRAALVM_HOME).
NATIVE_STAMP="$ROOT/local-stack/target/run-local-native.built"

usage() {
  if [[ -f "$STACK_JAR" && -f "$STACK_CLASSPATH" ]]; then
    java -cp "$STACK_JAR:$(cat "$STACK_CLASSPATH")" org.carla.leaderboard.localstack.run.LocalRunMain --help
  else
    cat <<'EOF'
Usage: ./run-local.sh [--submissions N] [--scenario happy|crash|cancel|resume|mixed] [--keep] [--native] [--timeout S]
       ./run-local.sh --stack-only [stack options]
(the full text once the local stack is built: ./run-local.sh --help after a first run)
EOF
  fi
  cat <<'EOF'

--stack-only: start only the local stack and print its endpoints and the Quarkus configuration overrides that point a
service at it; Ctrl-C (SIGINT) or SIGTERM stops it, leaving no process behind. Stack options
(org.carla.leaderboard.localstack.LocalStackMain):
  --components a,b,...     sqs,dynamodb,s3,evalai,kubernetes (default: all)
  --<component>-port N     a fixed port, e.g. --sqs-port 9324 --s3-port 9000 (default: free ports)
  --work-dir DIR           logs and data (default: local-stack/target/run/<date-time>)
  --evaluation key=value   an evaluation.* override; repeatable
  --setting key=value      a local-stack.* setting (Job runner image profiles); repeatable
  --config FILE            a properties file of evaluation.* and local-stack.* keys
EOF
}

# True when the jar, its class path or the stamp is missing, or a main source or pom is newer than the stamp.
needs_build() {
  [[ -f "$STACK_JAR" && -f "$STACK_CLASSPATH" && -f "$STACK_STAMP" ]] || return 0
  local newer
  newer="$(cd "$ROOT" && find "${STACK_SOURCES[@]}" -path '*/target' -prune -o -type f \
    \( -path '*/src/main/*' -o -name pom.xml -o -path 'deploy/*' \) -newer "$STACK_STAMP" -print -quit)"
  [[ -n "$newer" ]]
}

build_stack() {
  if needs_build; then
    echo "run-local: building the local stack (./mvnw -B -q -pl local-stack -am package -DskipTests)" >&2
    (cd "$ROOT" && ./mvnw -B -q -pl local-stack -am package -DskipTests)
    touch "$STACK_STAMP"
  fi
}

has_option() {
  local wanted="$1"
  shift
  local arg
  for arg in "$@"; do
    [[ "$arg" == "$wanted" ]] && return 0
  done
  return 1
}

# exec: the JVM receives Ctrl-C/SIGTERM itself and its shutdown hook stops every server (SIGTERM, then SIGKILL after
# a grace period); the servers also exit on their own if this JVM is killed outright (their stdin pipe closes).
run_stack() {
  build_stack
  local args=("$@")
  if ! has_option --work-dir "${args[@]+"${args[@]}"}"; then
    args+=(--work-dir "$ROOT/local-stack/target/run/$(date +%Y%m%d-%H%M%S)")
  fi
  exec java -cp "$STACK_JAR:$(cat "$STACK_CLASSPATH")" org.carla.leaderboard.localstack.LocalStackMain \
    "${args[@]}"
}

# True when a program (jar, or native executable with --native), the stack's class path or the stamp is missing, or a
# main source or pom is newer than the stamp.
needs_full_build() {
  local native="$1" stamp="$ALL_STAMP"
  [[ "$native" == yes ]] && stamp="$NATIVE_STAMP"
  [[ -f "$STACK_JAR" && -f "$STACK_CLASSPATH" && -f "$stamp" ]] || return 0
  local module
  for module in "${ALL_JARS[@]}"; do
    if [[ "$native" == yes ]]; then
      compgen -G "$ROOT/$module/target/$module-*-runner" >/dev/null || return 0
    else
      [[ -f "$ROOT/$module/target/quarkus-app/quarkus-run.jar" ]] || return 0
    fi
  done
  local newer
  newer="$(cd "$ROOT" && find "${ALL_SOURCES[@]}" -path '*/target' -prune -o -type f \
    \( -path '*/src/main/*' -o -name pom.xml -o -path 'deploy/*' \) -newer "$stamp" -print -quit)"
  [[ -n "$newer" ]]
}

# The whole system (LocalRunMain): stack, services from their packaged jars (or native executables), sample
# submissions, the table. exec: Ctrl-C reaches the JVM, whose shutdown hook stops the services, the Job pods and the
# servers.
run_all() {
  local native=no
  has_option --native "$@" && native=yes
  if needs_full_build "$native"; then
    if [[ "$native" == yes ]]; then
      local graalvm=()
      [[ -n "${GRAALVM_HOME:-}" ]] && graalvm=("-Dquarkus.native.graalvm-home=$GRAALVM_HOME")
      echo "run-local: building native (./mvnw -B -q -Pnative -pl $ALL_MODULES -am package -DskipTests" \
        "${graalvm[*]+"${graalvm[*]}"}; minutes per executable)" >&2
      (cd "$ROOT" && ./mvnw -B -q -Pnative -pl "$ALL_MODULES" -am package -DskipTests \
        ${graalvm[@]+"${graalvm[@]}"})
      touch "$NATIVE_STAMP" "$STACK_STAMP"
    else
      echo "run-local: building (./mvnw -B -q -pl $ALL_MODULES -am package -DskipTests)" >&2
      (cd "$ROOT" && ./mvnw -B -q -pl "$ALL_MODULES" -am package -DskipTests)
      touch "$ALL_STAMP" "$STACK_STAMP"
    fi
  fi
  exec java -cp "$STACK_JAR:$(cat "$STACK_CLASSPATH")" org.carla.leaderboard.localstack.run.LocalRunMain \
    --project-dir "$ROOT" "$@"
}

main() {
  if [[ $# -eq 0 ]]; then
    run_all
  fi
  case "$1" in
    -h | --help)
      usage
      ;;
    --stack-only)
      shift
      if has_option --help "$@" || has_option -h "$@"; then
        usage
        exit 0
      fi
      run_stack "$@"
      ;;
    *)
      if has_option --stack-only "$@"; then
        local args=()
        local arg
        for arg in "$@"; do
          [[ "$arg" == --stack-only ]] || args+=("$arg")
        done
        run_stack "${args[@]}"
      fi
      run_all "$@"
      ;;
  esac
}

main "$@"
