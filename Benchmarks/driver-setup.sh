# Sourced by the swiftc-built drivers' run.sh (store-driver, loadall-driver, writes-driver, page-json-driver) and by
# Benchmarks/build-drivers.sh after setting `root`: sets `work` to $KEEP (kept) or a temporary
# directory (removed on exit), builds there the CCycleCounter C shim that PagebenchBase imports
# (its module map and object), and defines `build_module`.
if [[ -n "${KEEP:-}" ]]; then
    work="$KEEP"
    mkdir -p "$work"
else
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
fi
shim="$root/Sources/CCycleCounter"
printf 'module CCycleCounter {\n    header "%s/include/CCycleCounter.h"\n    export *\n}\n' "$shim" > "$work/module.modulemap"
clang -O2 -c "$shim/CCycleCounter.c" -I "$shim/include" -o "$work/CCycleCounter.o"

# build_module MODULE [SOURCES_ROOT [OUT]]: the library target MODULE of SOURCES_ROOT (default: this
# tree) as OUT/libMODULE.a and OUT/MODULE.swiftmodule (OUT defaults to $work), optimised as the
# package's release build is (-O -wmo), every .swift file under Sources/MODULE, its folders too.
# -package-name: the modules share `package` declarations, as SwiftPM builds them.
# REUSE_MODULES=1 keeps a module already built in OUT (Benchmarks/build-drivers.sh builds each once).
build_module() {
    local module=$1 sources=${2:-$root} out=${3:-$work}
    mkdir -p "$out"
    [[ -n "${REUSE_MODULES:-}" && -f "$out/lib$module.a" ]] && return 0
    local files=()
    while IFS= read -r -d '' file; do files+=("$file"); done < <(find "$sources/Sources/$module" -name '*.swift' -print0 | sort -z)
    swiftc -O -wmo -parse-as-library -static -emit-library -emit-module -module-name "$module" -package-name pagebench \
        -I "$out" -I "$work" -emit-module-path "$out/$module.swiftmodule" -o "$out/lib$module.a" "${files[@]}"
}
