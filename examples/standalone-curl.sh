#!/usr/bin/env bash
# The standalone fake, driven with curl: what a partner's suite in Python, Go, Ruby or Java does.
# It reads the credentials from the server's JSON start line, books, plays the restaurant, cancels.
# `--rate-limit off` lets curl go as fast as it likes; leave it on to see the service's 429s.
#
#   bash examples/standalone-curl.sh
set -euo pipefail

start_line=$(mktemp)
fake_log=$(mktemp)
# npx runs the fake as a grandchild: give it its own process group (set -m) and stop the whole
# group, or the server outlives the script.
set -m
npx --no-install restaurant-partner-fake --seed demo --port 0 --rate-limit off >"$start_line" 2>"$fake_log" &
fake_pid=$!
set +m
trap 'kill -TERM -- "-$fake_pid" 2>/dev/null || true; rm -f "$start_line" "$fake_log"' EXIT
until [ -s "$start_line" ]; do
  # Stop waiting if the fake exited without its start line, and say why.
  kill -0 "$fake_pid" 2>/dev/null || { echo "the fake did not start:" >&2; cat "$fake_log" >&2; exit 1; }
  sleep 0.1
done

# {"url": ..., "partners": [{"partnerId", "apiToken", "name"}], "restaurants": [...]}
json_field() { grep -o "\"$1\":\"[^\"]*\"" "$start_line" | head -n 1 | cut -d '"' -f 4; }
url=$(json_field url)
credentials="$(json_field partnerId):$(json_field apiToken)"
api="$url/api/v1/partnership"
echo "fake service on $url"

echo; echo '$ curl -u "$credentials" $api/restaurants/'
curl -sS -u "$credentials" "$api/restaurants/"; echo

# Book tomorrow 20:00 at restaurant 2 (Europe/Paris, asynchronous: the restaurant confirms later).
tomorrow=$(date -u -d tomorrow +%F 2>/dev/null || date -u -v+1d +%F)  # GNU or BSD date
echo; echo "\$ curl -u \"\$credentials\" -H 'content-type: application/json' -X POST $api/restaurants/2/reservations/ -d '{\"start_time\": \"${tomorrow}T20:00:00\", \"adults\": 2, \"first_name\": \"Grace\"}'"
booking=$(curl -sS -u "$credentials" -H 'content-type: application/json' -X POST "$api/restaurants/2/reservations/" \
  -d "{\"start_time\": \"${tomorrow}T20:00:00\", \"adults\": 2, \"first_name\": \"Grace\"}")
echo "$booking"
id=$(echo "$booking" | grep -o '"id":[0-9]*' | head -n 1 | cut -d ':' -f 2)

echo; echo "\$ curl -X POST $url/_fake/restaurants/2/reservations/$id/confirm     # the control API plays the restaurant"
curl -sS -X POST "$url/_fake/restaurants/2/reservations/$id/confirm" | grep -o '"confirmed":[a-z]*'

echo; echo "\$ curl -u \"\$credentials\" -H 'content-type: application/json' -X PATCH '$api/restaurants/2/reservations/$id/?action=cancel' -d '{}'"
curl -sS -u "$credentials" -H 'content-type: application/json' -X PATCH "$api/restaurants/2/reservations/$id/?action=cancel" -d '{}' \
  | grep -o '"cancelled":[a-z]*'
