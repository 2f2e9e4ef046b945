#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# tests/fuzz/short-run.sh TARGET SCRATCH SEEDS: the short run of one fuzz target that
# ctest makes (label fuzz). Each run starts from a fresh random seed, printed first with
# the command that replays it; CAKEWG_FUZZ_SEED=N fixes it. New inputs go to SCRATCH
# (listed first), crash artifacts next to them; the committed SEEDS are only read.
set -eu
target=$1 scratch=$2 seeds=$3
seed=${CAKEWG_FUZZ_SEED:-$(( $(od -An -N4 -tu4 /dev/urandom) % 4294967295 + 1 ))}
echo "fuzz seed $seed; replay: CAKEWG_FUZZ_SEED=$seed ctest -R '^fuzz\\.$(basename "$target")\$'" \
	"in this build directory (from the same corpus), or $target <crash file>"
exec "$target" -runs=100000 -max_total_time=8 -seed="$seed" -artifact_prefix="$scratch/" \
	"$scratch" "$seeds"
