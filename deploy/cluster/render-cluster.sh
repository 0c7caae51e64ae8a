#!/usr/bin/env bash
# Prints deploy/cluster/cluster.yaml ready for eksctl: ACCOUNT_ID and REGION filled in by deploy/render.sh, and every
# NETWORK_<output> placeholder replaced by that output of the network stack (deploy/aws/network.yaml), read with the
# AWS CLI.
#
#   deploy/cluster/render-cluster.sh <account-id> <region> [network-stack-name]   (default carla-leaderboard-network)
#
# Refuses, before printing anything, an output the file names but the stack lacks, and any output value that is not a
# VPC or subnet id.
set -euo pipefail

[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: $0 <account-id> <region> [network-stack-name]" >&2; exit 2; }
account=$1
region=$2
stack=${3:-carla-leaderboard-network}
[[ $stack =~ ^[A-Za-z][A-Za-z0-9-]{0,127}$ ]] || { echo "error: not a stack name: '$stack'" >&2; exit 2; }
deploy=$(cd "$(dirname "$0")/.." && pwd)

# render.sh checks the account and the region
rendered=$("$deploy"/render.sh "$account" "$region" "$deploy"/cluster/cluster.yaml)

outputs=$(aws cloudformation describe-stacks --region "$region" --stack-name "$stack" \
  --query 'Stacks[0].Outputs[].[OutputKey,OutputValue]' --output text)

declare -A value
while IFS=$'\t' read -r key val; do
  [ -n "$key" ] || continue
  [[ $key =~ ^[A-Za-z0-9]+$ ]] || { echo "error: unexpected output name '$key' of stack $stack" >&2; exit 2; }
  # ids only: nothing else may reach sed or eksctl
  [[ $val =~ ^(vpc|subnet)-[0-9a-f]{8,17}$ ]] \
    || { echo "error: output $key of stack $stack is not a VPC or subnet id: '$val'" >&2; exit 2; }
  value[$key]=$val
done <<< "$outputs"

for placeholder in $(grep -o '\bNETWORK_[A-Za-z0-9]\+\b' <<< "$rendered" | sort -u); do
  key=${placeholder#NETWORK_}
  [ -n "${value[$key]:-}" ] || { echo "error: stack $stack has no output $key (for $placeholder)" >&2; exit 2; }
  rendered=$(sed -e "s/\\b$placeholder\\b/${value[$key]}/g" <<< "$rendered")
done

printf '%s\n' "$rendered"
