#!/usr/bin/env bash
# live-ui.sh - commq ui serves the timeline page from a running daemon:
#
#  - `commq --socket S ui --last 5s` prints an address on 127.0.0.1 with a
#    random token and listens there only (ss); --listen off loopback is
#    refused;
#  - a request without the token, or with a wrong one, gets 403 (the page
#    and the data alike); with it, the page (no data inline) and the data
#    of the last 5 s (JSON, the slices of the window);
#  - in headless Chromium (tests/reports/browser.py live) the page draws,
#    a program started after it opened appears by its name within
#    --commit-ms + 1 s, pausing stops the updates and following resumes
#    them; screenshots in test-artifacts/timeline;
#  - SIGTERM stops commq ui (exit 0) and frees the port.
# Needs root and tracefs (FAILS without them), chromium, chromium-driver
# and python3-selenium.
. "$(dirname "$0")/lib.sh"
need_live

COMMIT_MS=200
in=$(inst ui)
db=$TMP/ui.db
sock=$TMP/$in.sock
chmod 0755 "$TMP"
start_ready "ui" "$TMP/commd.err" "$db" "$in" --commit-ms "$COMMIT_MS"

# off loopback: refused before anything listens
"$COMMQ" --socket "$sock" ui --listen 0.0.0.0:0 > "$TMP/ui0.out" 2> "$TMP/ui0.err" && rc=0 || rc=$?
check_eq "ui --listen 0.0.0.0: exit status" 1 "$rc"
check_true "ui --listen 0.0.0.0: says loopback only" "loopback only" "$(cat "$TMP/ui0.err")" \
	grep -q "loopback only" "$TMP/ui0.err"

"$COMMQ" --socket "$sock" ui --last 5s > "$TMP/ui.out" 2> "$TMP/ui.err" < /dev/null &
ui_pid=$!
HELPER_PIDS+=("$ui_pid")
url=
for ((i = 0; i < 100; i++)); do
	url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/?token=[0-9a-f]*' "$TMP/ui.out" 2> /dev/null || true)
	[ -n "$url" ] && break
	sleep 0.05
done
check_true "ui: prints its address with a token" "http://127.0.0.1:PORT/?token=HEX" "'$url'" \
	test -n "$url"
if [ -n "$url" ]; then
	port=${url#http://127.0.0.1:}
	port=${port%%/*}
	token=${url#*token=}
	check_eq "ui: the token is 128 random bits (32 hex digits)" 32 "${#token}"
	listening=$(ss -Hltn "sport = :$port" | awk '{ print $4 }' | tr '\n' ' ')
	check_eq "ui: listens on loopback only" "127.0.0.1:$port " "$listening"
	code() { curl -s -o "$TMP/body" -w '%{http_code}' "$1"; }
	check_eq "ui: the page without the token" 403 "$(code "http://127.0.0.1:$port/")"
	check_eq "ui: the data without the token" 403 "$(code "http://127.0.0.1:$port/data")"
	# the token with its last digit changed (never the same one)
	wrong=${token%?}$([ "${token: -1}" = 0 ] && echo 1 || echo 0)
	check_eq "ui: a wrong token" 403 "$(code "http://127.0.0.1:$port/data?token=$wrong")"
	check_eq "ui: the page with the token" 200 "$(code "$url")"
	check_true "ui: the page is the timeline, data fetched live" "COMMD_LIVE and no data inline" \
		"$(grep -c 'COMMD_LIVE = ' "$TMP/body") live marks" \
		grep -q 'application/json">null</script>' "$TMP/body"
	sleep 1
	check_eq "ui: the data with the token" 200 "$(code "http://127.0.0.1:$port/data?token=$token")"
	got=$(/usr/bin/python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print("ok" if d["n"][0] == len(d["s"]) // 7 and d["n"][0] > 0 and 4.5e9 <= d["window"][1] <= 5e9 else d["window"])' \
		"$TMP/body" 2>&1)
	check_eq "ui: the data holds the last 5 s of slices" ok "$got"
	check_eq "ui: a window past an hour" 400 "$(code "http://127.0.0.1:$port/data?token=$token&last=7200")"

	ART=${COMMD_ARTIFACTS:-$(dirname "$COMMQ")/test-artifacts}/timeline
	mkdir -p "$ART" && rm -f "$ART"/live-*.png
	marker=$(sleeper_copy "ui-marker-$$")
	COMMQ=$COMMQ timeout 120 /usr/bin/python3 "$(dirname "$0")/../reports/browser.py" live "$url" \
		"$ART" "$marker" "$COMMIT_MS" > "$TMP/browser.log" 2>&1 && rc=0 || rc=$?
	log "$(cat "$TMP/browser.log")"
	check_eq "ui: the live page in chromium (browser.py live)" 0 "$rc"
fi
kill -TERM "$ui_pid" 2> /dev/null
wait "$ui_pid" && rc=0 || rc=$?
check_eq "ui: exit status after SIGTERM" 0 "$rc"
[ -n "${port:-}" ] && check_eq "ui: the port is free after it stops" "" \
	"$(ss -Hltn "sport = :$port")"

stop_commd "$COMMD_PID" TERM
check_eq "ui: commd exit status after SIGTERM" 0 "$STOP_RC"
finish
