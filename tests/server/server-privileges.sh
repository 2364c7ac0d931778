#!/usr/bin/env bash
# server-privileges.sh - the part that answers SQL holds no privileges, and
# only allowed users reach it (DESIGN.md section 2):
#
#  1. the query server (`commd serve`, a child of commd) runs with every
#     uid and gid != 0, no root in its groups, CapInh/CapPrm/CapEff/CapAmb
#     all 0 and NoNewPrivs 1;
#  2. the socket is srw-rw---- root:root when there is no group commd;
#     nobody (setpriv --reuid=nobody --regid=nogroup --clear-groups) is
#     refused on connect with "Permission denied" and exit status != 0;
#     with the socket opened up (chmod 0666, a misconfiguration) user
#     daemon is still refused by the server (SO_PEERCRED): no answer,
#     exit status != 0;
#  3. kill -9 of the query server: commd logs it and starts another within
#     a few seconds (same privileges); capture goes on (sched_switch rows
#     grow across it); a query sent right after the kill is answered by
#     the new server; SIGTERM to the query server, and three kills in a
#     row: each time a new one;
#  4. with a group commd and a user commd (created here when absent, and
#     removed afterwards): the socket is srw-rw---- root:commd, the
#     database root:commd 0640 in a root:commd 0750 directory, the query
#     server runs as user commd; a member of group commd gets answers, a
#     non-member and nobody are refused.
#
# Needs root and tracefs (FAILS without them); part 4 needs useradd/groupadd.
. "$(dirname "$0")/lib.sh"

need_live

# check_unprivileged WHAT PID EXPECTED_UID
check_unprivileged() {
	local what=$1 pid=$2 uid=$3 f
	check_eq "$what: Uid (real, effective, saved, fs)" "$uid $uid $uid $uid" "$(proc_field "$pid" Uid | tr -s '\t ' ' ')"
	read -r -a g <<< "$(proc_field "$pid" Gid)"
	check_true "$what: no gid 0 (real, effective, saved, fs)" "4 gids != 0" "${g[*]}" \
		[ "${#g[@]}" = 4 ] && [ "${g[0]}" != 0 ] && [ "${g[1]}" != 0 ] && [ "${g[2]}" != 0 ] && [ "${g[3]}" != 0 ]
	check_true "$what: no group 0 among the supplementary groups" "no 0" "Groups: $(proc_field "$pid" Groups)" \
		eval '! grep -qw 0 <<< "$(proc_field "$pid" Groups)"'
	for f in CapInh CapPrm CapEff CapAmb; do
		check_eq "$what: $f" 0000000000000000 "$(proc_field "$pid" "$f")"
	done
	check_eq "$what: NoNewPrivs" 1 "$(proc_field "$pid" NoNewPrivs)"
	check_eq "$what: its parent is commd" "$COMMD_PID" "$(proc_field "$pid" PPid)"
}

# as USER GROUPS-OPTION COMMAND...: runs COMMAND as USER; sets AS_RC,
# AS_OUT, AS_ERR.
as() {
	local user=$1 gopt=$2
	shift 2
	AS_RC=0
	if [ "$gopt" = init ]; then
		timeout -s KILL 30 setpriv --reuid="$user" --regid="$(id -g "$user")" --init-groups "$@" \
			> "$TMP/as.out" 2> "$TMP/as.err" || AS_RC=$?
	else
		timeout -s KILL 30 setpriv --reuid="$user" --regid="$gopt" --clear-groups "$@" \
			> "$TMP/as.out" 2> "$TMP/as.err" || AS_RC=$?
	fi
	AS_OUT=$(cat "$TMP/as.out")
	AS_ERR=$(head -c 1000 "$TMP/as.err")
}

# --- 1. the query server's credentials -------------------------------------------
if getent group commd > /dev/null; then
	abort "no group commd at the start (parts 1-3 test the machine without it)" "absent" \
		"$(getent group commd) (left by another test?)"
fi
start_ready 1
if getent passwd commd > /dev/null; then
	drop_user=commd
else
	drop_user=nobody
fi
check_unprivileged "query server" "$SERVE_PID" "$(id -u "$drop_user")"

# --- 2. the socket and who may use it ----------------------------------------------
check_eq "socket mode and owner (no group commd)" "srw-rw---- root root" "$(stat -c '%A %U %G' "$SOCK")"
sq "select count(*) from capture" -list -noheader
check_eq "root's query" "0 1" "$SQ_RC $SQ_OUT"
as nobody nogroup "$COMMQ" --socket "$SOCK" "select count(*) from capture"
check_true "nobody's commq: exit status != 0" "!= 0" "$AS_RC" [ "$AS_RC" != 0 ]
check_eq "nobody's commq: no answer" "" "$AS_OUT"
check_match "nobody's commq: says permission denied" "[Pp]ermission denied" "$AS_ERR"
as nobody nogroup "$RAWCLIENT" "$SOCK" "q:0:0:select 1" read:5
check_eq "nobody's raw connect: refused (exit 2)" 2 "$AS_RC"
check_match "nobody's raw connect: EACCES" "Permission denied" "$AS_ERR"
chmod 0666 "$SOCK"
as daemon daemon "$COMMQ" --socket "$SOCK" "select count(*) from capture"
check_true "socket opened up (0666): user daemon's commq: exit status != 0 (SO_PEERCRED)" "!= 0" \
	"$AS_RC (stdout '$AS_OUT', stderr '$AS_ERR')" [ "$AS_RC" != 0 ]
check_eq "socket opened up (0666): user daemon gets no answer" "" "$AS_OUT"
log "user daemon through an opened-up socket: $AS_ERR"
chmod 0660 "$SOCK"

# --- 3. the query server killed -------------------------------------------------
old=$SERVE_PID
n0=$(switches)
kill -KILL "$old"
t0=$(now_ms)
sq "select count(*) from capture" -list -noheader --timeout 10
check_eq "a query sent right after kill -9 of the query server: answered" "0 1" "$SQ_RC $SQ_OUT"
new=$(wait_serve "$DB" 5 "$old")
ms=$(( $(now_ms) - t0 ))
check_true "kill -9: a new query server within 5 s" "a pid != $old" "'$new' after $ms ms" [ -n "$new" ]
log "kill -9 of the query server: the new one ($new) after <= $ms ms; the query after it took $SQ_MS ms"
check_true "kill -9: the query sent right after was answered within 5 s" "< 5000 ms" "$SQ_MS ms" [ "$SQ_MS" -lt 5000 ]
check_match "kill -9: commd logs it" "query server \\(pid $old\\) killed by signal 9; restarting it" "$(cat "$ERR")"
[ -n "$new" ] && check_unprivileged "the restarted query server" "$new" "$(id -u "$drop_user")"
sleep 1.2
n1=$(switches)
check_true "capture went on across the kill (sched_switch rows grow)" "> $n0" "$n1" [ "$n1" -gt "$n0" ]
sq "select count(*) > 0 from sched_switch" -list -noheader
check_eq "queries work again" "0 1" "$SQ_RC $SQ_OUT"
check_eq "commd itself still runs" running "$(_alive "$COMMD_PID" && echo running || echo gone)"
old=$new
kill -TERM "$old"
new=$(wait_serve "$DB" 5 "$old")
check_true "SIGTERM to the query server: a new one within 5 s" "a pid != $old" "'$new'" [ -n "$new" ]
for i in 1 2 3; do
	old=$new
	kill -KILL "$old"
	new=$(wait_serve "$DB" 5 "$old")
	check_true "kill -9 number $i in a row: a new query server within 5 s" "a pid != $old" "'$new'" [ -n "$new" ]
done
sq "select count(*) from capture" -list -noheader --timeout 10
check_eq "after the kills in a row: a query" "0 1" "$SQ_RC $SQ_OUT"
check_eq "after the kills: one query server" "$new" "$(serve_pid "$DB")"
n2=$(switches)
sleep 1.2
check_true "after the kills: capture goes on" "> $n2" "$(switches)" [ "$(switches)" -gt "$n2" ]
stop_commd "$COMMD_PID" TERM 60
check_eq "SIGTERM: exit status" 0 "$STOP_RC"

# --- 4. group commd, user commd ----------------------------------------------------
member=srvt-m-$$
other=srvt-n-$$
made_group=0
made_user=0
if ! getent group commd > /dev/null; then
	groupadd --system commd || abort "groupadd --system commd" "exit 0" "failed"
	made_group=1
	CLEANUP_HOOKS+=("getent group commd > /dev/null && groupdel commd")
fi
if ! getent passwd commd > /dev/null; then
	useradd --system --no-create-home --home-dir / --shell /usr/sbin/nologin -g commd commd ||
		abort "useradd commd" "exit 0" "failed"
	made_user=1
	CLEANUP_HOOKS=("getent passwd commd > /dev/null && userdel commd" "${CLEANUP_HOOKS[@]}")
fi
useradd --system --no-create-home --shell /usr/sbin/nologin -U -G commd "$member" ||
	abort "useradd $member (in group commd)" "exit 0" "failed"
useradd --system --no-create-home --shell /usr/sbin/nologin -U "$other" ||
	abort "useradd $other" "exit 0" "failed"
CLEANUP_HOOKS=("userdel $member; getent group $member > /dev/null && groupdel $member; true"
	"userdel $other; getent group $other > /dev/null && groupdel $other; true" "${CLEANUP_HOOKS[@]}")
log "created:$([ $made_group = 1 ] && echo " group commd")$([ $made_user = 1 ] && echo " user commd") users $member (in commd) and $other"

start_ready 2
check_eq "group commd: socket mode and owner" "srw-rw---- root commd" "$(stat -c '%A %U %G' "$SOCK")"
check_eq "group commd: the database" "-rw-r----- root commd" "$(stat -c '%A %U %G' "$DB")"
check_eq "group commd: the database's directory" "drwxr-x--- root commd" "$(stat -c '%A %U %G' "$(dirname "$DB")")"
check_unprivileged "group commd: query server" "$SERVE_PID" "$(id -u commd)"
small_load
sleep 1.2
ref=$(q "select count(*) from capture")
as "$member" init "$COMMQ" --socket "$SOCK" -list -noheader "select count(*) from capture; select count(*) > 0 from sched_switch"
check_eq "group commd: a member's query" "0 $ref
1" "$AS_RC $AS_OUT"
check_eq "group commd: a member's query: stderr" "" "$AS_ERR"
as "$member" init "$RAWCLIENT" "$SOCK" "q:0:0:select 5" read:5
check_eq "group commd: a member's raw query" "0 C 1 5:;R 1 5;E rows=1;" "$AS_RC $(grep -v '^SUMMARY' <<< "$AS_OUT" | tr '\n' ';')"
as "$other" init "$COMMQ" --socket "$SOCK" "select count(*) from capture"
check_true "group commd: a non-member's commq: exit status != 0" "!= 0" "$AS_RC" [ "$AS_RC" != 0 ]
check_eq "group commd: a non-member gets no answer" "" "$AS_OUT"
check_match "group commd: a non-member's commq says permission denied" "[Pp]ermission denied" "$AS_ERR"
as nobody nogroup "$COMMQ" --socket "$SOCK" "select count(*) from capture"
check_true "group commd: nobody's commq: exit status != 0" "!= 0" "$AS_RC" [ "$AS_RC" != 0 ]
check_match "group commd: nobody's commq says permission denied" "[Pp]ermission denied" "$AS_ERR"
stop_commd "$COMMD_PID" TERM 60
check_eq "group commd: SIGTERM: exit status" 0 "$STOP_RC"

# Remove the users and groups now, not only at exit: other tests must not
# see a group commd they did not make.
for h in "${CLEANUP_HOOKS[@]}"; do
	eval "$h" > /dev/null 2>&1 || true
done
CLEANUP_HOOKS=()
[ $made_group = 1 ] && check_eq "group commd removed again" absent "$(getent group commd > /dev/null && echo present || echo absent)"
[ $made_user = 1 ] && check_eq "user commd removed again" absent "$(getent passwd commd > /dev/null && echo present || echo absent)"
check_eq "test users removed again" "absent absent" \
	"$(for u in "$member" "$other"; do getent passwd "$u" > /dev/null && echo present || echo absent; done | tr '\n' ' ' | sed 's/ $//')"
finish
