#!/usr/bin/env bash
# server-group.sh - with a user and a group commd (as systemd/commd.sysusers
# makes them), members of the group may query and nobody else may
# (docs/architecture.md section 1: the socket is 0660, group commd, and
# the peer's credentials are checked with SO_PEERCRED as well):
#
#  1. the socket is srw-rw---- root:commd, the database root:commd 0640 in
#     a root:commd 0750 directory; the query server runs as user commd
#     (uid, gid of commd; no capabilities, NoNewPrivs);
#  2. a member of group commd (supplementary group) gets the right
#     answers, through commq and a raw connection;
#  3. a non-member and nobody are refused on connect ("Permission
#     denied", exit status != 0); with the socket opened up (0666) a
#     non-member is still refused by the server (SO_PEERCRED) with an
#     error frame that says why, a member still answered;
#  4. a group commd but no user commd (the server then drops to nobody):
#     commd still answers root and the members of commd (it shares the
#     database with group commd, so its query server must be able to read
#     it, and it lets the socket's group in).
#
# The users and the group exist only in this test's mount namespace
# (lib.sh), never on the machine.
#
# Needs root and tracefs (FAILS without them).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/safety-lib.sh"

need_live
ns_add_group commd srvt-member
ns_add_user commd commd
ns_add_user srvt-member srvt-member
ns_add_user srvt-other srvt-other
log "test users: $(getent passwd commd srvt-member srvt-other | cut -d: -f1,3,4 | tr '\n' ' ')groups: $(getent group commd)"

# --- 1. ownership and the server's user ------------------------------------------
start_ready 1
check_eq "socket mode and owner" "srw-rw---- root commd" "$(stat -c '%A %U %G' "$SOCK")"
check_eq "the database" "-rw-r----- root commd" "$(stat -c '%A %U %G' "$DB")"
check_eq "the database's directory (the test made it 0755): left as it was" \
	"drwxr-xr-x root root" "$(stat -c '%A %U %G' "$(dirname "$DB")")"
check_eq "the database's WAL files: the database's owner and mode" \
	"-rw-r----- root commd -rw-r----- root commd" \
	"$(stat -c '%A %U %G' "$DB-wal" "$DB-shm" | tr '\n' ' ' | sed 's/ $//')"
check_unprivileged "query server" "$SERVE_PID" "$(id -u commd)"
check_eq "query server: its gid is commd's" "$(getent group commd | cut -d: -f3)" \
	"$(proc_field "$SERVE_PID" Gid | awk '{print $2}')"

# --- 2. a member -------------------------------------------------------------------
small_load
sleep 1.2
ref=$(q "select count(*) from capture")
as srvt-member init "$COMMQ" --socket "$SOCK" -list -noheader \
	"select count(*) from capture; select count(*) > 0 from sched_switch"
check_eq "a member's query" "0 $ref
1" "$AS_RC $AS_OUT"
check_eq "a member's query: stderr" "" "$AS_ERR"
as srvt-member init "$RAWCLIENT" "$SOCK" "q:0:0:select 5" read:5
check_eq "a member's raw query" "0 C 1 5:;R 1 5;E rows=1;" "$AS_RC $(grep -v '^SUMMARY' <<< "$AS_OUT" | tr '\n' ';')"

# --- 3. others -----------------------------------------------------------------------
n_attack=$(switches)
as srvt-other init "$COMMQ" --socket "$SOCK" "select count(*) from capture"
check_true "a non-member's commq: exit status != 0" "!= 0" "$AS_RC" [ "$AS_RC" != 0 ]
check_eq "a non-member gets no answer" "" "$AS_OUT"
check_match "a non-member's commq says permission denied" "[Pp]ermission denied" "$AS_ERR"
as nobody nogroup "$COMMQ" --socket "$SOCK" "select count(*) from capture"
check_true "nobody's commq: exit status != 0" "!= 0" "$AS_RC" [ "$AS_RC" != 0 ]
check_match "nobody's commq says permission denied" "[Pp]ermission denied" "$AS_ERR"
chmod 0666 "$SOCK"
as srvt-other init "$COMMQ" --socket "$SOCK" "select count(*) from capture"
check_true "socket opened up (0666): a non-member's commq: exit status != 0 (SO_PEERCRED)" "!= 0" \
	"$AS_RC (stdout '$AS_OUT', stderr '$AS_ERR')" [ "$AS_RC" != 0 ]
check_eq "socket opened up (0666): a non-member gets no answer" "" "$AS_OUT"
check_match "socket opened up (0666): the server tells a non-member why (an error frame)" \
	"permission denied: not root, nor a member" "$AS_ERR"
as srvt-member init "$COMMQ" --socket "$SOCK" -list -noheader "select count(*) from capture"
check_eq "socket opened up (0666): a member still gets answers" "0 $ref" "$AS_RC $AS_OUT"
rising "while non-members are refused" "$n_attack"
check_match "a log line for a refused peer (its uid, the group)" \
	"commd serve: refused a connection from uid $(id -u srvt-other) gid $(id -g srvt-other) \\(pid [0-9]+\\): not root, nor a member of group commd" \
	"$(cat "$ERR")"
chmod 0660 "$SOCK"
stop_commd "$COMMD_PID" TERM 60
check_eq "SIGTERM: exit status" 0 "$STOP_RC"
no_sanitizer_reports "commd 1"

# --- 3b. a database directory commd makes is group commd's ---------------------------
fresh=$TMP/fresh-dir
"$COMMD" --foreground --config /dev/null --db "$fresh/f.db" --instance "$(inst fresh)" \
	--socket none 2> "$TMP/fresh.err" < /dev/null &
fresh_pid=$!
COMMD_PIDS+=("$fresh_pid")
for _ in $(seq 200); do
	grep -q '^commd: capturing into ' "$TMP/fresh.err" 2> /dev/null && break
	_alive "$fresh_pid" || break
	sleep 0.05
done
check_eq "a database directory commd made" "drwxr-x--- root commd" "$(stat -c '%A %U %G' "$fresh")"
check_eq "the database in it" "-rw-r----- root commd" "$(stat -c '%A %U %G' "$fresh/f.db")"
stop_commd "$fresh_pid" TERM 60
check_eq "SIGTERM: exit status (the fresh directory's commd)" 0 "$STOP_RC"

# --- 4. group commd without user commd -------------------------------------------------
# (Rewritten in place: the same file, so the bind mount shows the change.)
grep -v '^commd:' "$TMP/etc/passwd" > "$TMP/etc/passwd.new"
cat "$TMP/etc/passwd.new" > "$TMP/etc/passwd"
check_eq "part 4: no user commd any more" absent "$(getent passwd commd > /dev/null && echo present || echo absent)"
start_ready 2
log "group commd, no user commd: the query server runs as uid $(proc_field "$SERVE_PID" Uid | awk '{print $1}'), gids $(proc_field "$SERVE_PID" Gid | awk '{print $1}') + groups '$(proc_field "$SERVE_PID" Groups)'; the database is $(stat -c '%A %U %G' "$DB")"
check_unprivileged "group commd, no user commd: query server" "$SERVE_PID" "$(id -u nobody)"
small_load
sleep 1.2
sq "select count(*) from capture" -list -noheader
check_eq "group commd, no user commd: root's query" "0 1" "$SQ_RC $SQ_OUT$([ -z "$SQ_ERR" ] || echo " (stderr: $SQ_ERR)")"
as srvt-member init "$COMMQ" --socket "$SOCK" -list -noheader "select count(*) from capture"
check_eq "group commd, no user commd: a member's query" "0 1" "$AS_RC $AS_OUT$([ -z "$AS_ERR" ] || echo " (stderr: $AS_ERR)")"
stop_commd "$COMMD_PID" TERM 60
check_eq "group commd, no user commd: SIGTERM: exit status" 0 "$STOP_RC"
no_sanitizer_reports "the query server (commd's stderr)"
finish
