#!/bin/sh
# One-shot: bring Temporal's databases to the schema this server version ships. Compose runs it in the
# temporalio/admin-tools image; `npm run cluster` runs it as it is, with the temporal-sql-tool it built on
# PATH. The schemas come from inside the tool (--schema-name), so nothing else needs to be installed.
# Safe on every start: setup-schema is a no-op once a version is recorded, update-schema applies only newer steps.
# The databases themselves come from deploy/postgres/initdb (the cluster creates the same roles and databases).
set -eu

: "${POSTGRES_SEEDS:?}" "${POSTGRES_USER:?}" "${SQL_PASSWORD:?}"
DB_PORT="${DB_PORT:-5432}"

sql() {
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$DB_PORT" -u "$POSTGRES_USER" "$@"
}

for pair in temporal:temporal temporal_visibility:visibility; do
  db=${pair%%:*}
  schema=${pair#*:}
  sql --db "$db" setup-schema -v 0.0
  sql --db "$db" update-schema --schema-name "postgresql/v12/$schema"
done

echo "Temporal schema is up to date"
