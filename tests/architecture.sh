#!/usr/bin/env bash
# The architecture rules of docs/architecture.md, checked on the code as built:
#   arrows one way: app -> widgets -> core, and inside core lessons -> cost -> model; core includes no ImGui and no GL;
#   a refusal reason is spelled once in core;
#   every function a core header declares at namespace scope is defined by that header's own source file.
# Usage: architecture.sh SOURCE_DIR CORE_OBJECT_DIR (CMake's CMakeFiles/shardscope_core.dir)
set -u
source_dir="$1"
object_dir="$2"
cd "$source_dir"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

forbid_includes() {  # forbid_includes DIR PATTERN WHY
    local hits
    hits=$(grep -rnE "^#include [<\"]($2)" "$1" --include='*.h' --include='*.cpp' || true)
    [ -z "$hits" ] || fail "$3:"$'\n'"$hits"
}
forbid_includes core 'imgui|GL/|GLFW/|epoxy/' "core/ includes ImGui or GL"
forbid_includes core 'widgets/|app/' "core/ includes widgets/ or app/"
forbid_includes widgets 'app/' "widgets/ includes app/"
forbid_includes core/model 'core/cost/|core/lessons/' "core/model/ includes core/cost/ or core/lessons/"
forbid_includes core/cost 'core/lessons/' "core/cost/ includes core/lessons/"
# The rooms of core/cost, in the order the step flows: each includes only the rooms before it (and core/model).
#   kernels: what one kernel, collective or schedule costs; memory: what a GPU holds; step: a layout's step put together;
#   serving: prefill, decode and replicas; report: evaluate and what it writes; search: the planner and sizing.
cost_rooms=(kernels memory step serving report search)
for ((i = 0; i < ${#cost_rooms[@]}; i++)); do
    later=$(IFS='|'; echo "${cost_rooms[*]:i+1}")
    [ -d "core/cost/${cost_rooms[i]}" ] && [ -n "$later" ] &&
        forbid_includes "core/cost/${cost_rooms[i]}" "\"core/cost/($later)/" "core/cost/${cost_rooms[i]}/ includes a later room"
done
stray=$(find core/cost -maxdepth 1 -type f)
[ -z "$stray" ] || fail "core/cost keeps its files in rooms (${cost_rooms[*]}):"$'\n'"$stray"
# Wrapped text breaks at spaces, in one place (widgets/text_wrap.h): ImGui's TextWrapped splits "10.0 QPS" after the '.'.
hits=$(grep -rn 'ImGui::TextWrapped(' widgets app --include='*.h' --include='*.cpp' || true)
[ -z "$hits" ] || fail "ImGui::TextWrapped breaks after '.' and ','; use widgets::wrapped_text:"$'\n'"$hits"

# A refusal's reason is written once (core/model/errors.h holds the shared ones): no reason literal twice in core's sources.
hits=$(grep -rohE '"(must |unknown |no |needs |is not |has no )[^"]*"' core --include='*.cpp' | sort | uniq -d || true)
[ -z "$hits" ] || fail "a refusal's reason is spelled twice in core/ (make it one function in core/model/errors.h):"$'\n'"$hits"

# Namespace-scope declarations start in column 0 in this code base: "Type name(args);" on one or more lines.
for header in $(find core -name '*.h' | sort); do
    source="${header%.h}.cpp"
    object="$object_dir/${header%.h}.cpp.o"
    declared=$(sed 's://.*$::' "$header" | tr '\n' ' ' | sed 's/;/;\n/g; s/{/{\n/g; s/}/}\n/g' |
               grep -E '^ *[A-Za-z_][A-Za-z0-9_:<>,*& ]* [*&]?[A-Za-z_][A-Za-z0-9_]*\([^(){}]*\) *(const)? *;$' |
               grep -vE '^ *(inline|constexpr|static|return|using|friend|template|typedef|explicit|virtual|[A-Za-z_]+ *=)' |
               sed -E 's/^.*[ *&]([A-Za-z_][A-Za-z0-9_]*)\(.*$/\1/' | sort -u)
    [ -n "$declared" ] || continue
    if [ ! -f "$source" ]; then
        case "$header" in core/model/embedded_assets.h) continue ;; esac  # defined by the generated embedded_assets.cpp
        fail "$header declares functions ($(echo $declared)) but $source does not exist"
        continue
    fi
    defined=$(nm -C --defined-only "$object" 2>/dev/null | sed 's/\[abi:cxx11\]//g')
    for name in $declared; do
        grep -qE "[: ]$name\(" <<<"$defined" || fail "$header declares $name, which $source does not define"
    done
done

[ "$failures" -eq 0 ] && echo "architecture: arrows one way, every core header's functions defined by its own source"
exit $((failures > 0))
