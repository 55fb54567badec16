# Sourced by the swiftc-built drivers' run.sh (store-driver, loadall-driver, writes-driver) after setting
# `root`: sets `work` to $KEEP (kept) or a temporary directory (removed on exit), and builds
# there the CCycleCounter C shim that PagebenchBase imports (its module map and object).
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
