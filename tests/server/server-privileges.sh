#!/usr/bin/env bash
# server-privileges.sh - the part that answers SQL holds no privileges, and
# only allowed users reach it (docs/architecture.md section 1):
#
#  1. the query server (`commd serve`, a child of commd) runs with every
#     uid and gid != 0, no root in its groups, CapInh/CapPrm/CapEff/CapAmb
#     and the bounding set CapBnd all 0 and NoNewPrivs 1;
#  2. the socket is srw-rw---- root:root when there is no group commd;
#     nobody (setpriv --reuid=nobody --regid=nogroup --clear-groups) is
#     refused on connect with "Permission denied" and exit status != 0;
#     with the socket opened up (chmod 0666, a misconfiguration) another
#     user (srvt-other, in no group of commd's) is still refused by the
#     server (SO_PEERCRED): no answer, exit status != 0;
#  3. kill -9 of the query server: commd logs it and starts another within
#     a few seconds (same privileges); capture goes on (sched_switch rows
#     grow across it); a query sent right after the kill is answered by
#     the new server; SIGTERM to the query server, and three kills in a
#     row: each time a new one;
#  4. commd started with every capability in its inheritable and ambient
#     sets (setpriv --inh-caps=+all --ambient-caps=+all, as a container or
#     a capsh caller may hand it): its query server still holds none in
#     any set;
#  (with a group and a user commd: server-group.sh)
#
# Needs root and tracefs (FAILS without them). Runs where there is no user
# or group commd (lib.sh: the test's own /etc/passwd and /etc/group).
. "$(dirname "$0")/lib.sh"

need_live

# --- 1. the query server's credentials -------------------------------------------
ns_add_user srvt-other srvt-other
start_ready 1
drop_user=nobody	# no user commd here
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
as srvt-other srvt-other "$COMMQ" --socket "$SOCK" "select count(*) from capture"
check_true "socket opened up (0666): another user's commq: exit status != 0 (SO_PEERCRED)" "!= 0" \
	"$AS_RC (stdout '$AS_OUT', stderr '$AS_ERR')" [ "$AS_RC" != 0 ]
check_eq "socket opened up (0666): another user gets no answer" "" "$AS_OUT"
log "another user through an opened-up socket: $AS_ERR"
# ... nor nobody, the user the server itself runs as here
as nobody nogroup "$COMMQ" --socket "$SOCK" "select count(*) from capture"
check_true "socket opened up (0666): nobody's commq (the server's own user): exit status != 0" "!= 0" \
	"$AS_RC (stdout '$AS_OUT', stderr '$AS_ERR')" [ "$AS_RC" != 0 ]
check_match "socket opened up: nobody is told why" "not root, nor a member of group commd" "$AS_ERR"
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

# --- 4. a parent with inheritable and ambient capabilities -----------------------
# Every capability this root holds (its bounding set may lack some: then
# "+all" is refused).
held=$(proc_field $$ CapBnd)
caps=
i=0
while read -r name; do
	(( (16#$held >> i) & 1 )) && caps+=${caps:+,}+$name
	i=$((i + 1))
done < <(setpriv --list-caps)
COMMD_LAUNCH="setpriv --inh-caps=$caps --ambient-caps=$caps" start_ready 2
check_eq "commd itself started with every capability it holds inheritable" \
	"$held" "$(proc_field "$COMMD_PID" CapInh)"
check_eq "commd itself started with every capability it holds ambient" \
	"$held" "$(proc_field "$COMMD_PID" CapAmb)"
check_unprivileged "query server of a commd with inheritable and ambient capabilities" \
	"$SERVE_PID" "$(id -u "$drop_user")"
sq "select count(*) from capture" -list -noheader
check_eq "its query" "0 1" "$SQ_RC $SQ_OUT"
stop_commd "$COMMD_PID" TERM 60
check_eq "SIGTERM: exit status" 0 "$STOP_RC"

finish
