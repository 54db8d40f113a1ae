#!/bin/sh
# Runs once, when the data volume is empty (docker-entrypoint-initdb.d).
# One role per consumer so the app cannot read or alter Temporal's data, and vice versa.
# The temporal role gets no CREATEDB: temporal-sql-tool only sets up schema in these databases.
set -eu

psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
  -v leads_pw="$LEADS_DB_PASSWORD" \
  -v temporal_pw="$TEMPORAL_DB_PASSWORD" <<'SQL'
CREATE ROLE leads LOGIN PASSWORD :'leads_pw';
CREATE DATABASE leads OWNER leads;
REVOKE ALL ON DATABASE leads FROM PUBLIC;

CREATE ROLE temporal LOGIN PASSWORD :'temporal_pw';
CREATE DATABASE temporal OWNER temporal;
CREATE DATABASE temporal_visibility OWNER temporal;
REVOKE ALL ON DATABASE temporal FROM PUBLIC;
REVOKE ALL ON DATABASE temporal_visibility FROM PUBLIC;
SQL
