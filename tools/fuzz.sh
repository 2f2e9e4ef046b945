#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# tools/fuzz.sh [SECONDS] [TARGET...]: builds the libFuzzer targets (clang, ASan+UBSan)
# in build-fuzz and runs each for SECONDS (default 60), all of them unless named
# (fuzz_handshake, fuzz_data, fuzz_uapi, ...). New inputs go to build-fuzz/corpus/<target>;
# the committed seeds in tests/fuzz/corpus/<target> are only read. Crashes are kept as
# build-fuzz/corpus/<target>/crash-* and make the script fail.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
[ $# -gt 0 ] && shift
cmake -S . -B build-fuzz -G Ninja -DCMAKE_C_COMPILER=clang -DCAKEWG_SANITIZE=ON \
	-DCAKEWG_FUZZ=ON -DCAKEWG_NETNS_TESTS=OFF >/dev/null
cmake --build build-fuzz >/dev/null
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
	for f in tests/fuzz/fuzz_*.c; do targets+=("$(basename "$f" .c)"); done
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
