# am_targets VAR: the program names listed in the automake variable VAR of
# tests/Makemodule.am (every "VAR =" and "VAR +=" line with its
# continuations), one per line; a $(OTHER) reference lists OTHER's.
# Sourced by tests/e2e/replay_load.sh and tests/bench/replay_rate.sh.
am_targets() {
	local word
	awk -v var="$1" '
		($1 == var && ($2 == "=" || $2 == "+=")) { on = 1; $1 = ""; $2 = "" }
		on {
			cont = /\\$/
			for (i = 1; i <= NF; i++)
				if ($i != "\\" && $i != "") print $i
			if (!cont) on = 0
		}' "$top_srcdir/tests/Makemodule.am" |
	while read -r word; do
		case $word in
		'$('*')') am_targets "${word:2:${#word}-3}" ;;
		*) printf '%s\n' "${word##*/}" ;;
		esac
	done
}
