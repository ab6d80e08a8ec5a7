#!/usr/bin/env bash
# Runs every fuzz entry built in BUILD_DIR (the lines of BUILD_DIR/fuzz_entries.txt) for SECONDS each, as many at once as
# there are cores, from its seeds. New inputs libFuzzer finds go to BUILD_DIR/fuzz-corpus/NAME, a crashing input to
# BUILD_DIR/fuzz-findings/; the repository's corpus is only read. Exit status 1 if any entry found a problem.
# Usage: fuzz/run.sh BUILD_DIR SECONDS [NAME ...]   (names: only those entries)
set -euo pipefail
build_dir=$(realpath "$1")
seconds=$2
shift 2
manifest="$build_dir/fuzz_entries.txt"
[ -f "$manifest" ] || { echo "fuzz/run.sh: $manifest is missing: configure with -DSHARDSCOPE_LIBFUZZER=ON" >&2; exit 2; }
jobs=$(nproc)
mkdir -p "$build_dir/fuzz-findings" "$build_dir/fuzz-logs"

run_entry() {
    local name=$1
    shift
    mkdir -p "$build_dir/fuzz-corpus/$name"
    # -max_len: inputs up to 64 KiB (longer seeds are read truncated); -timeout: an input taking 10 s is a hang;
    # -rss_limit_mb: an input needing 2 GiB is a finding. The run's own log goes beside the findings.
    if "$build_dir/fuzz_$name" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$build_dir/fuzz-findings/$name-" "$build_dir/fuzz-corpus/$name" "$@" >"$build_dir/fuzz-logs/$name.log" 2>&1; then
        echo "fuzz_$name: ${seconds} s, $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$build_dir/fuzz-logs/$name.log" | grep -o '[0-9]*$') inputs, no finding"
    else
        echo "fuzz_$name: FOUND A PROBLEM (log: $build_dir/fuzz-logs/$name.log)"
        grep -E "^fuzz_$name: |ERROR: |SUMMARY: |Test unit written to" "$build_dir/fuzz-logs/$name.log" | head -5 | sed 's/^/  /'
        echo "  Fix it, then put the input into fuzz/corpus/$name/ with a test in fuzz/test_corpus.cpp that replays it."
        return 1
    fi
}

failed=0
running=0
while read -r name seeds; do
    [ -n "$name" ] || continue
    if [ $# -gt 0 ] && [[ ! " $* " == *" $name "* ]]; then continue; fi
    # shellcheck disable=SC2086  # the seed directories are separate words
    run_entry "$name" $seeds &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n || failed=1
        running=$((running - 1))
    fi
done <"$manifest"
while [ "$running" -gt 0 ]; do
    wait -n || failed=1
    running=$((running - 1))
done
exit "$failed"
