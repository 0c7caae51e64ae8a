#!/usr/bin/env bash
# Prints the manifests with this installation's AWS account and region in place of the ACCOUNT_ID and REGION
# placeholders (IRSA role ARNs, queue URLs, bucket names, ECR image names) and of the generated manifests' image
# registry ecr-registry.invalid (a reserved name that never resolves: an unrendered manifest pulls nothing),
# ready for kubectl apply -f -.
#
#   deploy/render.sh <account-id> <region> [file...]
#
# Without files: the services' namespace, ConfigMap and NetworkPolicies, the submissions namespace, ServiceAccount and
# NetworkPolicies, and the generated service manifests, in the order they must be applied (the policies that need the
# AWS CLI come from deploy/render-gateway-egress.sh). Only whole-word placeholders are replaced (AWS_REGION stays).
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 <account-id> <region> [file...]" >&2; exit 2; }
account=$1
region=$2
shift 2
# Checked before they reach sed: nothing but digits, and a region's letters, digits and dashes.
[[ $account =~ ^[0-9]{12}$ ]] || { echo "error: the account id must be 12 digits, got '$account'" >&2; exit 2; }
[[ $region =~ ^[a-z]{2}(-[a-z]+)+-[0-9]$ ]] || { echo "error: not an AWS region: '$region'" >&2; exit 2; }

deploy=$(cd "$(dirname "$0")" && pwd)
if [ $# -eq 0 ]; then
  set -- "$deploy"/services/namespace.yml "$deploy"/services/leaderboard-config.yml \
         "$deploy"/services/network-policies.yml \
         "$deploy"/submissions/namespace.yml "$deploy"/submissions/submission-worker.yml \
         "$deploy"/submissions/network-policies.yml
  for generated in "$deploy"/kubernetes/*.yml; do
    [ -e "$generated" ] && set -- "$@" "$generated"
  done
fi

for file in "$@"; do
  [ -f "$file" ] || { echo "error: no such file: $file" >&2; exit 2; }
  echo "---"
  echo "# from ${file#"$deploy"/}"
  sed -e "s/\\bACCOUNT_ID\\b/$account/g" -e "s/\\bREGION\\b/$region/g" \
      -e "s#\\becr-registry\\.invalid/#$account.dkr.ecr.$region.amazonaws.com/#g" "$file"
done
