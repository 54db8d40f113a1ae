#!/bin/sh
# One-shot: register the app's namespace and its search attributes once the frontend answers. Idempotent.
# Compose runs it in the temporalio/admin-tools image; `npm run cluster` runs it as it is, with the
# temporal CLI on PATH.
set -eu

NS="${DEFAULT_NAMESPACE:-default}"
RETENTION="${DEFAULT_NAMESPACE_RETENTION:-168h}"
TEMPORAL_ADDRESS="${TEMPORAL_ADDRESS:-temporal:7233}"
host=${TEMPORAL_ADDRESS%:*}
port=${TEMPORAL_ADDRESS##*:}

# The search attributes the worker and the API set on workflows, so operators can filter them in the Web UI.
# The list is declared in domain/kernel/search-attributes.ts; a unit test holds this line to it.
SEARCH_ATTRIBUTES="WebhookEventType=Keyword WebhookEndpointId=Keyword WorkspaceId=Keyword ApprovalOperation=Keyword ApprovalStatus=Keyword"

# Temporal's own compose sample hands the CLI an IPv4 address rather than the service name; do the same.
ip=$(getent ahosts "$host" 2>/dev/null | awk '/STREAM/ { print $1; exit }' || true)
addr="${ip:-$host}:$port"

attempt=0
until temporal operator cluster health --address "$addr" >/dev/null 2>&1; do
  attempt=$((attempt + 1))
  if [ "$attempt" -ge 60 ]; then
    echo "Temporal frontend at $TEMPORAL_ADDRESS is not healthy" >&2
    exit 1
  fi
  sleep 1
done

if temporal operator namespace describe --namespace "$NS" --address "$addr" >/dev/null 2>&1; then
  echo "Namespace '$NS' already exists"
else
  temporal operator namespace create --namespace "$NS" --retention "$RETENTION" --address "$addr"
  echo "Namespace '$NS' created (retention $RETENTION)"
fi

# Frontends see a new namespace only after their registry refresh (about 10 s): wait until it answers,
# so the attributes below register and api/worker don't start into NamespaceNotFound.
attempt=0
until temporal workflow count --namespace "$NS" --address "$addr" >/dev/null 2>&1; do
  attempt=$((attempt + 1))
  if [ "$attempt" -ge 60 ]; then
    echo "Namespace '$NS' is not served by $TEMPORAL_ADDRESS after 60 s" >&2
    exit 1
  fi
  sleep 1
done

registered=$(temporal operator search-attribute list --namespace "$NS" --address "$addr")
for pair in $SEARCH_ATTRIBUTES; do
  name=${pair%%=*}
  type=${pair#*=}
  if printf '%s\n' "$registered" | grep -q "^ *$name "; then
    echo "Search attribute $name already registered"
  else
    temporal operator search-attribute create --namespace "$NS" --name "$name" --type "$type" --address "$addr" >/dev/null
    echo "Search attribute $name registered ($type)"
  fi
done
