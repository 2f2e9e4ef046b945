#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# tools/fuzz.sh [SECONDS] [TARGET...]: builds the libFuzzer targets (clang, ASan+UBSan)
# in build-fuzz and runs each for SECONDS (default 60), all of them unless named
# (fuzz_handshake, fuzz_data, fuzz_uapi, ...). New inputs go to build-fuzz/corpus/<target>;
# the committed seeds in tests/fuzz/corpus/<target> are only read. Crashes are kept as
# build-fuzz/corpus/<target>/crash-* and make the script fail.
#
# tools/fuzz.sh --all SECONDS [--jobs N] [--targets T,T...] [--report FILE]: a campaign,
# every target (or those named) for SECONDS, N at a time (default 1), each from a fresh
# scratch corpus and a random seed.
# It writes a
# report (doc/fuzz/YYYY-MM-DD-campaign.md unless FILE is given): the command, the commit,
# and per target the executions, exec/s, coverage (libFuzzer's cov: edges and ft:
# features), the committed corpus before and after, crashes, seconds and the seed. Then
# it merges what each run found into tests/fuzz/corpus/<target> (-merge=1: only inputs
# that add coverage to what is there; the seeds stay), ready to be committed. Crash
# artifacts stay in build-fuzz/campaign/<target>/; replay one with
#   build-fuzz/tests/<target> build-fuzz/campaign/<target>/crash-<sha1>
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
	echo "usage: tools/fuzz.sh [SECONDS] [TARGET...] | --all SECONDS [--jobs N] [--targets T,...] [--report FILE]" >&2
	exit 2
}

build() {
	cmake -S . -B build-fuzz -G Ninja -DCMAKE_C_COMPILER=clang -DCAKEWG_SANITIZE=ON \
		-DCAKEWG_FUZZ=ON -DCAKEWG_NETNS_TESTS=OFF >/dev/null
	cmake --build build-fuzz >/dev/null
}

all_targets() {
	local f
	for f in tests/fuzz/fuzz_*.c; do basename "$f" .c; done
}

# corpus_size DIR: "FILES BYTES" of the inputs in DIR.
corpus_size() {
	local files bytes
	files=$(find "$1" -maxdepth 1 -type f | wc -l)
	bytes=$(find "$1" -maxdepth 1 -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
	echo "$files $bytes"
}

# final_stat LOG NAME: libFuzzer's final stat::NAME from LOG.
final_stat() { sed -n "s/^stat::$2: *//p" "$1" | tail -n 1; }

# cov_of LOG WHICH: "COV FT" from the INITED status line of LOG (WHICH=first, the
# corpus as it was) or the last one (WHICH=last).
cov_of() {
	local lines
	lines=$(grep -E '^#[0-9]+' "$1" || true)
	[ "$2" = first ] && lines=$(grep INITED <<<"$lines" || true)
	tail -n 1 <<<"$lines" | sed -n 's/.* cov: \([0-9]*\) ft: \([0-9]*\).*/\1 \2/p'
}

# fuzz_one TARGET SECS: one campaign run of TARGET; its report row goes to
# build-fuzz/campaign/TARGET.row. Fails when the target crashed or the merge failed.
fuzz_one() {
	local t=$1 secs=$2 dir log seed start took rc crashes n0 b0 n1 b1 cov0 ft0 cov ft failed=0
	dir=build-fuzz/campaign/$t
	log=$dir.log
	rm -rf "$dir"
	mkdir -p "$dir/corpus" "tests/fuzz/corpus/$t"
	read -r n0 b0 <<<"$(corpus_size "tests/fuzz/corpus/$t")"
	seed=$(( $(od -An -N4 -tu4 /dev/urandom) % 4294967295 + 1 ))
	echo "[#] $t for ${secs}s (seed $seed)"
	start=$SECONDS
	rc=0
	"build-fuzz/tests/$t" -max_total_time="$secs" -seed="$seed" -print_final_stats=1 \
		-artifact_prefix="$dir/" "$dir/corpus" "tests/fuzz/corpus/$t" 2>"$log" || rc=$?
	took=$((SECONDS - start))
	crashes=$(find "$dir" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' \
		-o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
	if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
		echo "[!] $t failed (exit $rc): see $log"
		[ "$crashes" -ne 0 ] || crashes="exit $rc"
		failed=1
	fi
	read -r cov0 ft0 <<<"$(cov_of "$log" first)"
	read -r cov ft <<<"$(cov_of "$log" last)"
	"build-fuzz/tests/$t" -merge=1 "tests/fuzz/corpus/$t" "$dir/corpus" \
		>"$dir.merge.log" 2>&1 || { echo "[!] $t: merge failed: see $dir.merge.log"; failed=1; }
	read -r n1 b1 <<<"$(corpus_size "tests/fuzz/corpus/$t")"
	{
		printf '| %s | %s' "$t" "$(final_stat "$log" number_of_executed_units)"
		printf ' | %s | %s → %s' "$(final_stat "$log" average_exec_per_sec)" "${cov0:-?}" "${cov:-?}"
		printf ' | %s → %s | %s (%s B) | %s (%s B) | %s | %s | %s |\n' "${ft0:-?}" "${ft:-?}" \
			"$n0" "$b0" "$n1" "$b1" "$crashes" "$took" "$seed"
	} >"$dir.row"
	return $failed
}

campaign() {
	local secs=$1 jobs=$2 report=$3 t commit failed=0 running=0 targets
	[[ $secs =~ ^[0-9]+$ ]] && [ "$secs" -gt 0 ] || usage
	[[ $jobs =~ ^[0-9]+$ ]] && [ "$jobs" -gt 0 ] || usage
	build
	commit=$(git rev-parse --short HEAD)
	git diff --quiet HEAD -- . ':!tests/fuzz/corpus' || commit="$commit (with local changes)"
	mkdir -p "$(dirname "$report")" build-fuzz/campaign
	rm -f build-fuzz/campaign/*.row
	targets=${CAMPAIGN_TARGETS:-$(all_targets)}
	for t in $targets; do
		[ -f "tests/fuzz/$t.c" ] || { echo "tools/fuzz.sh: no target $t" >&2; exit 2; }
	done
	for t in $targets; do
		if [ "$running" -ge "$jobs" ]; then
			wait -n || failed=1
			running=$((running - 1))
		fi
		fuzz_one "$t" "$secs" &
		running=$((running + 1))
	done
	while [ "$running" -gt 0 ]; do
		wait -n || failed=1
		running=$((running - 1))
	done
	{
		echo "# Fuzz campaign, $(date -u +%Y-%m-%d)"
		echo
		echo "- command: \`tools/fuzz.sh --all $secs --jobs $jobs\` ($secs s per target, $jobs at a time)"
		echo "- commit: $commit"
		echo "- machine: $(nproc) CPUs, $(clang --version | head -n 1), ASan + UBSan"
		echo
		echo "Corpus: the committed one (tests/fuzz/corpus/<target>), before the run and after"
		echo "the run's finds were merged into it (-merge=1). Coverage: libFuzzer's status"
		echo "lines (cov: edges, ft: features), on the corpus as it was → at the end of the run."
		echo "Replay a seed with"
		echo "\`build-fuzz/tests/<target> -seed=N -max_total_time=S <empty dir> tests/fuzz/corpus/<target>\`"
		echo "from the corpus before the merge."
		echo
		echo "| target | executions | exec/s | cov | ft | corpus before | corpus after | crashes | seconds | seed |"
		echo "|---|---|---|---|---|---|---|---|---|---|"
		for t in $targets; do
			cat "build-fuzz/campaign/$t.row" 2>/dev/null || echo "| $t | (no result) |||||||||"
		done
	} >"$report"
	echo "[#] report: $report"
	return $failed
}

if [ "${1:-}" = --all ]; then
	[ $# -ge 2 ] || usage
	secs=$2 jobs=1 report=doc/fuzz/$(date -u +%Y-%m-%d)-campaign.md
	shift 2
	while [ $# -gt 0 ]; do
		case $1 in
		--jobs) [ $# -ge 2 ] || usage; jobs=$2; shift 2 ;;
		--report) [ $# -ge 2 ] || usage; report=$2; shift 2 ;;
		--targets) [ $# -ge 2 ] || usage; CAMPAIGN_TARGETS=${2//,/ }; shift 2 ;;
		*) usage ;;
		esac
	done
	campaign "$secs" "$jobs" "$report"
	exit
fi

secs=${1:-60}
[ $# -gt 0 ] && shift
build
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	for t in $(all_targets); do targets+=("$t"); done
fi
fail=0
for t in "${targets[@]}"; do
	mkdir -p "build-fuzz/corpus/$t"
	echo "[#] $t for ${secs}s"
	if ! "build-fuzz/tests/$t" -max_total_time="$secs" -print_final_stats=1 \
		-artifact_prefix="build-fuzz/corpus/$t/" "build-fuzz/corpus/$t" \
		"tests/fuzz/corpus/$t" 2>"build-fuzz/corpus/$t.log"; then
		echo "[!] $t failed: see build-fuzz/corpus/$t.log"
		fail=1
	fi
	grep -E 'stat::number_of_executed_units' "build-fuzz/corpus/$t.log" || true
done
exit $fail
