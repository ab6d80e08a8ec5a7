#!/usr/bin/env bash
# Tables for people, formats for scripts: eval and plan print a table on a terminal and JSON into a pipe; eval --json
# keeps every key it printed before (eval_json_keys.txt) and adds the walls and serving figures; plan --csv reads back
# as the same rows as plan --json; trace writes the trace-event format with each stage's compute equal to the report's;
# export says what it wrote; a refused number reads as typed. Needs python3 (scripts/install-deps.sh).
set -u
binary="$1"
source_dir="$2"
scenarios="$source_dir/assets/scenarios"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}
ok() { echo "ok: $*"; }

# ---- eval: JSON into a pipe, a table on a terminal (script(1) gives it one), and the old keys kept ----
"$binary" eval "$scenarios/default.json" | python3 -c 'import json, sys; json.load(sys.stdin)' 2>/dev/null \
    && ok "eval into a pipe prints JSON" || fail "eval into a pipe does not print JSON"
script -qec "'$binary' eval '$scenarios/default.json'" /dev/null >"$work/tty.txt" 2>&1
if grep -q "step time" "$work/tty.txt" && grep -q "^walls" "$work/tty.txt" && grep -q "^serving" "$work/tty.txt" && ! grep -q '"step_seconds"' "$work/tty.txt"; then
    ok "eval on a terminal prints the table, walls and serving included"
else
    fail "eval on a terminal: $(head -c 300 "$work/tty.txt")"
fi
"$binary" eval --table "$scenarios/default.json" >"$work/table.txt" && grep -q "^memory" "$work/table.txt" \
    && ok "eval --table into a pipe prints the table" || fail "eval --table"

# The fit verdict sits on the row of the peak it compares with HBM: Meta's 405B layout's textbook sum (74.9 GB) and its
# peak (81.7 GB, in the H100's 85.0 GB) are rows apart, and the verdict must read the peak's figure, not the sum's.
"$binary" eval --table "$scenarios/llama3-405b-16k.json" >"$work/table405.txt"
"$binary" eval --json "$scenarios/llama3-405b-16k.json" >"$work/eval405.json"
if python3 - "$work/table405.txt" "$work/eval405.json" <<'EOF'; then ok "eval --table: the fit verdict is on the peak row, with the JSON's peak"; else fail "eval --table fit verdict: $(grep 'per GPU' "$work/table405.txt")"; fi
import json, sys
rows = [line for line in open(sys.argv[1]) if "does not fit" in line or "fits," in line]
report = json.load(open(sys.argv[2]))
peak_gb = report["memory"]["per_gpu"]["peak_bytes"] / 1e9
assert len(rows) == 1 and "per GPU: peak" in rows[0], rows
assert f"{peak_gb:.1f} GB of" in rows[0] and report["memory"]["fits"] and "fits," in rows[0], (rows[0], peak_gb)
EOF

for scenario in default.json gpt3-175b-megatron.json llama3-405b-16k.json deepseek-v3.json; do
    "$binary" eval --json "$scenarios/$scenario" >"$work/eval.json" || fail "eval --json $scenario"
    grep "^$scenario " "$source_dir/tests/cli/eval_json_keys.txt" | cut -d' ' -f2 >"$work/old_keys.txt"
    if python3 - "$work/eval.json" "$work/old_keys.txt" <<'EOF'; then ok "eval --json $scenario: every old key, in order, plus walls and serving"; else fail "eval --json $scenario keys"; fi
import json, sys
data = json.load(open(sys.argv[1]))
old = [line.strip() for line in open(sys.argv[2]) if line.strip()]
paths = []
def walk(value, prefix):
    if isinstance(value, dict):
        for key, child in value.items():
            path = prefix + "." + key if prefix else key
            if path not in paths:
                paths.append(path)
            walk(child, path)
    elif isinstance(value, list):
        for child in value:
            walk(child, prefix + "[]")
walk(data, "")
missing = [key for key in old if key not in paths]
if missing:
    sys.exit("missing: %s" % missing[:5])
positions = [paths.index(key) for key in old]
if positions != sorted(positions):
    sys.exit("old keys out of order")
for key in ["walls.memory.fraction", "walls.time.fraction", "walls.serving.fraction", "walls.binding",
            "serving.weight_bytes", "serving.kv_cache_bytes", "serving.replica_tokens_per_s", "serving.asked_tokens_per_s",
            "serving.prefill_tokens_per_s", "serving.decode_step_seconds", "serving.max_batch", "serving.replicas", "serving.gpus",
            "serving.ttft_seconds", "serving.tpot_seconds", "serving.dollars_per_million_tokens"]:
    if key not in paths:
        sys.exit("no " + key)
for point in data["memory"]["timeline"]:  # a phase boundary names no layer: null is its value there
    if point["layer"] is None:
        del point["layer"]
if "null" in json.dumps(data) or "NaN" in json.dumps(data):
    sys.exit("null or NaN in eval --json")
EOF
done
"$binary" eval --json --table "$scenarios/default.json" >/dev/null 2>"$work/stderr"
[ $? -eq 2 ] && [ "$(wc -l <"$work/stderr")" -eq 1 ] && ok "--json with --table: exit 2, one line" || fail "--json with --table: $(cat "$work/stderr")"

# ---- plan: CSV reads back as the JSON's rows; near-duplicates folded; a table on request ----
scenario="$scenarios/gpt3-175b-megatron.json"
"$binary" plan --top 15 --json "$scenario" >"$work/plan.json" || fail "plan --json"
"$binary" plan --top 15 --csv "$scenario" >"$work/plan.csv" || fail "plan --csv"
if python3 - "$work/plan.json" "$work/plan.csv" <<'EOF'; then ok "plan --csv round-trips through a CSV reader with the rows of plan --json"; else fail "plan --csv round trip"; fi
import csv, json, sys
plan = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2], newline="")))
ranking = plan["ranking"]
if not ranking or len(rows) != len(ranking):
    sys.exit("%d CSV rows, %d JSON rows" % (len(rows), len(ranking)))
for row, entry in zip(rows, ranking):
    flat = dict(entry)
    flat.update(flat.pop("layout"))
    if set(row) != set(flat):
        sys.exit("columns differ: %s vs %s" % (sorted(row), sorted(flat)))
    for key, value in flat.items():
        text = row[key]
        if isinstance(value, bool):
            same = text == ("true" if value else "false")
        elif isinstance(value, list):
            same = [int(v) for v in text.split()] == value
        elif isinstance(value, (int, float)):
            same = float(text) == float(value)
        else:
            same = text == value
        if not same:
            sys.exit("rank %s, %s: CSV %r, JSON %r" % (entry["rank"], key, text, value))
# Folded: no two rows are the same layout but for the interleaved schedule's virtual stages.
def without_v(entry):
    layout = dict(entry["layout"])
    layout.pop("virtual_stages")
    return json.dumps(layout, sort_keys=True)
keys = [without_v(entry) for entry in ranking if entry["layout"]["schedule"] == "interleaved"]
if len(keys) != len(set(keys)):
    sys.exit("two rows differ only in virtual stages")
if "folded" not in plan:
    sys.exit("plan --json does not say what it folded")
EOF
"$binary" plan --top 5 --table "$scenario" >"$work/plan.txt"
grep -q "^rank" "$work/plan.txt" && [ "$(grep -c '^ *[0-9]' "$work/plan.txt")" -eq 5 ] \
    && ok "plan --table prints a header and 5 rows" || fail "plan --table: $(cat "$work/plan.txt")"

# ---- trace: the trace-event format, each stage's compute equal to the report's, no overlaps in a thread ----
"$binary" eval --json "$scenario" >"$work/report.json"
"$binary" trace "$scenario" --out "$work/trace.json" >"$work/trace.out" || fail "trace --out exits with $?"
grep -q "^Wrote $work/trace.json" "$work/trace.out" && ok "trace says what it wrote: $(cut -c1-120 "$work/trace.out")" || fail "trace output: $(cat "$work/trace.out")"
if python3 - "$work/trace.json" "$work/report.json" <<'EOF'; then ok "trace: traceEvents of complete events in microseconds, stage compute = report, no overlaps"; else fail "trace format"; fi
import json, sys
trace = json.load(open(sys.argv[1]))
report = json.load(open(sys.argv[2]))
events = trace["traceEvents"]
if not isinstance(events, list) or not events:
    sys.exit("no traceEvents list")
threads, compute = {}, {}
compute_tid = None
for event in events:
    if event["ph"] == "M":
        if event["name"] == "thread_name" and event["args"]["name"].startswith("compute"):
            compute_tid = event["tid"]
        continue
    if event["ph"] != "X":
        sys.exit("an event that is neither X nor M: %s" % event)
    if not (event["ts"] >= 0 and event["dur"] >= 0):
        sys.exit("negative ts or dur")
    threads.setdefault((event["pid"], event["tid"]), []).append((event["ts"], event["ts"] + event["dur"]))
for (pid, tid), spans in threads.items():
    if tid == compute_tid:
        compute[pid] = sum(end - start for start, end in spans)
    spans.sort()
    for before, after in zip(spans, spans[1:]):
        if after[0] < before[1]:
            sys.exit("overlap on pid %d tid %d at %f us" % (pid, tid, after[0]))
busiest = report["compute"]["busiest_stage"] + 1
expected_us = report["compute"]["compute_seconds"] * 1e6
if abs(compute[busiest] - expected_us) > 1e-6 * expected_us:
    sys.exit("stage %d computes %f us in the trace, %f us in the report" % (busiest, compute[busiest], expected_us))
if len(compute) != report["pipeline"]["stages"]:
    sys.exit("%d stages traced, %d in the report" % (len(compute), report["pipeline"]["stages"]))
EOF
"$binary" trace "$scenarios/default.json" | python3 -c 'import json, sys; assert json.load(sys.stdin)["traceEvents"]' 2>/dev/null \
    && ok "trace without --out writes the JSON to standard output" || fail "trace to standard output"
printf 'keep' >"$work/kept.json"
"$binary" trace "$work/missing.json" --out "$work/kept.json" >/dev/null 2>"$work/stderr"
[ $? -eq 2 ] && [ "$(wc -l <"$work/stderr")" -eq 1 ] && [ "$(cat "$work/kept.json")" = keep ] \
    && ok "trace of a missing scenario: exit 2, one line, the --out file untouched" || fail "trace of a missing scenario: $(cat "$work/stderr")"
"$binary" trace "$scenario" --out "$work/no/such/dir/trace.json" >/dev/null 2>"$work/stderr"
[ $? -eq 1 ] && [ "$(wc -l <"$work/stderr")" -eq 1 ] && [ ! -e "$work/no" ] \
    && ok "trace into a missing directory: exit 1, one line, nothing written" || fail "trace into a missing directory: $(cat "$work/stderr")"

printf 'old' >"$work/target.json"
chmod 600 "$work/target.json"
ln -s target.json "$work/link.json"
"$binary" trace "$scenario" --out "$work/link.json" >/dev/null 2>"$work/stderr"
[ -L "$work/link.json" ] && [ "$(stat -c %a "$work/target.json")" = 600 ] && grep -q traceEvents "$work/target.json" \
    && ok "trace through a link: the link stays a link, its target is replaced and keeps its mode" || fail "trace through a link: $(ls -l "$work")"
"$binary" trace "$scenario" --out /dev/null >/dev/null 2>"$work/stderr" && [ -c /dev/null ] \
    && ok "trace --out /dev/null writes to the device, which stays a device" || fail "trace --out /dev/null: $(cat "$work/stderr"); $(ls -l /dev/null)"
if [ -c /dev/full ]; then
    "$binary" trace "$scenario" --out /dev/full >/dev/null 2>"$work/stderr"
    [ $? -eq 1 ] && [ -c /dev/full ] && grep -q "cannot write /dev/full" "$work/stderr" \
        && ok "trace --out /dev/full: exit 1, the device stays a device: $(cat "$work/stderr")" || fail "trace --out /dev/full: $(cat "$work/stderr")"
    "$binary" eval "$scenario" --json >/dev/full 2>"$work/stderr"
    [ $? -eq 1 ] && [ "$(wc -l <"$work/stderr")" -eq 1 ] \
        && ok "eval onto a full disk: exit 1, one line: $(cat "$work/stderr")" || fail "eval onto /dev/full: $(cat "$work/stderr")"
fi

# ---- export says what it wrote ----
xvfb-run -a -s "-screen 0 1280x720x24" "$binary" export --panel stack --out "$work/figures" --size 640x360 >"$work/export.out" 2>&1
grep -qx "wrote $work/figures/stack.png" "$work/export.out" && [ -s "$work/figures/stack.png" ] \
    && ok "export says: $(cat "$work/export.out")" || fail "export output: $(cat "$work/export.out")"

# ---- a refused number reads as typed ----
printf '{"cluster": {"gpus": -4}}' >"$work/negative.json"
"$binary" eval "$work/negative.json" >/dev/null 2>"$work/stderr"
grep -q "got -4$" "$work/stderr" && ! grep -q -- "-4\.0" "$work/stderr" && ok "a refused integer reads as typed: $(cat "$work/stderr")" \
    || fail "refused integer: $(cat "$work/stderr")"
printf '{"train": {"seq_len": 2.5}}' >"$work/fraction.json"
"$binary" eval "$work/fraction.json" >/dev/null 2>"$work/stderr"
grep -q "got 2.5$" "$work/stderr" && ok "a refused fraction reads as typed: $(cat "$work/stderr")" || fail "refused fraction: $(cat "$work/stderr")"

# ---- memory: the step's points as CSV and JSON, the same rows, reaching eval's peak ----
for scenario in default minigpt-rtx4090; do
    "$binary" memory --csv "$scenarios/$scenario.json" >"$work/memory.csv"
    "$binary" memory --json "$scenarios/$scenario.json" >"$work/memory.json"
    "$binary" eval --json "$scenarios/$scenario.json" >"$work/memory_eval.json"
    if python3 - "$work/memory.csv" "$work/memory.json" "$work/memory_eval.json" <<'EOF'; then ok "memory $scenario: CSV rows are the JSON points, their highest is eval's peak"; else fail "memory $scenario"; fi
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
points = json.load(open(sys.argv[2]))["points"]
peak = json.load(open(sys.argv[3]))["memory"]["peak_allocated_bytes"]
assert len(rows) == len(points) > 0, (len(rows), len(points))
for row, point in zip(rows, points):
    assert row["phase"] == point["phase"] and abs(float(row["allocated_bytes"]) - point["allocated_bytes"]) <= 1
highest = max(point["allocated_bytes"] for point in points)
assert abs(highest - peak) <= 1e-6 * peak, (highest, peak)
EOF
done
"$binary" memory --stage 99 "$scenarios/default.json" >/dev/null 2>"$work/stderr"
[ $? -eq 2 ] && grep -q "stage" "$work/stderr" && ok "memory --stage past the last stage: exit 2, $(cat "$work/stderr")" || fail "memory --stage 99: $(cat "$work/stderr")"

# ---- the completions know the new command and flags (they are generated from the definitions) ----
"$binary" __generate bash >"$work/completion.bash"
for word in trace --csv --table --json; do
    grep -q -- "$word" "$work/completion.bash" || fail "the bash completion does not offer $word"
done
"$binary" __generate zsh | grep -q "'trace:" && ok "the completions offer trace, --csv, --table, --json" || fail "the zsh completion does not offer trace"

exit $((failures > 0))
