#!/bin/bash
# commq timeline in a real browser: headless Chromium draws the SVG and
# the HTML page at the size asked for, and the screenshots hold a picture
# (their PNG is several times that of a blank page of the same size); the
# page's script runs and answers what browser.py asks it (slices drawn in a
# 20 ms view against SQL, tooltip, waker, search, zoom).  Needs Debian's
# chromium, chromium-driver and python3-selenium.
set -euo pipefail
# shellcheck source=tests/reports/lib.sh
source "$(dirname "$0")/lib.sh"
need chromium chromium
import sched-drops
DB=$T/sched-drops.db

# chromium ARGS... — headless, offline, a profile of its own.
chromium_run() {
	local profile
	profile=$(mktemp -d "$T/profile.XXXXXX")
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$profile" "$@" 2>>"$T/chromium.log"
}

# shot URL PNG — a 1200x600 screenshot.
shot() {
	rm -f "$2"
	chromium_run --screenshot="$2" --window-size=1200,600 "$1" >/dev/null || true
	[[ -s $2 ]] || fail "chromium made no screenshot of $1: $(tail -n 5 "$T/chromium.log")"
}

# png_check NAME PNG — a PNG of 1200x600; prints its size in bytes.
png_check() {
	local sig dims
	sig=$(od -An -tx1 -N8 "$2" | tr -d ' \n')
	expect_eq "$1: PNG signature" 89504e470d0a1a0a "$sig"
	# IHDR: width and height, big-endian, at bytes 16-23
	dims=$(od -An -tu1 -j16 -N8 "$2" | awk '{
		printf "%d %d", (($1 * 256 + $2) * 256 + $3) * 256 + $4,
		               (($5 * 256 + $6) * 256 + $7) * 256 + $8 }')
	expect_eq "$1: screenshot size" "1200 600" "$dims"
}

commq_ok timeline_svg --db "$DB" timeline -o "$T/drops.svg"
commq_ok timeline_html --db "$DB" timeline -o "$T/drops.html"
height=$(grep -o '<svg [^>]*height="[0-9]*"' "$T/drops.svg" | sed 's/.*height="//; s/"//')
printf '<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="%s"><rect width="1200" height="%s" fill="#fff"/></svg>\n' \
	"$height" "$height" >"$T/blank.svg"
printf '<!DOCTYPE html>\n<html><body style="margin:8px">%s</body></html>\n' \
	"$(cat "$T/blank.svg")" >"$T/blank.html"

for kind in svg html; do
	shot "file://$T/blank.$kind" "$T/blank-$kind.png"
	shot "file://$T/drops.$kind" "$T/drops-$kind.png"
	[[ -s $T/blank-$kind.png && -s $T/drops-$kind.png ]] || continue
	png_check "blank $kind" "$T/blank-$kind.png"
	png_check "timeline $kind" "$T/drops-$kind.png"
	blank=$(stat -c %s "$T/blank-$kind.png")
	drawn=$(stat -c %s "$T/drops-$kind.png")
	((drawn > 3 * blank && drawn > blank + 10000)) ||
		fail "timeline $kind: the screenshot looks blank ($drawn bytes, a blank page $blank)"
done

# The page (timeline -o FILE.html) in a browser driven by chromedriver:
# browser.py says what it checks; its screenshots are kept in
# test-artifacts/timeline beside commq.
need chromedriver chromium-driver
/usr/bin/python3 -c 'import selenium' 2>/dev/null ||
	fail "timeline page: python3-selenium is not installed (Debian package python3-selenium)"
ART=${COMMD_ARTIFACTS:-$(dirname "$COMMQ")/test-artifacts}/timeline
mkdir -p "$ART" && rm -f "$ART"/[0-9]-*.png
import sched-v7
commq_ok timeline_page --db "$T/sched-v7.db" -q timeline -o "$T/v7.html"
COMMQ=$COMMQ timeout 300 /usr/bin/python3 "$(dirname "$0")/browser.py" file "$T/v7.html" \
	"$T/sched-v7.db" "$ART" >"$T/browser.log" 2>&1 ||
	fail "timeline page in chromium: $(cat "$T/browser.log")"
cat "$T/browser.log"
ls "$ART"/*.png >/dev/null 2>&1 || fail "timeline page: no screenshots kept in $ART"

finish
