#!/usr/bin/env bash
# `shardscope run`: Llama 3's 54-day snapshot as JSON (Dubey et al. 2024 sec 3.3.4: 466 interruptions, more than 90 %
# effective training time), the same seed giving the same run, the CSV of its segments, and bad failure tables refused
# naming the file's field with exit status 2.
set -u
binary="$1"
source_dir="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
llama="$source_dir/assets/scenarios/llama3-405b-16k.json"

"$binary" run --json "$llama" >"$work/out.json" 2>"$work/err" || fail "run --json: status $?: $(cat "$work/err")"
python3 - "$work/out.json" <<'PY' || fail "run --json: $(head -c 400 "$work/out.json")"
import json, sys
out = json.load(open(sys.argv[1]))
assert out["window_seconds"] == 54 * 86400, out.get("window_seconds")
median = out["runs"]["interruptions"]["p50"]
assert abs(median - 466) <= 0.15 * 466, median
assert out["runs"]["goodput"]["p50"] > 0.9, out["runs"]["goodput"]
assert abs(out["runs"]["goodput"]["mean"] - out["closed_form"]["goodput"]) < 0.02, (out["runs"]["goodput"], out["closed_form"])
activity = sum(out["run"]["activity_seconds"].values())
assert abs(activity - out["run"]["wall_seconds"]) < 1e-3 * out["run"]["wall_seconds"], (activity, out["run"]["wall_seconds"])
assert sum(c["this_run"] for c in out["run"]["causes"]) == out["run"]["interruptions"]
PY
"$binary" run --csv --seed 9 --days 3 "$llama" >"$work/a.csv" 2>"$work/err" || fail "run --csv: status $?: $(cat "$work/err")"
"$binary" run --csv --seed 9 --days 3 "$llama" >"$work/b.csv"
cmp -s "$work/a.csv" "$work/b.csv" || fail "run --csv --seed 9: two runs differ"
head -n 1 "$work/a.csv" | tr -d '\r' | grep -q '^start_seconds,end_seconds,activity,cause$' || fail "run --csv: header: $(head -n 1 "$work/a.csv")"
grep -q ',restarts,' "$work/a.csv" || fail "run --csv: three days on 16,384 GPUs without a restart"
"$binary" run --table --runs 5 "$llama" | head -n 1 | grep -q '^Over 54.0 days of the run: ' || fail "run --table: $("$binary" run --table --runs 5 "$llama" | head -n 1)"

expect_table_error() {
    local description="$1" field="$2" text="$3"
    printf '%s' "$text" >"$work/table.json"
    "$binary" run --failures "$work/table.json" "$llama" >"$work/out" 2>"$work/err"
    local status=$?
    if [ "$status" -ne 2 ] || [ "$(wc -l <"$work/err")" -ne 1 ] || ! grep -qF -- "$field" "$work/err"; then
        fail "$description: status $status: $(cat "$work/err")"
    fi
}
expect_table_error "a negative rate" "table.json.causes[0].count" '{"observed_days": 10, "causes": [{"name": "GPU", "component": "gpu", "count": -2}]}'
expect_table_error "an unknown component" "table.json.causes[0].component" '{"observed_days": 10, "causes": [{"name": "X", "component": "toaster", "count": 1}]}'
expect_table_error "a recovery longer than the window" "table.json.causes[0].detect_seconds" \
    '{"observed_days": 1, "causes": [{"name": "SDC", "component": "gpu", "count": 1, "recovery": "rollback", "detect_seconds": 1e6}]}'
printf '{"operations": {"spare_nodes": -1}}' >"$work/bad.json"
"$binary" run "$work/bad.json" >/dev/null 2>"$work/err"
[ $? -eq 2 ] && grep -q "operations.spare_nodes" "$work/err" || fail "spare_nodes -1: $(cat "$work/err")"

[ "$failures" -eq 0 ] && echo "run: all checks passed"
