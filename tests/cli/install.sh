#!/usr/bin/env bash
# `cmake --install` into a temporary prefix gives a working desktop app: run from another directory, or after the prefix
# is moved, the binary finds its assets; the desktop entry and AppStream metainfo validate; the man page and completions
# cover every command. CTest passes the build directory, app id and project version in the environment (CMakeLists.txt).
set -u
binary="$1"  # the build's binary; $2, the source directory, is not used: everything must come from the install
build_dir="${SHARDSCOPE_BUILD_DIR:?run through ctest, which sets SHARDSCOPE_BUILD_DIR}"
app_id="${SHARDSCOPE_APP_ID:?run through ctest, which sets SHARDSCOPE_APP_ID}"
project_version="${SHARDSCOPE_PROJECT_VERSION:?run through ctest, which sets SHARDSCOPE_PROJECT_VERSION}"
cmake="${CMAKE_COMMAND:-cmake}"
# The physical path: the binary reports its assets through /proc/self/exe, which resolves symbolic links.
work=$(cd "$(mktemp -d)" && pwd -P)
trap 'rm -rf "$work"' EXIT
failures=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# check DESCRIPTION COMMAND...: runs it, prints its output only when it fails.
check() {
    local description="$1"
    shift
    if "$@" >"$work/check.log" 2>&1; then
        echo "ok: $description"
    else
        fail "$description"
        sed 's/^/    /' "$work/check.log"
    fi
}

prefix="$work/prefix"
if ! "$cmake" --install "$build_dir" --prefix "$prefix" >"$work/install.log" 2>&1; then
    echo "FAIL: cmake --install $build_dir --prefix $prefix"
    cat "$work/install.log"
    exit 1
fi
installed="$prefix/bin/shardscope"
share="$prefix/share"
# Nothing below may depend on the build or source tree: run from elsewhere, with a config directory of its own.
mkdir -p "$work/elsewhere"
cd "$work/elsewhere" || exit 1
export XDG_CONFIG_HOME="$work/config"
unset SHARDSCOPE_ASSETS

# --version: the project version from CMake, and the installed asset directory, found from the binary's own location.
"$installed" --version >"$work/version" 2>&1 || fail "--version exits with $?"
version=$(sed -n 's/^shardscope \([0-9][0-9.]*\)$/\1/p' "$work/version")
[ "$version" = "$project_version" ] || fail "--version says '$(head -n 1 "$work/version")', CMake's project version is $project_version"
grep -qx "assets: $share/shardscope" "$work/version" || fail "--version names other assets than $share/shardscope: $(cat "$work/version")"
echo "ok: --version: $(tr '\n' ' ' <"$work/version")"

# eval of a scenario shipped in the installed share directory.
scenario=$(ls "$share"/shardscope/scenarios/*.json 2>/dev/null | head -n 1)
[ -n "$scenario" ] || fail "no scenarios installed in $share/shardscope/scenarios"
if [ -n "$scenario" ]; then
    check "eval $(basename "$scenario") from the installed share directory" "$installed" eval "$scenario"
    "$installed" eval "$scenario" 2>/dev/null | grep -q '"step_seconds"' || fail "eval output lacks step_seconds"
fi

# Headless export of one panel: the PNG is written where asked, in the current directory's terms.
check "export --panel stack" xvfb-run -a -s "-screen 0 1920x1080x24" "$installed" export --panel stack --out figures --size 640x360
if [ -s figures/stack.png ] && [ "$(head -c 8 figures/stack.png | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]; then
    echo "ok: figures/stack.png is a PNG of $(wc -c <figures/stack.png) bytes"
else
    fail "export wrote no PNG at $work/elsewhere/figures/stack.png"
fi

# A prefix moved elsewhere still works: the assets are found relative to the binary, not where it was installed.
mv "$prefix" "$work/moved"
grep -qx "assets: $work/moved/share/shardscope" <("$work/moved/bin/shardscope" --version) \
    && echo "ok: a moved prefix finds its own assets" || fail "a moved prefix does not find $work/moved/share/shardscope"
mv "$work/moved" "$prefix"

# Desktop integration files, each checked with the validator its consumers use.
desktop="$share/applications/$app_id.desktop"
metainfo="$share/metainfo/$app_id.metainfo.xml"
icon="$share/icons/hicolor/scalable/apps/$app_id.svg"
for tool in desktop-file-validate appstreamcli; do
    command -v "$tool" >/dev/null || fail "$tool is missing: run scripts/install-deps.sh"
done
check "desktop-file-validate $(basename "$desktop")" desktop-file-validate "$desktop"
check "appstreamcli validate --no-net $(basename "$metainfo")" appstreamcli validate --no-net "$metainfo"
grep -qx "Icon=$app_id" "$desktop" && [ -s "$icon" ] || fail "the desktop entry's icon $app_id is not installed at $icon"
grep -q '^Exec=shardscope\b' "$desktop" || fail "the desktop entry does not run shardscope"
grep -q "<launchable type=\"desktop-id\">$app_id.desktop</launchable>" "$metainfo" || fail "the metainfo does not launch $app_id.desktop"
# The newest release in the metainfo is the version the binary reports, so software centres show the right one.
newest_release=$(grep -o '<release version="[^"]*"' "$metainfo" | head -n 1 | cut -d'"' -f2)
[ "$newest_release" = "$version" ] || fail "metainfo's newest release is $newest_release, the binary says $version"

# The man page and the completions name every subcommand that --help lists.
subcommands=$("$installed" --help | awk '/^Subcommands:/ { listing = 1; next } listing && /^  [a-z]/ { print $1 }')
[ -n "$subcommands" ] || fail "--help lists no subcommands"
man_page="$share/man/man1/shardscope.1"
bash_completion="$share/bash-completion/completions/shardscope"
zsh_completion="$share/zsh/site-functions/_shardscope"
for file in "$man_page" "$bash_completion" "$zsh_completion"; do
    [ -s "$file" ] || fail "$file is not installed"
done
for subcommand in $subcommands; do
    grep -q "^\.SS $subcommand\$" "$man_page" || fail "the man page has no section for $subcommand"
    grep -qw -- "$subcommand" "$bash_completion" || fail "the bash completion does not offer $subcommand"
    grep -q -- "'$subcommand:" "$zsh_completion" || fail "the zsh completion does not offer $subcommand"
done
echo "ok: man page and completions cover: $(echo $subcommands)"
if command -v groff >/dev/null; then
    check "the man page formats without groff warnings" bash -c "groff -man -Tutf8 -ww -z '$man_page' 2>&1 | (! grep .)"
fi

# bash: completing `shardscope export --panel ` offers exactly the panels `export --help` lists.
panels=$("$installed" export --help | sed -n 's/.*--panel PANEL *Panel to render: //p' | tr -d ',')
offered=$(bash -c 'source "$1"; COMP_WORDS=(shardscope export --panel ""); COMP_CWORD=3; _shardscope; echo "${COMPREPLY[*]}"' _ "$bash_completion")
[ -n "$panels" ] && [ "$offered" = "$panels" ] && echo "ok: bash completes --panel with: $offered" \
    || fail "bash completes --panel with '$offered', export --help lists '$panels'"
check "the bash completion parses" bash -n "$bash_completion"
if command -v zsh >/dev/null; then
    check "the zsh completion parses" zsh -n "$zsh_completion"
fi

exit $((failures > 0))
