#!/bin/sh
# One-shot (temporalio/admin-tools): register the app's namespace once the frontend answers. Idempotent.
set -eu

NS="${DEFAULT_NAMESPACE:-default}"
RETENTION="${DEFAULT_NAMESPACE_RETENTION:-168h}"
TEMPORAL_ADDRESS="${TEMPORAL_ADDRESS:-temporal:7233}"
host=${TEMPORAL_ADDRESS%:*}
port=${TEMPORAL_ADDRESS##*:}

# Temporal's own compose sample hands the CLI an IPv4 address rather than the service name; do the same.
ip=$(getent ahosts "$host" | awk '/STREAM/ { print $1; exit }' || true)
addr="${ip:-$host}:$port"

attempt=0
until temporal operator cluster health --address "$addr" >/dev/null 2>&1; do
  attempt=$((attempt + 1))
  if [ "$attempt" -ge 30 ]; then
    echo "Temporal frontend at $TEMPORAL_ADDRESS is not healthy" >&2
    exit 1
  fi
  sleep 2
done

created=no
if temporal operator namespace describe --namespace "$NS" --address "$addr" >/dev/null 2>&1; then
  echo "Namespace '$NS' already exists"
else
  temporal operator namespace create --namespace "$NS" --retention "$RETENTION" --address "$addr"
  created=yes
fi

# The search attributes the worker sets on delivery workflows, so operators can filter them in the Web UI.
for sa in WebhookEventType WebhookEndpointId WorkspaceId ApprovalOperation ApprovalStatus; do
  temporal operator search-attribute create --namespace "$NS" --name "$sa" --type Keyword --address "$addr" >/dev/null 2>&1 ||
    echo "search attribute $sa already registered"
done

if [ "$created" = yes ]; then
  # Frontends see a new namespace only after their registry refresh (~10s);
  # wait so api/worker don't start into NamespaceNotFound on first boot.
  sleep 15
  echo "Namespace '$NS' created (retention $RETENTION)"
fi
