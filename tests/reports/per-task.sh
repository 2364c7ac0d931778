#!/bin/bash
# commq latency --by pid|comm [--preempt] and commq wakers PID, against awk
# over the raw rows:
#   - per pid: run time and slices from sched, waits from wakeup_latency
#     (count, average, maximum, when the longest began), and with
#     --preempt also the gap from each slice left in R or R+ (state & 255
#     = 0, not lost) to the pid's next slice, computed by awk from the
#     slices in order (none across a loss or a new lifetime of the pid);
#     --by comm the same per name, and its pids those that ran or
#     waited; a task is a pid's lifetime (cases/pid-reuse.dat: a row per
#     lifetime, as top --by thread);
#   - preempt_wait (the view) has exactly awk's gaps;
#   - wakers: for each wakeup of a pid, the waker's last wakeup before it,
#     and that one's, three levels deep (awk walks the wakeup_latency rows).
# The whole capture of each fixture; the refusals.
set -euo pipefail
# shellcheck source=tests/reports/lib.sh
source "$(dirname "$0")/lib.sh"
import sched-v7
import sched-drops
TAB=$'\t'

for fixture in sched-v7 sched-drops; do
	DB=$T/$fixture.db
	# awk's preemption gaps: pid, ts (the slice's end), gap, cpu, run_cpu;
	# none across a loss's gap (from the CPU's last record before it to its
	# stamp, any CPU) or a new lifetime of the pid
	{
		ref -separator "$TAB" "$DB" "select 'L', coalesce(from_ts, ts - 1), ts from lost_events"
		ref -separator "$TAB" "$DB" "select 'B', pid, start_ts from comm_history
			where source in ('task_newtask', 'sched_process_fork')"
		ref -separator "$TAB" "$DB" "select 'S', pid, ts, dur, cpu, coalesce(end_state, -1), lost
			from sched where pid > 0 order by pid, ts"
	} |
	awk -F'\t' -v OFS='\t' '
		$1 == "L" { lo[++nl] = $2; hi[nl] = $3; next }
		$1 == "B" { born[$2] = born[$2] " " $3; next }
		function clear(a, b,  i, n, t) {
			for (i = 1; i <= nl; i++) if (hi[i] > a && lo[i] < b) return 0
			n = split(born[pid], t, " ")
			for (i = 1; i <= n; i++) if (t[i] > a && t[i] <= b) return 0
			return 1
		}
		$2 == pid && have && clear(e, $3) { printf "%d\t%.0f\t%.0f\t%d\t%d\n", pid, e, $3 - e, c, $5 }
		{ pid = $2; e = $3 + $4; c = $5; have = ($6 >= 0 && $6 % 256 == 0 && $7 == 0) }' |
		sort > "$T/gaps"
	ref -separator "$TAB" "$DB" "select pid, ts, dur, cpu, run_cpu from preempt_wait" | sort > "$T/view"
	expect_same "preempt_wait $fixture: the gaps awk finds" "$T/gaps" "$T/view"

	for preempt in "" --preempt; do
		# per pid: run ns, slices; waits: n, sum, max, ts of max
		{
			ref -separator "$TAB" "$DB" "select 'R', pid, dur from sched where pid > 0"
			ref -separator "$TAB" "$DB" "select 'W', pid, latency, ts from wakeup_latency"
			[[ -z $preempt ]] || awk -F'\t' -v OFS='\t' '{ print "W", $1, $3, $2 }' "$T/gaps"
		} | sort -t "$TAB" -k1,1 -k2,2n -k4,4n | awk -F'\t' '
			$1 == "R" { run[$2] += $3; sw[$2]++; seen[$2] = 1 }
			$1 == "W" { n[$2]++; sum[$2] += $3; seen[$2] = 1
				    if (!($2 in mx) || $3 > mx[$2]) { mx[$2] = $3; at[$2] = $4 } }
			END { for (p in seen) printf "%s\t%.3f\t%d\t%d\t%s\t%s\t%s\n", p, run[p] / 1e6, sw[p], n[p],
				n[p] ? sprintf("%.3f", sum[p] / n[p] / 1e3) : "", n[p] ? sprintf("%.3f", mx[p] / 1e3) : "", at[p] }' |
			sort > "$T/expected"
		commq_ok "latency --by pid $preempt $fixture" --db "$DB" -q -list -separator "$TAB" \
			-nullvalue "" latency --by pid $preempt
		# pid comm run_ms switches waits avg_us max_us max_at (without comm)
		cut -f1,3- "$T/got" | awk -F'\t' -v OFS='\t' '{ $2 = sprintf("%.3f", $2)
			if ($5 != "") $5 = sprintf("%.3f", $5); if ($6 != "") $6 = sprintf("%.3f", $6); print }' |
			sort > "$T/mine"
		out=$(paste "$T/expected" "$T/mine" | awk -F'\t' '{
			d = $5 - $12; if (d < 0) d = -d
			if ($1 != $8 || $2 != $9 || $3 != $10 || $4 != $11 || d > 0.0011 || $6 != $13 || $7 != $14) print }' | head -3)
		expect_eq "latency --by pid $preempt $fixture: rows" "$(wc -l < "$T/expected")" "$(wc -l < "$T/mine")"
		[[ -z $out ]] || fail "latency --by pid $preempt $fixture: $out"
		# ordered by the longest wait
		cut -f7 "$T/got" | grep -v '^$' > "$T/a" || true
		sort -gr "$T/a" | cmp -s - "$T/a" || fail "latency --by pid $preempt $fixture: not by max_us"

		# per comm: the waits of the comm's rows (the name at the wakeup,
		# or of the preempted slice)
		commq_ok "latency --by comm $preempt $fixture" --db "$DB" -q -list -separator "$TAB" \
			-nullvalue "" latency --by comm $preempt
		{
			ref -separator "$TAB" "$DB" "select comm, latency from wakeup_latency"
			[[ -z $preempt ]] || ref -separator "$TAB" "$DB" "select s.comm, p.dur from preempt_wait p
				join sched s on s.pid = p.pid and s.ts + s.dur = p.ts"
		} | awk -F'\t' '{ n[$1]++ } END { for (c in n) print c "\t" n[c] }' | sort > "$T/expected"
		awk -F'\t' '$5 > 0 { print $1 "\t" $5 }' "$T/got" | sort > "$T/mine"
		expect_same "latency --by comm $preempt $fixture: waits per comm" "$T/expected" "$T/mine"
		# pids: the pids that ran or waited under the comm (their union,
		# not the larger of the two counts)
		{
			ref -separator "$TAB" "$DB" "select comm, pid from sched where pid > 0"
			ref -separator "$TAB" "$DB" "select comm, pid from wakeup_latency"
			[[ -z $preempt ]] || ref -separator "$TAB" "$DB" "select s.comm, p.pid from preempt_wait p
				join sched s on s.pid = p.pid and s.ts + s.dur = p.ts"
		} | sort -u | awk -F'\t' '{ n[$1]++ } END { for (c in n) print c "\t" n[c] }' | sort > "$T/expected"
		awk -F'\t' '{ print $1 "\t" $2 }' "$T/got" | sort > "$T/mine"
		expect_same "latency --by comm $preempt $fixture: pids per comm" "$T/expected" "$T/mine"
	done

	# wakers: the pid woken most often, three levels
	pid=$(ref "$DB" "select pid from wakeup_latency group by pid order by count(*) desc, pid limit 1")
	ref -separator "$TAB" "$DB" "select ts, pid, latency, coalesce(waker_pid, -1) from wakeup_latency order by ts" |
	awk -F'\t' -v OFS='\t' -v root="$pid" '
		{ t[NR] = $1; p[NR] = $2; l[NR] = $3; w[NR] = $4 }
		END {
			for (i = 1; i <= NR; i++) {
				if (p[i] != root) continue
				j = i; d = 1
				while (1) {
					print t[i], d, t[j], p[j], l[j], w[j]
					if (d == 3 || w[j] <= 0) break
					# the waker`s last wakeup before t[j]
					k = 0
					for (m = j - 1; m >= 1; m--) if (p[m] == w[j] && t[m] < t[j]) { k = m; break }
					if (!k) break
					j = k; d++
				}
			}
		}' | sort > "$T/expected"
	commq_ok "wakers $pid $fixture" --db "$DB" -q -list -separator "$TAB" -nullvalue -1 wakers "$pid"
	# wakeup_ts depth woken_ts before_us pid comm latency_us waker_pid waker_comm
	awk -F'\t' -v OFS='\t' '{ print $1, $2, $3, $5, sprintf("%.0f", $7 * 1000), $8 }' "$T/got" | sort > "$T/mine"
	expect_same "wakers $pid $fixture: the chains awk walks" "$T/expected" "$T/mine"
	expect_eq "wakers $pid $fixture: chains found" 1 "$(($(wc -l < "$T/mine") > 0))"
done

# pids in a window: sched-v7's sched-messaging tasks that ran in it and
# those that waited are not the same (a task ran and did not wait, two
# waited and did not run)
DB=$T/sched-v7.db
A=171096801957 B=171111019669
commq_ok "latency --by comm window" --db "$DB" -q -list -separator "$TAB" -nullvalue "" \
	latency --by comm --from "$A" --to "$B"
expect_eq "latency --by comm window: sched-messaging's pids (ran or waited)" \
	"$(ref "$DB" "select count(*) from (select pid from sched where comm = 'sched-messaging'
		and ts < $B and ts + dur > $A union select pid from wakeup_latency
		where comm = 'sched-messaging' and ts >= $A and ts < $B)")" \
	"$(awk -F'\t' '$1 == "sched-messaging" { print $2 }' "$T/got")"

# A task is a pid's lifetime: cases/pid-reuse.dat's pids are reused (a
# fork after the exit), and each lifetime that ran has a latency --by pid
# row of its own, its run time what top --by thread gives that lifetime.
mkdir -p "$T/cases"
import cases/pid-reuse
DB=$T/cases/pid-reuse.db
commq_ok "top --by thread pid-reuse" --db "$DB" -q -list -separator "$TAB" top --by thread
awk -F'\t' '$1 > 0 { print $1 "\t" $4 }' "$T/got" | sort > "$T/expected"
commq_ok "latency --by pid pid-reuse" --db "$DB" -q -list -separator "$TAB" -nullvalue "" \
	latency --by pid
awk -F'\t' '$4 > 0 { print $1 "\t" $3 }' "$T/got" | sort > "$T/mine"
expect_same "latency --by pid pid-reuse: a row per lifetime, its run time top --by thread's" \
	"$T/expected" "$T/mine"
expect_eq "latency --by pid pid-reuse: pids with more than one row" 1 \
	"$(($(cut -f1 "$T/mine" | uniq -d | wc -l) > 0))"

DB=$T/sched-v7.db
expect_failure "latency --by cpu" 2 "'commq latency' goes --by pid or --by comm" --db "$DB" latency --by cpu
expect_failure "top --by pid" 2 "'commq top' goes --by comm, process, thread, cpu or cgroup" --db "$DB" top --by pid
expect_failure "latency --preempt without --by" 2 "--preempt is for 'commq latency --by pid|comm'" --db "$DB" latency --preempt
expect_failure "wakers without a pid" 2 "'commq wakers' needs a PID" --db "$DB" wakers
expect_failure "wakers --depth 0" 2 "--depth takes 1 to 64" --db "$DB" wakers 1 --depth 0
expect_failure "top --depth" 2 "--depth is for 'commq wakers'" --db "$DB" top --depth 2
finish
