#!/bin/sh
# Registers every connector file of /connectors (deploy/connectors) with Kafka Connect, or updates one
# registered before to the file's configuration (PUT .../config creates or replaces), so a stack started
# again after an upgrade streams with the current settings. Run by the compose service "connectors" once
# the services that own the databases are healthy: their migrations made the publication and the slot
# the connectors stream from. The files' layout is the generator's (OutboxConnectors): the name on line
# 2, the configuration object from line 3 to the second last line.
set -eu
for file in /connectors/*.json; do
  name=$(sed -n 's/^  "name": "\(.*\)",$/\1/p' "$file")
  { echo '{'; sed -e '1,3d' -e '$d' "$file"; } > /tmp/config.json
  status=$(curl -sS -o /tmp/answer -w '%{http_code}' -X PUT -H 'Content-Type: application/json' \
    --data @/tmp/config.json "$CONNECT_URL/connectors/$name/config")
  case "$status" in
    201) echo "registered $name" ;;
    200) echo "updated $name" ;;
    *) echo "registering $name failed with HTTP $status: $(cat /tmp/answer)" >&2; exit 1 ;;
  esac
done
