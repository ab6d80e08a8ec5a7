#!/usr/bin/env bash
# `shardscope scaling`: every point as JSON and CSV, the wall named, and an impossible network refused naming its field.
set -u
binary="$1"
source_dir="$2"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
zero3="$source_dir/assets/scenarios/gpt3-175b-zero3-384-a100.json"

"$binary" scaling --json "$zero3" >"$work/out.json" 2>"$work/err" || fail "scaling --json: status $?: $(cat "$work/err")"
python3 - "$work/out.json" <<'PY' || fail "scaling --json: $(head -c 400 "$work/out.json")"
import json, math, sys
curve = json.load(open(sys.argv[1]))
points = curve["points"]
assert curve["mode"] == "strong" and 1 <= len(points) <= 15, len(points)
assert [p["gpus"] for p in points][:11] == [3 * 2 ** k for k in range(11)], [p["gpus"] for p in points]
assert curve["wall"] == "exposed DP communication" and curve["wall_gpus"] == 768, (curve["wall"], curve["wall_gpus"])
for p in points:
    assert p["feasible"] == ("reason" not in p), p
    for key, value in p.items():
        if isinstance(value, float):
            assert math.isfinite(value), (key, value)
at = {p["gpus"]: p for p in points}
assert at[1536]["mfu"] < 0.5 * at[384]["mfu"], (at[384]["mfu"], at[1536]["mfu"])
assert [p["gpus"] for p in curve["published"]["points"]] == [384, 768, 1536], curve.get("published")
PY
"$binary" scaling --csv --weak --max-gpus 1536 "$zero3" >"$work/out.csv" 2>"$work/err" || fail "scaling --csv --weak: status $?"
head -n 1 "$work/out.csv" | grep -q '^gpus,dp,micro_batch,global_batch,step,mfu' || fail "scaling --csv: header: $(head -n 1 "$work/out.csv")"
[ "$(wc -l <"$work/out.csv")" -eq 11 ] || fail "scaling --csv --max-gpus 1536: $(wc -l <"$work/out.csv") lines, expected a header and 10 points"
"$binary" scaling --table "$zero3" | head -n 1 | grep -q '^Strong scaling, the global batch held at 1,536 sequences: from 768 GPUs on' ||
    fail "scaling --table: sentence: $("$binary" scaling --table "$zero3" | head -n 1)"

expect_input_error() {
    local description="$1" field="$2" text="$3"
    printf '%s' "$text" >"$work/bad.json"
    "$binary" scaling "$work/bad.json" >"$work/out" 2>"$work/err"
    local status=$?
    if [ "$status" -ne 2 ] || [ "$(wc -l <"$work/err")" -ne 1 ] || ! grep -q -- "$field" "$work/err"; then
        fail "$description: status $status: $(cat "$work/err")"
    fi
}
expect_input_error "a NIC faster than its link" "cluster.fabric.nic_bytes_per_s" '{"cluster": {"gpus": 64, "fabric": {"nic_bytes_per_s": 1e12}}}'
expect_input_error "oversubscription below 1" "cluster.fabric.oversubscription" '{"cluster": {"gpus": 64, "fabric": {"oversubscription": 0.5}}}'
expect_input_error "a pod larger than the cluster" "cluster.fabric.pod_gpus" '{"cluster": {"gpus": 64, "fabric": {"pod_gpus": 3072}}}'
"$binary" scaling --max-gpus 0 "$zero3" >/dev/null 2>"$work/err"
[ $? -eq 2 ] || fail "scaling --max-gpus 0: not a usage error: $(cat "$work/err")"

[ "$failures" -eq 0 ] && echo "scaling: all checks passed"
exit "$failures"
