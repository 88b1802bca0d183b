#!/usr/bin/env bash
# Drives the standalone fake from outside Node, with curl and the JSON start line alone: the path
# a partner's suite in Python, Go or Ruby takes. Usage:
#   FAKE_CMD="npx restaurant-partner-fake" bash test/testing/curl-smoke.sh
set -euo pipefail

FAKE_CMD=${FAKE_CMD:-npx --no-install restaurant-partner-fake}
out=$(mktemp)
err=$(mktemp)
# shellcheck disable=SC2086 # FAKE_CMD is a command line on purpose.
$FAKE_CMD --port 0 --seed demo --rate-limit off >"$out" 2>"$err" &
pid=$!
cleanup() {
  kill "$pid" 2>/dev/null || true
  rm -f "$out" "$err"
}
trap cleanup EXIT

for _ in $(seq 1 150); do
  [ -s "$out" ] && break
  sleep 0.1
done
line=$(head -n 1 "$out")
[ -n "$line" ] || { echo "no start line; stderr:"; cat "$err"; exit 1; }

field() { printf '%s' "$line" | grep -o "\"$1\":\"[^\"]*\"" | head -n 1 | cut -d '"' -f 4; }
url=$(field url)
partner=$(field partnerId)
token=$(field apiToken)
api="$url/api/v1/partnership"

fail() { echo "FAIL: $*"; exit 1; }
# request METHOD URL [BODY] -> sets $status and $body
request() {
  local method=$1 target=$2 data=${3:-}
  local args=(-s -o "$out.body" -w '%{http_code}' -X "$method" -H 'content-type: application/json')
  [ -n "$data" ] && args+=(--data "$data")
  [ "${AUTH:-yes}" = yes ] && args+=(-u "$partner:$token")
  status=$(curl "${args[@]}" "$target")
  body=$(cat "$out.body")
  rm -f "$out.body"
}
expect_status() { [ "$status" = "$1" ] || fail "$2: expected $1, got $status: $body"; }
expect_body() { printf '%s' "$body" | grep -q -- "$1" || fail "$2: body lacks $1: $body"; }

AUTH=no request GET "$api/restaurants/"
expect_status 401 "no credentials"

request GET "$api/restaurants/"
expect_status 200 "list restaurants"
expect_body '"display_name":"Le Petit Sablon"' "list restaurants"

# Fix the fake's clock, so the booking below is inside the horizon whatever today is.
AUTH=no request POST "$url/_fake/clock/set" '{"now":"2030-01-07T08:00:00Z"}'
expect_status 200 "set clock"

request POST "$api/restaurants/1/reservations/" '{"start_time":"2030-01-08T19:00:00","adults":2,"first_name":"Curl"}'
expect_status 201 "create"
expect_body '"start_time":"2030-01-08T19:00:00+01:00"' "create"
id=$(printf '%s' "$body" | grep -o '"id":[0-9]*' | head -n 1 | cut -d ':' -f 2)

request PATCH "$api/restaurants/1/reservations/$id/?action=cancel" '{}'
expect_status 200 "cancel"
expect_body '"cancelled":true' "cancel"

request POST "$api/restaurants/1/reservations/" '{"start_time":"2030-01-08T19:00:00","adults":"two"}'
expect_status 400 "bad input"
expect_body '"adults":\[' "bad input"

request POST "$api/restaurants/2/reservations/" '{"start_time":"2030-01-08T20:00:00","adults":4}'
expect_status 201 "create (asynchronous restaurant)"
expect_body '"confirmed":false' "create (asynchronous restaurant)"
pending=$(printf '%s' "$body" | grep -o '"id":[0-9]*' | head -n 1 | cut -d ':' -f 2)

AUTH=no request POST "$url/_fake/restaurants/2/reservations/$pending/confirm"
expect_status 200 "restaurant confirms"
request GET "$api/restaurants/2/reservations/$pending/"
expect_body '"confirmed":true' "confirmed by the restaurant"

AUTH=no request POST "$url/_fake/clock/advance" '{"duration":"PT1H"}'
expect_status 200 "advance clock"
expect_body '"now":"2030-01-07T09:0' "advance clock"

AUTH=no request GET "$url/_fake/deliveries"
expect_status 200 "deliveries"

AUTH=no request POST "$url/_fake/faults" '{"operation":"restaurants.list","status":503}'
expect_status 201 "inject fault"
request GET "$api/restaurants/"
expect_status 503 "injected fault"

AUTH=no request POST "$url/_fake/reset"
expect_status 200 "reset"
request GET "$api/restaurants/1/reservations/"
expect_body '"count":0' "reset"

kill -TERM "$pid"
wait "$pid" || fail "the fake did not exit cleanly on SIGTERM (status $?)"
echo "curl smoke: ok ($url)"
