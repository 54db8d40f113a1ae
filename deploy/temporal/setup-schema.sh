#!/bin/sh
# One-shot (temporalio/admin-tools): bring Temporal's databases to the schema this image version ships.
# Safe on every start: setup-schema is a no-op once a version is recorded, update-schema applies only newer steps.
# The databases themselves come from deploy/postgres/initdb.
set -eu

: "${POSTGRES_SEEDS:?}" "${POSTGRES_USER:?}" "${SQL_PASSWORD:?}"
DB_PORT="${DB_PORT:-5432}"
SCHEMA_ROOT=/etc/temporal/schema/postgresql/v12

sql() {
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$DB_PORT" -u "$POSTGRES_USER" "$@"
}

for pair in temporal:temporal temporal_visibility:visibility; do
  db=${pair%%:*}
  dir=${pair#*:}
  sql --db "$db" setup-schema -v 0.0
  sql --db "$db" update-schema -d "$SCHEMA_ROOT/$dir/versioned"
done

echo "Temporal schema is up to date"
