#!/bin/sh
# Registers every connector file of /connectors (deploy/connectors) with Kafka Connect; one already
# registered is left as it is (409). Run by the compose service "connectors" once the services that own
# the databases are healthy: their migrations made the publication and the slot the connectors stream from.
set -eu
for file in /connectors/*.json; do
  status=$(curl -sS -o /tmp/answer -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    --data @"$file" "$CONNECT_URL/connectors")
  case "$status" in
    201) echo "registered $file" ;;
    409) echo "already registered: $file" ;;
    *) echo "registering $file failed with HTTP $status: $(cat /tmp/answer)" >&2; exit 1 ;;
  esac
done
