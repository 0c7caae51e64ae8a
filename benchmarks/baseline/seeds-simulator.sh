#!/usr/bin/env bash
# Baseline for benchmarks/ only: the original run_carla.sh's loop structure and timings, reproduced by us
# (the original is not public here). Starts CARLA, polls every 5 s, waits for the partner in 10 s steps.
# Env: STATUS_DIR, WORKER_ID, CARLA_SERVER_COMMAND (argv, whitespace-split), PARTNER_WAIT (s, default 600).
ID=${WORKER_ID:?}
STATUS=${STATUS_DIR:?}
CRASH_ID=$(ls "$STATUS" | grep -c "^simulator-${ID}\.crash")
AGENT_DONE="$STATUS/agent-${ID}.done"
AGENT_CRASH="$STATUS/agent-${ID}.crash${CRASH_ID}"
SIMULATOR_DONE="$STATUS/simulator-${ID}.done"
SIMULATOR_CRASH="$STATUS/simulator-${ID}.crash${CRASH_ID}"
CANCEL="$STATUS/simulation.cancel"

# shellcheck disable=SC2086
$CARLA_SERVER_COMMAND &
CARLA_PID=$!

while true; do
  if [ -f "$CANCEL" ]; then kill -9 $CARLA_PID 2>/dev/null; exit 0; fi
  if [ -f "$AGENT_DONE" ]; then kill -9 $CARLA_PID 2>/dev/null; touch "$SIMULATOR_DONE"; break; fi
  if [ -f "$AGENT_CRASH" ]; then kill -9 $CARLA_PID 2>/dev/null; touch "$SIMULATOR_CRASH"; EXIT=1; break; fi
  if ! kill -0 $CARLA_PID 2>/dev/null; then touch "$SIMULATOR_CRASH"; EXIT=1; break; fi
  sleep 5
done

waited=0
while [ $waited -lt "${PARTNER_WAIT:-600}" ]; do
  if [ -f "$AGENT_DONE" ] || [ -f "$AGENT_CRASH" ]; then break; fi
  sleep 10; waited=$((waited + 10))
done
exit ${EXIT:-0}
