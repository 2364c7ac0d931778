# bash completion for commq(1)                             -*- shell-script -*-
# Options, files for --db/-f, sockets for --socket, reports and their
# options, and table names (and a few SQL words) for the SQL argument.

_commq_tables="sched_switch sched_wakeup sched_wakeup_new sched_waking
sched_process_fork sched_process_exec sched_process_exit sched_process_free
sched_migrate_task sched_stat_runtime task_rename task_newtask events
comm_history sched wakeup_latency thread_state runqueue_wait runqueue
preempt_wait cgroup_history offcpu stacks switch_stack lost_events stats capture
kernel_states thread process process_comm comms clock_map event_types"

_commq_files()
{
	if declare -F _filedir >/dev/null; then _filedir; else
		COMPREPLY=($(compgen -f -- "$cur")); fi
}

_commq()
{
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion || return
	else
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD-1]}
	fi

	case $prev in
	--db|-db)
		if declare -F _filedir >/dev/null; then
			_filedir '@(db|sqlite|sqlite3)'
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		return
		;;
	-f|--f|-file|--file)
		_commq_files
		return
		;;
	--socket|-socket)
		if declare -F _filedir >/dev/null; then _filedir sock; else
			COMPREPLY=($(compgen -f -- "$cur")); fi
		return
		;;
	--limit|-limit|--timeout|-timeout|-separator|--separator|-nullvalue|--nullvalue|\
	--clickhouse|-clickhouse|--listen|-listen)
		return
		;;
	esac

	# A report and its options.
	local i report=
	for ((i = 1; i < ${#COMP_WORDS[@]} - 1; i++)); do
		case ${COMP_WORDS[i]} in
		top|latency|util|runq|wakers|offcpu|history|lost|timeline|export|ui) report=${COMP_WORDS[i]}; break ;;
		esac
	done
	case $prev in
	--by)
		if [[ $report == util ]]; then
			COMPREPLY=($(compgen -W 'cpu comm cgroup' -- "$cur"))
		elif [[ $report == latency ]]; then
			COMPREPLY=($(compgen -W 'pid comm' -- "$cur"))
		else
			COMPREPLY=($(compgen -W 'comm process thread cpu cgroup' -- "$cur"))
		fi
		return ;;
	--from|--to|--last|--comm|--width|--interval|--depth) return ;;
	-o|--output) [[ $report == timeline || $report == offcpu ]] && { _commq_files; return; } ;;
	--pid) return ;;
	--chrome-json) [[ $report == export ]] && { _commq_files; return; } ;;
	esac
	if [[ -n $report ]]; then
		local opts=
		case $report in
		top) opts='--by --from --to --last --sql' ;;
		latency) opts='--comm --by --preempt --from --to --last --sql' ;;
		wakers) opts='--depth --from --to --last --sql' ;;
		offcpu) opts='--comm --pid --folded -o --from --to --last --sql' ;;
		util) opts='--by --interval --from --to --last --sql' ;;
		runq) opts='--from --to --last --sql' ;;
		timeline) opts='--from --to --last -o --width --sql' ;;
		export) opts='--chrome-json --from --to --last --sql' ;;
		ui) opts='--listen --last' ;;
		*) opts='--sql' ;;
		esac
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W '--socket --db --clickhouse -f --file --limit --timeout
			-column -table -box -list -csv -json -line -header -noheader
			-separator -nullvalue -q --quiet --help -h' -- "$cur"))
		return
	fi
	if [[ $cur != *[[:space:]]* ]]; then
		local r
		for r in top latency util runq wakers offcpu history lost timeline export ui; do
			[[ $r == "$cur"* ]] && COMPREPLY+=("$r")
		done
	fi

	# The SQL: a table name after the last blank of the word.
	local word=${cur##*[[:space:],(]} head w
	head=${cur%"$word"}
	for w in $_commq_tables select from where group order by count join limit; do
		[[ $w == "$word"* ]] && COMPREPLY+=("$head$w")
	done
} &&
	complete -F _commq commq

# ex: filetype=sh
