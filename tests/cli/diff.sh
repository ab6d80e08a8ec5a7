#!/usr/bin/env bash
# `shardscope diff A.json B.json`: the inputs that differ, then every figure that changed, largest relative change first;
# a scenario against itself changes nothing; a file that is not a valid scenario is refused in one line naming the file
# and the field, with exit status 2.
set -u
binary="$1"
source_dir="$2"
scenarios="$source_dir/assets/scenarios"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# ZeRO-1 against ZeRO-3 on the default scenario: parallel.zero is the input that differs, first; the JSON's per-GPU
# weights are each side's eval --json figure, and the change is their difference.
printf '{"model": {"preset": "llama3-70b"}, "cluster": {"gpu": "h100-sxm", "gpus": 64}, "parallel": {"zero": 1}}' >"$work/zero1.json"
printf '{"model": {"preset": "llama3-70b"}, "cluster": {"gpu": "h100-sxm", "gpus": 64}, "parallel": {"zero": 3}}' >"$work/zero3.json"
"$binary" diff --json "$work/zero1.json" "$work/zero3.json" >"$work/diff.json" 2>"$work/stderr" || fail "diff --json exited $?: $(cat "$work/stderr")"
"$binary" eval --json "$work/zero1.json" >"$work/eval1.json" || fail "eval zero1"
"$binary" eval --json "$work/zero3.json" >"$work/eval3.json" || fail "eval zero3"
python3 - "$work/diff.json" "$work/eval1.json" "$work/eval3.json" <<'PY' || failures=$((failures + 1))
import json, sys
diff, one, three = (json.load(open(path)) for path in sys.argv[1:4])
problems = []
if diff["inputs"][0]["field"] != "parallel.zero" or diff["inputs"][0]["baseline"] != 1 or diff["inputs"][0]["scenario"] != 3:
    problems.append("first input is not parallel.zero 1 -> 3: %r" % diff["inputs"][:1])
figures = {figure["path"]: figure for figure in diff["figures"]}
for key in ("weights_bytes", "grads_bytes", "peak_bytes"):
    figure = figures.get("memory.per_gpu." + key)
    before, after = one["memory"]["per_gpu"][key], three["memory"]["per_gpu"][key]
    if figure is None or figure["baseline"] != before or figure["scenario"] != after or abs(figure["change"] - (after - before)) > 1e-6 * abs(before):
        problems.append("memory.per_gpu.%s is not %r -> %r: %r" % (key, before, after, figure))
changed = [figure for figure in diff["figures"] if figure["changed"]]
if diff["figures_changed"] != len(changed) or diff["figures"][:len(changed)] != changed:
    problems.append("the changed figures are not listed first")
sizes = [abs(figure["relative_change"]) if figure["relative_change"] is not None else float("inf") for figure in changed]
if sizes != sorted(sizes, reverse=True):
    problems.append("the changed figures are not ordered by relative change")
for problem in problems:
    print("FAIL: zero1 vs zero3: " + problem)
sys.exit(1 if problems else 0)
PY

# Every shipped scenario against itself: no change, in each format.
for scenario in "$scenarios"/*.json; do
    name=$(basename "$scenario")
    "$binary" diff --json "$scenario" "$scenario" >"$work/self.json" 2>"$work/stderr" || fail "diff $name with itself exited $?: $(cat "$work/stderr")"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["no_change"] and not d["inputs"] and d["figures_changed"] == 0 and d["figures_compared"] > 100 else 1)' \
        "$work/self.json" || fail "$name against itself reports a change"
done
"$binary" diff --table "$scenarios/default.json" "$scenarios/default.json" | grep -q "No input differs and no figure changed" || fail "table of no change"

# The table: the input first, then the figures with their units and signed changes.
"$binary" diff --table "$work/zero1.json" "$work/zero3.json" >"$work/table.txt" || fail "diff --table"
grep -q "parallel.zero" "$work/table.txt" || fail "table lacks parallel.zero"
grep -q "memory.per_gpu.weights_bytes .* GB .* GB *-[0-9.]* GB, -[0-9.]* %" "$work/table.txt" || fail "table lacks the weights' signed change in GB: $(grep weights_bytes "$work/table.txt")"
"$binary" diff --csv "$work/zero1.json" "$work/zero3.json" >"$work/diff.csv" || fail "diff --csv"
head -1 "$work/diff.csv" | grep -q "^kind,path,baseline,scenario,change,relative_change,text" || fail "csv header"
grep -q "^input,parallel.zero,1,3" "$work/diff.csv" || fail "csv input row"

# Refusals: one line naming the file and the field, exit status 2; nothing on standard output.
expect_refusal() {
    local description="$1" pattern="$2"
    shift 2
    "$@" >"$work/stdout" 2>"$work/stderr"
    local status=$?
    if [ "$status" -ne 2 ] || [ "$(wc -l <"$work/stderr")" -ne 1 ] || ! grep -q -- "$pattern" "$work/stderr" || [ -s "$work/stdout" ]; then
        fail "$description: status $status: $(cat "$work/stderr")"
    else
        echo "ok: $description -> $(cat "$work/stderr")"
    fi
}
printf '{"parallel": {"tp": 3}}' >"$work/tp3.json"
printf '{"scenes": []}' >"$work/lesson.json"
printf 'not json' >"$work/text.json"
expect_refusal "an invalid scenario as the scenario" "tp3.json.*parallel.tp" "$binary" diff "$scenarios/default.json" "$work/tp3.json"
expect_refusal "an invalid scenario as the baseline" "tp3.json.*parallel.tp" "$binary" diff "$work/tp3.json" "$scenarios/default.json"
expect_refusal "a lesson is not a scenario" "lesson.json.*scenes" "$binary" diff "$scenarios/default.json" "$work/lesson.json"
expect_refusal "not JSON" "text.json" "$binary" diff "$work/text.json" "$scenarios/default.json"
expect_refusal "a missing file" "none.json" "$binary" diff "$work/none.json" "$scenarios/default.json"
expect_refusal "one file only" "" "$binary" diff "$scenarios/default.json"
expect_refusal "export --baseline of an invalid scenario" "tp3.json.*parallel.tp" "$binary" export --baseline "$work/tp3.json" --out "$work/out"

[ "$failures" -eq 0 ] && echo "diff: all passed"
exit "$failures"
