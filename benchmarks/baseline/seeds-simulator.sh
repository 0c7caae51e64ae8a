#!/usr/bin/env bash
# Baseline for benchmarks/ only: the loop structure and timings of the original simulator container script,
# carla-simulator/leaderboard-cloud leaderboard_2.0/docker/carla/run_carla.sh (branch main), reproduced by us:
# start CARLA in the background, a fixed 60 s sleep "to ensure CARLA is ready", touch simulator-ID.startK, then
# check the status files every 5 s (sleep first); on the end, kill CARLA, touch the done/crash file and wait for
# the agent's file in 10 s steps (at most 60 of them). Left out: the GPU-assignment wait (no GPU here), the tee
# into a log. The original kills with `pkill -9 CarlaUE4` and checks `pgrep -f CarlaUE4`; we use CARLA's pid.
# Env: STATUS_DIR, WORKER_ID, CARLA_SERVER_COMMAND (whitespace-split, as the original's unquoted command line),
# START_SLEEP (default 60, the original's).
ID=${WORKER_ID:?}
STATUS=${STATUS_DIR:?}
CRASH_ID=$(find "$STATUS" -name "*simulator-$ID.crash*" | wc -l)

SIMULATOR_START_FILE="$STATUS/simulator-$ID.start$CRASH_ID"
SIMULATOR_DONE_FILE="$STATUS/simulator-$ID.done"
SIMULATOR_CRASH_FILE="$STATUS/simulator-$ID.crash$CRASH_ID"
AGENT_DONE_FILE="$STATUS/agent-$ID.done"
AGENT_CRASH_FILE="$STATUS/agent-$ID.crash$CRASH_ID"
SIMULATION_CANCEL_FILE="$STATUS/simulation.cancel"

kill_all_processes() {
  # The program may run under a wrapper: its children first (by parent pid, never by name), then itself.
  pkill -9 -P "$CARLA_PID" 2>/dev/null || true
  kill -9 "$CARLA_PID" 2>/dev/null || true
}

kill_and_wait_for_agent() {
  kill_all_processes
  if [ "$1" = "crash" ]; then touch "$SIMULATOR_CRASH_FILE"; else touch "$SIMULATOR_DONE_FILE"; fi
  for ((i = 1; i <= 60; i++)); do
    [ -f "$AGENT_CRASH_FILE" ] && break
    [ -f "$AGENT_DONE_FILE" ] && break
    sleep 10
  done
}

# shellcheck disable=SC2086
$CARLA_SERVER_COMMAND &
CARLA_PID=$!

sleep "${START_SLEEP:-60}"
touch "$SIMULATOR_START_FILE"

while sleep 5; do
  if [ -f "$AGENT_CRASH_FILE" ]; then kill_and_wait_for_agent crash; exit 1; fi
  if [ -f "$AGENT_DONE_FILE" ]; then kill_and_wait_for_agent; exit 0; fi
  if ! kill -0 "$CARLA_PID" 2>/dev/null; then kill_and_wait_for_agent crash; exit 1; fi
  if [ -f "$SIMULATION_CANCEL_FILE" ]; then kill_all_processes; exit 0; fi
done
