# bash completion for commd(8)                             -*- shell-script -*-

_commd()
{
	local cur prev words cword
	if declare -F _init_completion >/dev/null; then
		_init_completion -n : || return
	else
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD-1]}
	fi

	case $prev in
	--db|-o|--output|--config|--socket)
		if declare -F _filedir >/dev/null; then _filedir; else
			COMPREPLY=($(compgen -f -- "$cur")); fi
		return
		;;
	--events)
		# system:event,system:event... (available_events is root's)
		local events=/sys/kernel/tracing/available_events pre=
		[[ $cur == *,* ]] && pre=${cur%,*},
		[[ -r $events ]] &&
			COMPREPLY=($(compgen -P "$pre" -W "$(<$events)" -- "${cur##*,}"))
		declare -F __ltrim_colon_completions >/dev/null &&
			__ltrim_colon_completions "$cur"
		return
		;;
	--log-level)
		COMPREPLY=($(compgen -W 'error warning notice info debug' -- "$cur"))
		return
		;;
	--clock)
		COMPREPLY=($(compgen -W 'local mono global mono_raw boot' -- "$cur"))
		return
		;;
	--buffer)
		# import: an instance's name (trace-cmd record -B NAME) or these
		COMPREPLY=($(compgen -W 'top all' -- "$cur"))
		return
		;;
	--instance|--buffer-kb|--commit-ms|--max-db-mb|--max-age|--query-timeout-ms|\
	--query-max-conns|--query-max-result-mb|--query-max-mem-mb|--clickhouse|\
	--host-name|--clickhouse-interval-s|--cluster|--database)
		return
		;;
	esac

	if [[ ${COMP_WORDS[1]} == import ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '-o --output --force --progress --no-progress
				--no-derived --buffer --help' -- "$cur"))
		elif declare -F _filedir >/dev/null; then
			_filedir dat
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		return
	fi
	if [[ ${COMP_WORDS[1]} == clickhouse-schema ]]; then
		[[ $cur == -* ]] &&
			COMPREPLY=($(compgen -W '--cluster --database --help' -- "$cur"))
		return
	fi
	if [[ ${COMP_WORDS[1]} == migrate ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W '--help' -- "$cur"))
		elif declare -F _filedir >/dev/null; then
			_filedir '@(db|sqlite|sqlite3)'
		else
			COMPREPLY=($(compgen -f -- "$cur"))
		fi
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W '--foreground --db --instance --buffer-kb
			--events --clock --stacks --commit-ms --socket --max-db-mb --max-age --log-level
			--query-timeout-ms --query-max-conns --query-max-result-mb --query-max-mem-mb
			--clickhouse --host-name --clickhouse-interval-s
			--config --help --version' -- "$cur"))
	elif [[ $cword -eq 1 || $COMP_CWORD -eq 1 ]]; then
		COMPREPLY=($(compgen -W 'import check-config migrate clickhouse-schema' -- "$cur"))
	elif [[ ${COMP_WORDS[1]} == check-config ]]; then
		if declare -F _filedir >/dev/null; then _filedir conf; else
			COMPREPLY=($(compgen -f -- "$cur")); fi
	fi
} &&
	complete -F _commd commd

# ex: filetype=sh
