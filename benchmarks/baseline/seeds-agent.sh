#!/usr/bin/env bash
# Baseline for benchmarks/ only: the loop structure and timings of the original agent container script,
# carla-simulator/leaderboard-cloud leaderboard_2.0/docker/leaderboard/run_leaderboard.sh (branch main), reproduced
# by us: wait for simulator-ID.startK in 30 s steps (check first; at most 120), start the evaluator in the
# background, check every 5 s (sleep first) whether it ended, the log went idle (MAX_IDLE), the simulator crashed or
# the run was cancelled; then `sleep 5`, validate the checkpoint (missing or `"global_record": {}` → crash), kill,
# touch the done/crash file and wait for the simulator's file in 10 s steps (at most 60). Left out: GPU assignment,
# agent_sources.sh, the tee. The original kills with `pkill -9 'python|java|ros|publisher|catkin'` and checks
# `pgrep -f leaderboard_evaluator`; we use the evaluator's pid.
# Env: STATUS_DIR, WORKER_ID, EVALUATOR_COMMAND (the whole argv, whitespace-split), CHECKPOINT, LOG_FILE.
ID=${WORKER_ID:?}
STATUS=${STATUS_DIR:?}
CRASH_ID=$(find "$STATUS" -name "*agent-$ID.crash*" | wc -l)

AGENT_START_FILE="$STATUS/agent-$ID.start$CRASH_ID"
AGENT_DONE_FILE="$STATUS/agent-$ID.done"
AGENT_CRASH_FILE="$STATUS/agent-$ID.crash$CRASH_ID"
SIMULATOR_START_FILE="$STATUS/simulator-$ID.start$CRASH_ID"
SIMULATOR_DONE_FILE="$STATUS/simulator-$ID.done"
SIMULATOR_CRASH_FILE="$STATUS/simulator-$ID.crash$CRASH_ID"
SIMULATION_CANCEL_FILE="$STATUS/simulation.cancel"
AGENT_RESULTS=${CHECKPOINT:?}
AGENT_LOGS=${LOG_FILE:?}
MAX_IDLE=800

file_age() {
  echo "$(($(date +%s) - $(stat -c %Y "$1")))"
}

kill_all_processes() {
  # The program may run under a wrapper: its children first (by parent pid, never by name), then itself.
  pkill -9 -P "$LB_PID" 2>/dev/null || true
  kill -9 "$LB_PID" 2>/dev/null || true
}

kill_and_wait_for_simulator() {
  kill_all_processes
  if [ "$1" = "crash" ]; then touch "$AGENT_CRASH_FILE"; else touch "$AGENT_DONE_FILE"; fi
  for ((i = 1; i <= 60; i++)); do
    [ -f "$SIMULATOR_CRASH_FILE" ] && break
    [ -f "$SIMULATOR_DONE_FILE" ] && break
    sleep 10
  done
}

touch "$AGENT_LOGS"
for ((i = 1; i <= 120; i++)); do
  [ -f "$SIMULATOR_START_FILE" ] && break
  sleep 30
done
if ! [ -f "$SIMULATOR_START_FILE" ]; then kill_and_wait_for_simulator crash; exit 1; fi

# shellcheck disable=SC2086
$EVALUATOR_COMMAND >> "$AGENT_LOGS" 2>&1 &
LB_PID=$!
touch "$AGENT_START_FILE"

while sleep 5; do
  if [ "$(file_age "$AGENT_LOGS")" -gt "$MAX_IDLE" ]; then break; fi
  if ! kill -0 "$LB_PID" 2>/dev/null; then break; fi
  if [ -f "$SIMULATOR_CRASH_FILE" ]; then break; fi
  if [ -f "$SIMULATION_CANCEL_FILE" ]; then kill_all_processes; exit 0; fi
done

sleep 5

if ! [ -f "$AGENT_RESULTS" ] || grep -wq '"global_record": {}' "$AGENT_RESULTS"; then
  kill_and_wait_for_simulator crash
  exit 1
else
  kill_and_wait_for_simulator
  exit 0
fi
