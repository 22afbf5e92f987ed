#!/usr/bin/env bash
# `make test`'s lanes: tools/lanes.sh MAKE LANE... runs each LANE (a space-separated list of make targets, run one
# after the other, every one even if one fails) in parallel with the others. The first lane's output streams as it runs
# (and is kept in a log); the others' go to logs in a temporary folder (never the checkout: tests/test_package.py's
# zip test reads untracked files); a line is printed as each target ends, then those logs in full, lane by lane, once
# all have ended, then a summary: each target's
# result, wall and CPU time (user + sys of the processes it ran). Exits 1 if any target failed, naming them.
# Ctrl+C or SIGTERM stops every lane (their processes share this script's process group).
set -u
# Python writes through a pipe unbuffered, so the streamed lane shows each test as it ends.
export PYTHONUNBUFFERED=1
make=$1
shift
logs=$(mktemp -d "${TMPDIR:-/tmp}/vc_lanes.XXXXXX")
trap 'rm -rf "$logs"' EXIT
trap 'trap - INT TERM; kill 0' INT TERM
echo "== make test: ${#} lanes in parallel; lane 1 streams, the others' logs ($logs) are printed when all end =="
lane=0
for targets in "$@"; do
	lane=$((lane + 1))
	(
		TIMEFORMAT="%R %U %S"
		for target in $targets; do
			log="$logs/$lane-$target"
			if [ "$lane" = 1 ]; then
				# The first lane streams as it runs, so a CI log never goes silent for the whole run.
				{ time {
					"$make" --no-print-directory "$target" 2>&1 | tee "$log.log"
					echo "${PIPESTATUS[0]}" >"$log.rc"
				}; } 2>"$log.time"
			else
				{ time "$make" --no-print-directory "$target" >"$log.log" 2>&1; } 2>"$log.time"
				echo $? >"$log.rc"
			fi
			read -r wall user sys <"$log.time"
			cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.0f", u + s }')
			printf "%s %.0f %s\n" "$(cat "$log.rc")" "$wall" "$cpu" >"$log.sum"
			echo "== lane $lane: $target $([ "$(cat "$log.rc")" = 0 ] && echo passed || echo FAILED)" \
				"($(printf %.0f "$wall") s wall, $cpu s CPU) =="
		done
	) &
done
wait
status=0
failed=()
lane=0
for targets in "$@"; do
	lane=$((lane + 1))
	for target in $targets; do
		echo
		echo "==================== lane $lane: make $target ===================="
		if [ "$lane" = 1 ]; then
			echo "(streamed above)"
		else
			cat "$logs/$lane-$target.log" 2>/dev/null || echo "(no log: the lane was stopped)"
		fi
	done
done
echo
echo "==================== make test: summary ===================="
lane=0
for targets in "$@"; do
	lane=$((lane + 1))
	lane_wall=0
	lane_cpu=0
	for target in $targets; do
		read -r rc wall cpu <"$logs/$lane-$target.sum" || { rc=missing wall=0 cpu=0; }
		lane_wall=$((lane_wall + wall))
		lane_cpu=$((lane_cpu + cpu))
		if [ "$rc" = 0 ]; then
			result=passed
		else
			result="FAILED (exit $rc)"
			failed+=("$target")
			status=1
		fi
		printf "lane %s  %-22s %-18s %6s s wall %6s s CPU\n" "$lane" "$target" "$result" "$wall" "$cpu"
	done
	printf "lane %s  %-22s %-18s %6s s wall %6s s CPU\n" "$lane" "(lane)" "" "$lane_wall" "$lane_cpu"
done
if [ "$status" != 0 ]; then
	echo "make test: FAILED: ${failed[*]}"
else
	echo "make test: every suite passed"
fi
exit "$status"
