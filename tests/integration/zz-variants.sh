#!/usr/bin/env bash
set -euo pipefail
. "$(dirname "$0")/lib.sh"
for dat in /root/var/*.dat; do
	name=$(basename "$dat" .dat)
	db=$TMPDIR_TEST/$name.db
	import_ok "$dat" "$db" || continue
	check_counts "$dat" "$db" "$name.dat"
	log "$name: $TOTAL_RECORDS_SEEN records; slices $(q "$db" "select count(*), sum(dur) from sched") unknown-cpus $(q "$db" "select count(*) from sched where start_err is not null")"
done
finish
