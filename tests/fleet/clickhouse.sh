# shellcheck shell=bash
# clickhouse.sh — sourced: a real two-shard ClickHouse cluster on loopback,
# from copies of Debian's /etc/clickhouse-server/config.xml (clickhouse-server
# 18.16 does not start itself).
#
#   ch_cluster_start DIR HTTP1 TCP1 HTTP2 TCP2 [CLUSTER]
#       two servers, each with its own ports (HTTP, native TCP, interserver
#       TCP+2), data, logs and a <remote_servers> cluster CLUSTER (default
#       commd_fleet) of both as two shards; waits until both answer.
#       Sets CH_PIDS (both server pids) and CH_DIR.
#   ch_start N      starts server N (1 or 2) again (after ch_kill N)
#   ch_kill N [SIG] stops server N (default SIGKILL) and waits for it
#   ch_query N SQL  runs SQL on server N over HTTP, prints the answer
#   ch_cluster_stop stops both and frees their ports
#   ch_free_base LO N
#       prints a base port in [LO, LO + 10 N) whose ten ports (both servers'
#       HTTP base and base+4, TCP base+1 and base+5, interserver base+3 and
#       base+7) are free now, all below the kernel's ephemeral ports, which
#       any outgoing connection may take meanwhile; picked from the shell's
#       pid on, so that two runs side by side try different ones.
ch_free_base() {
	/usr/bin/python3 - "$1" "$2" "$$" <<'PY'
import socket, sys
lo, n, seed = map(int, sys.argv[1:])
eph = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
for i in range(n):
    base = lo + (seed + i) % n * 10
    if base + 10 > eph:
        continue
    free = True
    for port in range(base, base + 10):
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            free = False
        finally:
            s.close()
        if not free:
            break
    if free:
        print(base)
        sys.exit(0)
sys.exit("no ten free ports from %d below %d" % (lo, eph))
PY
}
ch_config() {	# N HTTP TCP: writes $CH_DIR/N/config.xml
	local n=$1 http=$2 tcp=$3 d=$CH_DIR/$1
	mkdir -p "$d/data" "$d/tmp" "$d/user_files" "$d/format_schemas" "$d/log"
	/usr/bin/python3 - /etc/clickhouse-server/config.xml "$d" "$http" "$tcp" \
		"$CH_CLUSTER" "${CH_TCP[1]}" "${CH_TCP[2]}" <<'PY'
import re, sys
src, d, http, tcp, cluster, t1, t2 = sys.argv[1:]
x = open(src).read()
x = re.sub(r"<http_port>\d+</http_port>", "<http_port>%s</http_port>" % http, x)
x = re.sub(r"<tcp_port>\d+</tcp_port>", "<tcp_port>%s</tcp_port>" % tcp, x, count=1)
x = re.sub(r"<interserver_http_port>\d+</interserver_http_port>",
           "<interserver_http_port>%d</interserver_http_port>" % (int(tcp) + 2), x)
x = re.sub(r"<listen_host>::1</listen_host>", "", x)
for tag, sub in (("path", "data/"), ("tmp_path", "tmp/"), ("user_files_path", "user_files/"),
                 ("format_schema_path", "format_schemas/")):
    x = re.sub(r"<%s>/var/lib/clickhouse/[^<]*</%s>" % (tag, tag),
               "<%s>%s/%s</%s>" % (tag, d, sub, tag), x)
x = x.replace("/var/log/clickhouse-server/", d + "/log/")
x = x.replace("<users_config>users.xml</users_config>",
              "<users_config>/etc/clickhouse-server/users.xml</users_config>")
shards = "".join("<shard><replica><host>127.0.0.1</host><port>%s</port></replica></shard>" % t
                 for t in (t1, t2))
x = re.sub(r"<remote_servers incl=\"clickhouse_remote_servers\" >.*?</remote_servers>",
           "<remote_servers><%s>%s</%s></remote_servers>" % (cluster, shards, cluster), x, flags=re.S)
x = re.sub(r"<zookeeper incl=[^>]*/>", "", x)
x = re.sub(r"<macros incl=[^>]*/>", "", x)
x = re.sub(r"<mark_cache_size>\d+</mark_cache_size>", "<mark_cache_size>268435456</mark_cache_size>", x)
open(d + "/config.xml", "w").write(x)
PY
}

ch_start() {
	local n=$1 i
	(cd "$CH_DIR/$n" && exec clickhouse-server --config-file="$CH_DIR/$n/config.xml" \
		> "$CH_DIR/$n/log/stdout" 2>&1) &
	CH_PIDS[$n]=$!
	for ((i = 0; i < 300; i++)); do
		[ "$(curl -s --max-time 2 "http://127.0.0.1:${CH_HTTP[$n]}/ping" 2>/dev/null)" = "Ok." ] &&
			return 0
		kill -0 "${CH_PIDS[$n]}" 2>/dev/null || break
		sleep 0.1
	done
	echo "clickhouse server $n did not start: $(tail -n 5 "$CH_DIR/$n/log/clickhouse-server.err.log" 2>/dev/null)" >&2
	return 1
}

ch_kill() {
	local n=$1 sig=${2:-KILL}
	[ -n "${CH_PIDS[$n]:-}" ] || return 0
	kill -"$sig" "${CH_PIDS[$n]}" 2>/dev/null || true
	timeout 30 tail --pid="${CH_PIDS[$n]}" -f /dev/null 2>/dev/null || kill -KILL "${CH_PIDS[$n]}" 2>/dev/null
	wait "${CH_PIDS[$n]}" 2>/dev/null || true
	CH_PIDS[$n]=
}

ch_query() {
	curl -sS --max-time 120 --fail-with-body "http://127.0.0.1:${CH_HTTP[$1]}/" --data-binary "$2"
}

ch_cluster_start() {
	CH_DIR=$1
	CH_HTTP=([1]=$2 [2]=$4)
	CH_TCP=([1]=$3 [2]=$5)
	CH_CLUSTER=${6:-commd_fleet}
	CH_PIDS=()
	ch_config 1 "$2" "$3" && ch_config 2 "$4" "$5" && ch_start 1 && ch_start 2
}

ch_cluster_stop() {
	ch_kill 1 TERM
	ch_kill 2 TERM
}
