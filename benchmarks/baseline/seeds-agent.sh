#!/usr/bin/env bash
# Baseline for benchmarks/ only: the original run_leaderboard.sh's loop structure and timings, reproduced by us.
# A fixed 60 s sleep for CARLA to come up, then the evaluator in the background polled every 5 s, then a 10 s-step
# wait for the simulator's file. Env: STATUS_DIR, WORKER_ID, EVALUATOR_COMMAND, CHECKPOINT, START_SLEEP (default 60).
ID=${WORKER_ID:?}
STATUS=${STATUS_DIR:?}
CRASH_ID=$(ls "$STATUS" | grep -c "^agent-${ID}\.crash")
AGENT_DONE="$STATUS/agent-${ID}.done"
AGENT_CRASH="$STATUS/agent-${ID}.crash${CRASH_ID}"
SIMULATOR_DONE="$STATUS/simulator-${ID}.done"
SIMULATOR_CRASH="$STATUS/simulator-${ID}.crash${CRASH_ID}"
CANCEL="$STATUS/simulation.cancel"

sleep "${START_SLEEP:-60}"
echo "evaluator-start $(date +%s.%N)"
# shellcheck disable=SC2086
$EVALUATOR_COMMAND &
LB_PID=$!

while true; do
  if [ -f "$CANCEL" ]; then kill -9 $LB_PID 2>/dev/null; exit 0; fi
  if [ -f "$SIMULATOR_CRASH" ]; then kill -9 $LB_PID 2>/dev/null; break; fi
  if ! kill -0 $LB_PID 2>/dev/null; then break; fi
  sleep 5
done

if [ -s "$CHECKPOINT" ] && grep -q '"global_record": {"' "$CHECKPOINT"; then
  touch "$AGENT_DONE"; EXIT=0
else
  touch "$AGENT_CRASH"; EXIT=1
fi

waited=0
while [ $waited -lt "${PARTNER_WAIT:-600}" ]; do
  if [ -f "$SIMULATOR_DONE" ] || [ -f "$SIMULATOR_CRASH" ]; then break; fi
  sleep 10; waited=$((waited + 10))
done
exit $EXIT
