#!/usr/bin/env bash
# tests/system/service.sh BUILD_DIR — the packaged commd under a real systemd.
#
# This machine's PID 1 need not be systemd, so the test boots one: a Debian
# 12 tree made by debootstrap (cached in $COMMD_TEST_ROOT, rebuilt when the
# package list changes) started with systemd-nspawn --volatile=overlay (the
# cached tree is never written), the host's tracefs bound in. Inside it:
# `apt install ./commd_*.deb` (built here with cpack from BUILD_DIR, or
# $COMMD_DEB), then systemctl start/stop, queries as a member of group
# commd and as an outsider, a SIGKILL and Restart=, socket activation,
# remove and purge; shipping to a ClickHouse cluster on the host's
# loopback through the package's drop-in (the unit alone has no
# network); from the host, the tracefs instance `commd` and the
# database. The container is powered off at the end and nothing of it is
# left running.
#
# Needs root, tracefs, and Debian's package mirror the first time (or when
# the Depends change). Fails, never skips. The host must not run another
# commd with instance `commd` meanwhile.
#
#   COMMD_DEB=path.deb           use this package instead of running cpack
#   COMMD_TEST_ROOT=DIR          the cached tree (/var/cache/commd-test/bookworm)
#   COMMD_TEST_MIRROR=URL        debootstrap's mirror (http://deb.debian.org/debian)
#   COMMD_TEST_KEEP=1            leave the work directory for a post-mortem
set -euo pipefail

build=${1:?usage: service.sh BUILD_DIR}
root=${COMMD_TEST_ROOT:-/var/cache/commd-test/bookworm}
mirror=${COMMD_TEST_MIRROR:-http://deb.debian.org/debian}
tracing=/sys/kernel/tracing
instance=$tracing/instances/commd
member=cq-member
outsider=cq-outsider

passed=0
failed=0
step() { printf '== %s\n' "$*"; }
ok() { printf 'ok   %s\n' "$*"; passed=$((passed + 1)); }
bad() { printf 'FAIL %s\n' "$*"; failed=$((failed + 1)); }
die() { printf 'FAIL %s\n' "$*"; exit 1; }
check() {	# check DESCRIPTION COMMAND...: ok when COMMAND succeeds
	local what=$1
	shift
	if "$@" >/dev/null; then ok "$what"; else bad "$what"; fi
}

# ---- preconditions ------------------------------------------------------
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, systemd-nspawn, tracefs)"
grep -qs " $tracing tracefs " /proc/mounts || die "tracefs is not mounted at $tracing"
if [ -e "$instance" ]; then
	die "$instance exists before the test: another commd (or a crashed one)" \
	    "uses instance 'commd' on this host; stop it or rmdir the instance"
fi

need=()
command -v debootstrap >/dev/null || need+=(debootstrap)
command -v systemd-nspawn >/dev/null || need+=(systemd-container)
command -v nsenter >/dev/null || need+=(util-linux)
command -v dpkg-deb >/dev/null || need+=(dpkg)
command -v clickhouse-server >/dev/null || need+=(clickhouse-server)
command -v clickhouse-client >/dev/null || need+=(clickhouse-client)
command -v curl >/dev/null || need+=(curl)
if [ ${#need[@]} -gt 0 ]; then
	step "installing ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -qq "${need[@]}" >/dev/null 2>&1 ||
		{ apt-get update -qq >/dev/null && apt-get install -y -qq "${need[@]}" >/dev/null; } ||
		die "cannot install ${need[*]}"
fi

work=$(mktemp -d /tmp/commd-system.XXXXXX)
chmod 755 "$work"
nspawn_pid=
init=
ch_up=
cleanup() {
	local rc=$?
	[ -n "$ch_up" ] && ch_cluster_stop 2>/dev/null
	if [ -n "$nspawn_pid" ] && kill -0 "$nspawn_pid" 2>/dev/null; then
		echo "cleanup: powering the container off" >&2
		[ -n "$init" ] && kill -s RTMIN+4 "$init" 2>/dev/null
		for _ in $(seq 100); do kill -0 "$nspawn_pid" 2>/dev/null || break; sleep 0.1; done
		kill -s KILL "$nspawn_pid" 2>/dev/null || true
		wait "$nspawn_pid" 2>/dev/null || true
	fi
	# An instance our commd left (it was absent when we started).
	[ -d "$instance" ] && rmdir "$instance" 2>/dev/null
	if [ "${COMMD_TEST_KEEP:-}" = 1 ]; then
		echo "work directory kept: $work" >&2
	else
		rm -rf "$work"
	fi
	exit $rc
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- the package ----------------------------------------------------------
mkdir "$work/pkg"
if [ -n "${COMMD_DEB:-}" ]; then
	cp "$COMMD_DEB" "$work/pkg/"
else
	[ -f "$build/CPackConfig.cmake" ] || die "$build/CPackConfig.cmake: not a configured build"
	step "cpack -G DEB"
	(cd "$work/pkg" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg" \
		>"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; die "cpack failed"; }
fi
deb=$(ls "$work"/pkg/commd_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || die "no commd_*.deb made"
chmod 644 "$deb"
ok "package $(basename "$deb")"

# ---- the cached Debian tree -----------------------------------------------
# Its packages: systemd and what the .deb depends on (the container has no
# package lists), sqlite3 for integrity_check, man-db for the man pages and
# systemd-analyze verify's Documentation= check.
deps=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/|.*//; s/(.*//; s/[[:space:]]//g' | grep .)
include=$(printf '%s\n' systemd dbus sqlite3 man-db $deps | sort -u | paste -sd, -)
mkdir -p "$(dirname "$root")"
exec 9>"$(dirname "$root")/.lock"
flock 9
if [ ! -x "$root/lib/systemd/systemd" ] || [ "$(cat "$root.packages" 2>/dev/null)" != "$include" ]; then
	step "debootstrap bookworm into $root ($include)"
	rm -rf "$root.new" "$root"
	debootstrap --variant=minbase --include="$include" bookworm "$root.new" "$mirror" \
		>"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log"; die "debootstrap failed"; }
	# No package lists: apt inside can only use what is installed, so
	# a Depends missing from the tree fails the install instead of
	# being fetched (the container shares the host's network: nspawn's
	# --private-network rebuilds /sys and hides the tracefs bind).
	rm -rf "$root.new/var/cache/apt/archives/"*.deb "$root.new/var/lib/apt/lists/"*
	mv "$root.new" "$root"
	echo "$include" >"$root.packages"
fi
ok "Debian tree $root"

# ---- boot ------------------------------------------------------------------
step "systemd-nspawn -b"
systemd-nspawn -D "$root" -b --register=no --keep-unit --console=pipe \
	--volatile=overlay --machine=commd-systest \
	--bind="$tracing" --bind-ro="$work/pkg:/mnt/pkg" \
	</dev/null >"$work/nspawn.log" 2>&1 &
nspawn_pid=$!
for _ in $(seq 100); do
	init=$(pgrep -P "$nspawn_pid" -x systemd || true)
	[ -n "$init" ] && break
	kill -0 "$nspawn_pid" 2>/dev/null || { cat "$work/nspawn.log"; die "systemd-nspawn exited"; }
	sleep 0.1
done
[ -n "$init" ] || die "no systemd in the container after 10 s"

# Run a command inside, with the container's clean environment.
c() {
	nsenter -t "$init" -a -r -w -- /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive SYSTEMD_PAGER= "$@"
}
# Until systemd's bus is up systemctl cannot even ask.
for _ in $(seq 300); do
	c test -S /run/systemd/private && break
	sleep 0.1
done
state=$(c timeout 60 systemctl is-system-running --wait 2>/dev/null || true)
case $state in
running|degraded) ok "container booted (init pid $init, $state)" ;;
*) c systemctl --failed --no-pager || true; die "container boot: '$state'" ;;
esac

# ---- install -----------------------------------------------------------------
step "apt install ./$(basename "$deb")"
if c sh -c "cd /mnt/pkg && apt-get install -y ./$(basename "$deb")" >"$work/apt.log" 2>&1; then
	ok "apt install"
else
	cat "$work/apt.log"
	die "apt install failed"
fi
check "commd in /usr/sbin, commq in /usr/bin" c test -x /usr/sbin/commd -a -x /usr/bin/commq
pw=$(c getent passwd commd || true)
IFS=: read -r _ _ uid gid _ home shell <<<"$pw"
check "system user commd ($pw)" test -n "$pw" -a "${uid:-1000}" -lt 1000 -a "$shell" = /usr/sbin/nologin
check "group commd is its primary group" test "$(c getent group commd | cut -d: -f3)" = "$gid"
conffiles=$(c dpkg-query -W -f='${Conffiles}' commd)
check "/etc/commd/commd.conf is a conffile" grep -q "^ */etc/commd/commd.conf " <<<"$conffiles"
conf=$(c cat /etc/commd/commd.conf)
for opt in db instance buffer-kb events commit-ms socket; do
	check "commd.conf: '$opt' commented out at its default" grep -q "^#$opt = ." <<<"$conf"
done
check "commd.conf has no active option" bash -c '! grep -v "^[[:space:]]*\(#\|$\)" <<<"$1" | grep -q .' _ "$conf"
check "/var/lib/commd root:commd 0750" test "$(c stat -c '%U:%G %a' /var/lib/commd)" = "root:commd 750"
check "man commd(8): $(c man -w 8 commd 2>&1)" c man -w 8 commd
check "man commq(1): $(c man -w 1 commq 2>&1)" c man -w 1 commq
check "bash completion for commq" c bash -c '. /usr/share/bash-completion/completions/commq && complete -p commq >/dev/null'
warnings=$(c sh -c 'MANWIDTH=80 man --warnings -l /usr/share/man/man8/commd.8 /usr/share/man/man1/commq.1 2>&1 >/dev/null')
check "man pages render without warnings${warnings:+: $warnings}" test -z "$warnings"
check "systemd-analyze verify commd.service commd.socket" \
	c systemd-analyze verify commd.service commd.socket
score=$(c systemd-analyze security --offline=yes /lib/systemd/system/commd.service 2>/dev/null |
	sed -n 's/.*Overall exposure level for commd.service: \([0-9.]*\).*/\1/p')
check "systemd-analyze security --offline=yes: ${score:-?} (at most 2.5)" \
	awk -v s="${score:-99}" 'BEGIN { exit !(s <= 2.5) }'

# ---- start -------------------------------------------------------------------
step "systemctl start commd"
if ! c timeout 60 systemctl start commd; then
	c journalctl -u commd --no-pager -n 30 || true
	die "systemctl start commd failed"
fi
prop() { c systemctl show -p "$1" --value commd; }
check "active after READY=1 (Type=$(prop Type))" \
	test "$(c systemctl is-active commd)" = active -a "$(prop Type)" = notify
check "instance $instance exists on the host" test -d "$instance"
main=$(prop MainPID)
check "capture runs as root with CAP_SETUID CAP_SETGID CAP_KILL only" \
	c sh -c "grep -q '^Uid:.0.0.0.0' /proc/$main/status &&
		 grep -q '^CapEff:.00000000000000e0' /proc/$main/status &&
		 grep -q '^CapBnd:.00000000000000e0' /proc/$main/status &&
		 grep -q '^NoNewPrivs:.1' /proc/$main/status"
serve_uid=$(c sh -c 'for p in /proc/[0-9]*; do
	case "$(tr "\0" " " <$p/cmdline 2>/dev/null)" in
	"commd serve "*) sed -n "s/^Uid:[[:space:]]*\([0-9]*\).*/\1/p" $p/status ;;
	esac; done')
check "query server runs as user commd (uid ${serve_uid:-none})" test "${serve_uid:-x}" = "$uid"
check "query server holds no capability (CapInh, CapPrm, CapEff, CapAmb 0) and NoNewPrivs 1" \
	c sh -c 'for p in /proc/[0-9]*; do
	case "$(tr "\0" " " <$p/cmdline 2>/dev/null)" in
	"commd serve "*) s=$p/status
		grep -q "^CapInh:.0000000000000000" $s && grep -q "^CapPrm:.0000000000000000" $s &&
		grep -q "^CapEff:.0000000000000000" $s && grep -q "^CapAmb:.0000000000000000" $s &&
		grep -q "^NoNewPrivs:.1" $s && exit 0 ;;
	esac; done; exit 1'

step "scheduler load"
c sh -c 'timeout 2 yes >/dev/null & for i in $(seq 300); do /bin/true; done; wait' || true
# commit-ms 1000: the first STATUS= comes with the first commit; on a busy
# machine that can take a few seconds more.
for _ in $(seq 200); do
	[[ "$(prop StatusText)" == *events/s* ]] && break
	sleep 0.1
done
check "STATUS= reported ($(prop StatusText))" bash -c '[[ "$1" == *events/s* ]]' _ "$(prop StatusText)"
check "WATCHDOG=1 received (WatchdogSec=$(prop WatchdogUSec))" \
	test "$(prop WatchdogTimestampMonotonic)" -gt 0 -a "$(prop WatchdogUSec)" = 30s

step "queries"
c useradd --no-create-home --groups commd "$member"
c useradd --no-create-home "$outsider"
q() {	# q USER SQL: the first field of commq's answer
	c timeout 30 runuser -u "$1" -- commq -noheader -list "$2"
}
for _ in $(seq 20); do
	n=$(q "$member" "select count(*) from sched_switch where prev_comm = 'yes'" 2>/dev/null || true)
	[ "${n:-0}" -gt 0 ] && break
	sleep 0.5
done
check "/run/commd root:commd 750 (the socket's directory)" \
	test "$(c stat -c '%U:%G %a' /run/commd)" = "root:commd 750"
n=$(q "$member" "select count(*) from sched_switch" 2>"$work/q.err" || true)
check "$member (group commd) gets rows: ${n:-$(cat "$work/q.err")}" test "${n:-0}" -gt 0
n=$(q "$member" "select count(*) from sched_switch where prev_comm = 'yes' and comm = 'yes'" 2>/dev/null || true)
check "the container's load is named: $n switches of 'yes'" test "${n:-0}" -gt 0
if q "$outsider" "select count(*) from sched_switch" >"$work/out.txt" 2>"$work/out.err"; then
	bad "$outsider (not in group commd) was answered: $(cat "$work/out.txt")"
else
	check "$outsider is refused: $(head -1 "$work/out.err")" grep -q "Permission denied" "$work/out.err"
fi

step "systemctl reload commd (SIGHUP)"
pid_before=$(prop MainPID)
c timeout 60 systemctl reload commd || bad "systemctl reload commd failed"
for _ in $(seq 50); do
	c journalctl -u commd --no-pager -o cat | grep -q "reload" && break
	sleep 0.1
done
check "reloaded in place (same main pid $pid_before, active, a reload line in the journal)" \
	test "$(prop MainPID)" = "$pid_before" -a "$(c systemctl is-active commd)" = active -a \
	-n "$(c journalctl -u commd --no-pager -o cat | grep -m1 reload)"

step "SIGKILL: Restart=on-failure"
c systemctl kill --kill-who=main -s KILL commd
for _ in $(seq 100); do
	[ "$(prop NRestarts)" -ge 1 ] && [ "$(c systemctl is-active commd)" = active ] && break
	sleep 0.1
done
check "restarted once and active again" test "$(prop NRestarts)" = 1 -a "$(c systemctl is-active commd)" = active
sleep 1.5
n=$(q "$member" "select count(*) from capture" 2>/dev/null || true)
check "the restarted commd continues the database: $n captures" test "${n:-0}" -ge 2

step "shipping to ClickHouse through the drop-in"
# A two-shard ClickHouse cluster on the host's loopback (the container
# shares the host's network); the unit as shipped reaches no server (no
# network in it): the package's drop-in opens it to localhost.
. "$(dirname "$0")/../fleet/clickhouse.sh"
ch_base=$(ch_free_base 28000 600) || die "no free ports for ClickHouse from 28000"
ch_cluster_start "$work/ch" "$ch_base" $((ch_base + 1)) $((ch_base + 4)) $((ch_base + 5)) commd_svc ||
	die "two ClickHouse servers on loopback did not start"
ch_up=1
"$build/commd" clickhouse-schema --cluster commd_svc > "$work/ch.sql"
for p in $((ch_base + 1)) $((ch_base + 5)); do
	clickhouse-client --port "$p" --multiquery < "$work/ch.sql" || die "the schema on port $p"
done
check "the drop-in is installed (/usr/share/commd/clickhouse.conf)" c test -f /usr/share/commd/clickhouse.conf
c sh -c "echo 'clickhouse = http://127.0.0.1:$ch_base/?database=commd' >> /etc/commd/commd.conf"
c timeout 120 systemctl restart commd || bad "systemctl restart commd with clickhouse set"
sleep 4
shipped=$(ch_query 1 "SELECT count() FROM commd.sched_switch" 2>/dev/null || echo "?")
check "without the drop-in nothing arrives in 4 s (the unit has no network): $shipped switches" \
	test "$shipped" = 0
c mkdir -p /etc/systemd/system/commd.service.d
c cp /usr/share/commd/clickhouse.conf /etc/systemd/system/commd.service.d/
c systemctl daemon-reload
c timeout 120 systemctl restart commd || bad "systemctl restart commd with the drop-in"
c sh -c 'timeout 2 yes >/dev/null & for i in $(seq 300); do /bin/true; done; wait' || true
shipped=0
for _ in $(seq 300); do	# a round a second, rows 2 s settled
	shipped=$(ch_query 1 "SELECT count() FROM commd.sched_switch" 2>/dev/null || echo 0)
	[ "${shipped:-0}" -gt 0 ] && break
	sleep 0.1
done
check "the unit's commd ships through the drop-in: $shipped switches in ClickHouse" test "${shipped:-0}" -gt 0
named=$(ch_query 1 "SELECT count() FROM commd.sched_switch WHERE prev_comm = 'yes'" 2>/dev/null || echo 0)
check "the container's load arrives named: $named switches of 'yes'" test "${named:-0}" -gt 0
c rm /etc/systemd/system/commd.service.d/clickhouse.conf
c sed -i '/^clickhouse = /d' /etc/commd/commd.conf
c systemctl daemon-reload
ch_cluster_stop
ch_up=

step "systemctl stop commd"
c timeout 120 systemctl stop commd
check "inactive, Result=$(prop Result)" test "$(c systemctl is-active commd)" = inactive -a "$(prop Result)" = success
check "instance removed from the host" test ! -e "$instance"
check "database integrity_check ok" test "$(c sqlite3 -readonly /var/lib/commd/commd.db 'pragma integrity_check')" = ok
owners=$(c sh -c 'stat -c "%U:%G %n" /var/lib/commd/commd.db*')
check "db (and -wal, -shm if any) root:commd: $(echo $owners)" bash -c '! grep -v "^root:commd " <<<"$1"' _ "$owners"

step "socket activation (commd.socket)"
c systemctl start commd.socket
check "socket root:commd 660" test "$(c stat -c '%U:%G %a' /run/commd/commd.sock)" = "root:commd 660"
check "its directory root:commd 750" test "$(c stat -c '%U:%G %a' /run/commd)" = "root:commd 750"
inode=$(c stat -c %i /run/commd/commd.sock)
check "commd.service not started by the socket alone" test "$(c systemctl is-active commd)" = inactive
n=$(q "$member" "select count(*) from capture" 2>/dev/null || true)
for _ in $(seq 100); do	# answered already while commd is activating
	[ "$(c systemctl is-active commd)" = active ] && break
	sleep 0.1
done
check "a query starts commd.service and is answered ($n captures)" \
	test "${n:-0}" -ge 2 -a "$(c systemctl is-active commd)" = active
check "commd serves systemd's socket (same inode, not a new socket)" \
	test "$(c stat -c %i /run/commd/commd.sock)" = "$inode"
c timeout 120 systemctl stop commd 2>/dev/null
check "the socket survives a stop of commd.service" \
	c test -S /run/commd/commd.sock -a "$(c systemctl is-active commd.socket)" = active
c timeout 120 systemctl stop commd.socket commd
check "instance removed" test ! -e "$instance"

step "apt remove, purge"
c systemctl start commd
c apt-get remove -y commd >"$work/remove.log" 2>&1 || { cat "$work/remove.log"; bad "apt remove"; }
check "remove stopped commd (instance gone)" test ! -e "$instance"
check "remove kept the database" c test -f /var/lib/commd/commd.db
c apt-get purge -y commd >"$work/purge.log" 2>&1 || { cat "$work/purge.log"; bad "apt purge"; }
check "purge removed /etc/commd and /var/lib/commd" c test ! -e /etc/commd -a ! -e /var/lib/commd

# ---- power off -----------------------------------------------------------------
step "poweroff"
c systemctl poweroff >/dev/null 2>&1 || true
for _ in $(seq 300); do kill -0 "$nspawn_pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$nspawn_pid" 2>/dev/null; then
	bad "container still running 30 s after poweroff"
else
	wait "$nspawn_pid" && ok "container powered off" || ok "container powered off (nspawn status $?)"
fi
left=$(pgrep -f "systemd-nspawn -D $root " || true)
check "no systemd-nspawn left running${left:+ (pids $left)}" test -z "$left"
check "no process of the container left" bash -c "! kill -0 $init 2>/dev/null"
nspawn_pid=

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
