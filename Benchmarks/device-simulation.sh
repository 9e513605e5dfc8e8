#!/usr/bin/env bash
# device-simulation.sh: the delivery simulator's cost per delivery, alone, in steady state
# (every device's history full and trimming), for this tree and for a reference commit.
#
# Time per delivery on a shared VM varies by ±30 % between runs, so the headline is counted,
# not timed: valgrind's cachegrind counts instructions and simulated cache misses, which are
# the same on every run of the same binary. Each variant runs twice under cachegrind (40,000
# batches, then 40,000 + 10,000) and the difference over the 400,000 extra deliveries is the
# steady-state cost. Timings (min/p25/median of 15 runs) follow, for what they are worth.
#
# The program (device-simulation/main.swift) is built in release mode in a throwaway package
# that links PushMockSimulation, PushMockCore, PushMockJSON and CZlib from each tree's Sources.
#
# Usage:  Benchmarks/device-simulation.sh [REF]     REF: reference commit (default HEAD~1)
# Needs:  valgrind (Debian), swift; ~3 min to build both, ~5 min under cachegrind.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
ref="${1:-HEAD~1}"
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 2; }
work="$(mktemp -d "${TMPDIR:-/tmp}/pushmock-devsim.XXXXXX")"
cleanup() { git -C "$repo" worktree remove --force "$work/ref-tree" >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
git -C "$repo" worktree add --detach "$work/ref-tree" "$ref" >/dev/null 2>&1

make_package() { # name sources-dir
    local dir="$work/$1"
    mkdir -p "$dir/Sources/Bench"
    for target in PushMockCore PushMockJSON PushMockSimulation CZlib; do ln -s "$2/Sources/$target" "$dir/Sources/$target"; done
    cp "$here/device-simulation/main.swift" "$dir/Sources/Bench/main.swift"
    local simulation_deps='"PushMockCore", "PushMockJSON"' package_deps=''
    # Trees that use swift-collections' Deque need it; older ones do not.
    if grep -q DequeModule "$2/Package.swift"; then
        simulation_deps+=', .product(name: "DequeModule", package: "swift-collections")'
        package_deps='.package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0")'
    fi
    cat >"$dir/Package.swift" <<SWIFT
// swift-tools-version: 6.0
import PackageDescription
let settings: [SwiftSetting] = [
    .swiftLanguageMode(.v6), .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"), .enableUpcomingFeature("InternalImportsByDefault"),
]
let package = Package(
    name: "devsim",
    dependencies: [$package_deps],
    targets: [
        .systemLibrary(name: "CZlib"),
        .target(name: "PushMockJSON", swiftSettings: settings),
        .target(name: "PushMockCore", dependencies: ["PushMockJSON", "CZlib"], swiftSettings: settings),
        .target(name: "PushMockSimulation", dependencies: [$simulation_deps], swiftSettings: settings),
        .executableTarget(name: "Bench", dependencies: ["PushMockSimulation", "PushMockCore"], swiftSettings: settings),
    ]
)
SWIFT
    (cd "$dir" && swift build -c release --product Bench >"$work/$1.build.log" 2>&1) || { cat "$work/$1.build.log" >&2; exit 1; }
}

echo "building this tree and $ref ($(git -C "$repo" rev-parse --short "$ref"))..." >&2
make_package tree "$repo"
make_package ref "$work/ref-tree"

count() { # binary warm measure -> "instructions d1-misses ll-misses"
    valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=/dev/null "$1" "$2" "$3" 2>&1 |
        awk '/I *refs:/ { gsub(",", "", $4); i = $4 } /D1  misses:/ { gsub(",", "", $4); d = $4 } /LL misses:/ { gsub(",", "", $4); l = $4 } END { print i, d, l }'
}

declare -A per_delivery
for variant in ref tree; do
    binary="$work/$variant/.build/release/Bench"
    echo "counting $variant (two runs under cachegrind)..." >&2
    read -r i0 d0 l0 <<<"$(count "$binary" 40000 0)"
    read -r i1 d1 l1 <<<"$(count "$binary" 40000 10000)"
    per_delivery[$variant]="$(python3 -c "print(f'{($i1-$i0)/400000:.0f} {($d1-$d0)/400000:.1f} {($l1-$l0)/400000:.2f}')")"
done
echo
echo "steady state, per delivery (cachegrind; 1000 devices with full histories, batches of 40):"
printf '  %-28s %14s %12s %12s\n' variant instructions "D1 misses" "LL misses"
for variant in ref tree; do
    read -r i d l <<<"${per_delivery[$variant]}"
    name="$variant"; [[ "$variant" == ref ]] && name="$ref ($(git -C "$repo" rev-parse --short "$ref"))"
    [[ "$variant" == tree ]] && name="this tree"
    printf '  %-28s %14s %12s %12s\n' "$name" "$i" "$d" "$l"
done
read -r ri _ _ <<<"${per_delivery[ref]}"
read -r ti _ _ <<<"${per_delivery[tree]}"
python3 -c "print(f'  instructions: this tree / reference = {$ti/$ri:.2f}')"
echo
echo "timed (ns per delivery; noisy on shared machines):"
for variant in ref tree ref tree; do
    printf '  %-10s %s\n' "$variant" "$("$work/$variant/.build/release/Bench")"
done
