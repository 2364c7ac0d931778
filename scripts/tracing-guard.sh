# Sourced by scripts that run trace-cmd: makes sure tracefs is mounted,
# names a private instance to record into ($instance: `trace-cmd record
# -B "$instance"`, never the global buffer) and, when the script exits,
# removes it (trace-cmd leaves it behind) and puts back what trace-cmd
# changes globally anyway (tracing_on, the buffer size).
tr=/sys/kernel/tracing
if [ ! -e "$tr/tracing_on" ]; then
	mount -t tracefs nodev "$tr" 2>/dev/null || true
fi
if [ ! -w "$tr/tracing_on" ]; then
	echo "tracefs is not usable at $tr (are you root?)" >&2
	exit 1
fi
saved_on=$(cat "$tr/tracing_on")
# "1408" or "7 (expanded: 1408)": the number the buffer really has.
saved_kb=$(sed -E 's/.*expanded: ([0-9]+)\).*/\1/; s/^([0-9]+).*/\1/' "$tr/buffer_size_kb")
instance=commd-$$
# Written back only when changed: writing the boot value "7 (expanded:
# 1408)" back as 1408 would itself change it (to 1410).
saved_raw_kb=$(cat "$tr/buffer_size_kb")
restore_tracing() {
	rmdir "$tr/instances/$instance" 2>/dev/null || true
	[ "$(cat "$tr/tracing_on")" = "$saved_on" ] ||
		echo "$saved_on" > "$tr/tracing_on" 2>/dev/null || true
	[ "$(cat "$tr/buffer_size_kb")" = "$saved_raw_kb" ] ||
		echo "$saved_kb" > "$tr/buffer_size_kb" 2>/dev/null || true
}
trap restore_tracing EXIT
