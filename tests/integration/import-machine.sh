#!/usr/bin/env bash
# import-machine.sh - capture.host and capture.kernel of an import are the
# recording machine's, as trace-cmd saved them in the file's UNAME option
# (`trace-cmd dump --options`: "Linux vm 6.18.44-fc-v769 x86_64", uname's
# sysname, nodename, release and machine), not the importing machine's.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

for dat in "$TESTDATA"/*.dat "$TESTDATA"/cases/exec-fd.dat; do
	name=$(basename "$dat")
	uname=$(trace-cmd dump --options -i "$dat" 2> /dev/null |
		awk '/Option UNAME/ { getline; print; exit }')
	read -r _ want_host want_kernel _ <<< "$uname"
	check_eq "$name: the UNAME option (sysname nodename release machine)" yes \
		"$([ -n "$want_kernel" ] && echo yes || echo "no ('$uname')")" || continue
	db=$TMPDIR_TEST/$name.db
	import_ok "$dat" "$db" || continue
	check_eq "$name: capture.host|capture.kernel" "$want_host|$want_kernel" \
		"$(q "$db" "select coalesce(host, 'NULL') || '|' || coalesce(kernel, 'NULL') from capture")" || true
done
finish
