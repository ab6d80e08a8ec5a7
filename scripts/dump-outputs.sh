#!/usr/bin/env bash
# Writes every command's output for the shipped scenarios and four variants of each into DIR, so that a change meant to
# keep behaviour can be checked with `diff -r BEFORE AFTER`. Usage: scripts/dump-outputs.sh BINARY DIR
set -uo pipefail
binary="$1"
out="$2"
here="$(cd "$(dirname "$0")/.." && pwd)"
mkdir -p "$out/scenarios"
for file in "$here"/assets/scenarios/*.json; do
    name=$(basename "$file" .json)
    python3 - "$file" "$out/scenarios" "$name" <<'PY'
import json, sys
path, out, name = sys.argv[1:4]
base = json.load(open(path))
def write(suffix, edit):
    s = json.loads(json.dumps(base))
    edit(s)
    json.dump(s, open(f"{out}/{name}{suffix}.json", "w"), indent=1)
write("", lambda s: None)
def twice_batch(s):
    t = s.setdefault("train", {}); t["global_batch"] = 2 * t.get("global_batch", 512)
def quarter_gpus(s):
    c = s.setdefault("cluster", {}); c["gpus"] = max(1, c.get("gpus", 64) // 4)
    p = s.get("parallel", {}); p.pop("dp", None)
def a100_40(s):
    s.setdefault("cluster", {})["gpu"] = "a100-40gb"
def edge(s):
    t = s.setdefault("train", {}); t["embedding_and_loss_as_layers"] = not t.get("embedding_and_loss_as_layers", False)
write("-2xbatch", twice_batch); write("-quarter", quarter_gpus); write("-a100-40", a100_40); write("-edge", edge)
PY
done
for scenario in "$out"/scenarios/*.json; do
    name=$(basename "$scenario" .json)
    "$binary" eval --json "$scenario" >"$out/$name.eval.json" 2>&1; echo "rc=$?" >>"$out/$name.eval.json"
    "$binary" eval --table "$scenario" >"$out/$name.eval.txt" 2>&1
    "$binary" plan --json --top 20 "$scenario" 2>"$out/$name.plan.err" | grep -v '"search_seconds"' >"$out/$name.plan.json"
    "$binary" trace "$scenario" --out "$out/$name.trace.json" >/dev/null 2>&1
    "$binary" cost "$scenario" >"$out/$name.cost.txt" 2>&1
done
for name in default llama3-405b-16k; do
    "$binary" plan --size --json "$out/scenarios/$name.json" 2>"$out/$name.size.err" | grep -v '"search_seconds"' >"$out/$name.size.json"
done
