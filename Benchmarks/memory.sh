#!/usr/bin/env bash
# memory.sh: what the default `pushmock serve` costs in memory and start-up time.
#
#   1. time to ready: starts `pushmock serve` (default options, free ports, a fresh journal)
#      READY_RUNS times and measures the wall time from exec to the --ready-file being written
#      (the listeners are bound and the certificates loaded by then); the first start, which
#      also generates the local CA, server certificate and sample credentials, is reported
#      separately as the cold start. Goal: < 0.5 s.
#   2. memory: starts one default `pushmock serve` (default --memory-capacity 100000 and
#      --memory-bytes, journal on) and sends PUSHES APNs pushes with h2load (h2c, 4
#      connections x 100 streams; the gateway benchmark's 250-byte alert and headers), printing
#      the server's RSS at checkpoints, the peak (VmHWM), the records kept in memory and the
#      RSS growth per kept record. Goal: < 1 GiB RSS after 1,000,000 pushes.
#
# Usage:  Benchmarks/memory.sh [--skip-build]
# Environment:
#   SCRATCH       SwiftPM scratch path (default: <repo>/.build-bench)
#   PUSHMOCK      use this pushmock binary (implies --skip-build)
#   PUSHES        pushes to send (default 1000000)
#   CHECKPOINTS   cumulative push counts at which RSS is printed (default "100000 250000 500000")
#   READY_RUNS    warm starts to time (default 10)
#   JOURNAL_DIR   where the journal goes (default: the temp work dir; about 1.6 kB per push)
#   PUSHMOCK_ARGS extra `pushmock serve` arguments (e.g. "--memory-capacity 1000")
#   RESULTS       JSON output (default: <repo>/Benchmarks/results/memory-latest.json)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"

skip_build=0
for arg in "$@"; do
    case "$arg" in
        --skip-build) skip_build=1 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown argument: $arg (try --help)" >&2; exit 2 ;;
    esac
done

SCRATCH="${SCRATCH:-$repo/.build-bench}"
PUSHES="${PUSHES:-1000000}"
CHECKPOINTS="${CHECKPOINTS:-100000 250000 500000}"
READY_RUNS="${READY_RUNS:-10}"
RESULTS="${RESULTS:-$here/results/memory-latest.json}"

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf '\033[31mFAIL: %s\033[0m\n' "$*" >&2; exit 1; }

for tool in h2load curl python3; do
    command -v "$tool" >/dev/null || die "$tool is not installed (Debian: apt-get install nghttp2-client curl python3)"
done

if [[ -n "${PUSHMOCK:-}" ]]; then
    pushmock="$PUSHMOCK"
else
    if [[ "$skip_build" -eq 0 ]]; then
        log "building pushmock (release, scratch path $SCRATCH)"
        (cd "$repo" && swift build -c release --scratch-path "$SCRATCH" --product pushmock) >&2
    fi
    pushmock="$(cd "$repo" && swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/pushmock"
fi
[[ -x "$pushmock" ]] || die "no pushmock binary at $pushmock"

work="$(mktemp -d "${TMPDIR:-/tmp}/pushmock-memory.XXXXXX")"
journal_dir="${JOURNAL_DIR:-$work}"
mkdir -p "$journal_dir"
server_pid=""
cleanup() {
    local status=$?
    if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -f "$journal_dir/journal.jsonl"
    rm -rf "$work"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- 1. time to ready
log "time to ready: 1 cold start (generates certificates) + $READY_RUNS warm starts"
# shellcheck disable=SC2086 # PUSHMOCK_ARGS is a list of words
python3 - "$pushmock" "$work" "$READY_RUNS" ${PUSHMOCK_ARGS:-} >"$work/ready.json" <<'PY'
import json, os, signal, subprocess, sys, time
pushmock, work, runs, extra = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]

def start_once(index):
    ready = f"{work}/ready-{index}.json"
    args = [pushmock, "serve", "--tls-port", "0", "--port", "0", "--certs-dir", f"{work}/certs",
            "--journal", f"{work}/ready-journal.jsonl", "--ready-file", ready, "--log-level", "warning", *extra]
    t0 = time.perf_counter()
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while True:
        if os.path.exists(ready) and os.path.getsize(ready) > 0:
            try:
                json.load(open(ready))
                break
            except ValueError:
                pass  # being written
        if process.poll() is not None:
            sys.exit(f"pushmock serve exited with {process.returncode} before it was ready")
        if time.perf_counter() - t0 > 60:
            process.kill()
            sys.exit("pushmock serve not ready within 60 s")
        time.sleep(0.001)
    elapsed = time.perf_counter() - t0
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=30)
    return elapsed

cold = start_once(0)
warm = sorted(start_once(i + 1) for i in range(runs))
json.dump({"cold_s": round(cold, 4), "warm_s": [round(w, 4) for w in warm],
           "warm_median_s": round(warm[len(warm) // 2], 4), "warm_max_s": round(warm[-1], 4)}, sys.stdout)
PY
rm -f "$work/ready-journal.jsonl"

# ---------------------------------------------------------------- 2. memory
log "memory: $PUSHES pushes into one default pushmock serve"
ready="$work/ready-mem.json"
# shellcheck disable=SC2086
"$pushmock" serve --tls-port 0 --port 0 --certs-dir "$work/certs" --journal "$journal_dir/journal.jsonl" \
    --ready-file "$ready" --log-level warning ${PUSHMOCK_ARGS:-} >"$work/serve.log" 2>&1 &
server_pid=$!
for _ in $(seq 300); do [[ -s "$ready" ]] && break; sleep 0.1; done
[[ -s "$ready" ]] || die "pushmock serve not ready"
port="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cleartext"]["port"])' "$ready")"
key="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["apnsSampleKey"]["path"])' "$ready")"
jwt="$("$pushmock" provider-token --key "$key")"

python3 - "$work" "$port" <<'PY'
import hashlib, json, sys
work, port = sys.argv[1], sys.argv[2]
with open(f"{work}/uris.txt", "w") as f:
    for i in range(1000):
        f.write(f"http://127.0.0.1:{port}/3/device/{hashlib.sha256(f'pushmock-bench-{i}'.encode()).hexdigest()}\n")
payload = {"aps": {"alert": {"title": "Order shipped", "body": "Your order #48213 is on its way and arrives Thursday."},
                   "sound": "default", "badge": 3, "thread-id": "orders"}, "orderId": "48213", "pad": ""}
compact = lambda p: json.dumps(p, separators=(",", ":"))
payload["pad"] = "x" * max(0, 250 - len(compact(payload)))
open(f"{work}/body.json", "wb").write(compact(payload).encode())
PY

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$server_pid/status"; }
hwm_kib() { awk '/^VmHWM:/ { print $2 }' "/proc/$server_pid/status"; }
kept() {
    curl -sf "http://127.0.0.1:$port/_pushmock/recordings?limit=1" \
        | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d.get("total", d.get("count")))'
}

idle_rss="$(rss_kib)"
: >"$work/checkpoints.jsonl"
printf '{"pushes":0,"rss_kib":%d,"kept":0}\n' "$idle_rss" >>"$work/checkpoints.jsonl"
sent=0
for target in $CHECKPOINTS "$PUSHES"; do
    (( target > sent && target <= PUSHES )) || continue
    count=$((target - sent))
    h2load -t 1 -c 4 -m 100 -n "$count" -i "$work/uris.txt" -d "$work/body.json" \
        -H "authorization: bearer $jwt" -H "apns-topic: dev.pushmock.sample" -H "apns-push-type: alert" \
        -H "apns-priority: 10" -H "content-type: application/json" >"$work/h2load.txt" 2>&1 \
        || { cat "$work/h2load.txt" >&2; die "h2load failed"; }
    grep -q "status codes: $count 2xx" "$work/h2load.txt" || { grep -E '^(requests|status codes)' "$work/h2load.txt" >&2; die "not every push was accepted"; }
    sent=$target
    printf '{"pushes":%d,"rss_kib":%d,"kept":%d}\n' "$sent" "$(rss_kib)" "$(kept)" >>"$work/checkpoints.jsonl"
    log "$sent pushes: RSS $(( $(rss_kib) / 1024 )) MiB"
done
peak="$(hwm_kib)"
kill -TERM "$server_pid"; wait "$server_pid" || die "pushmock serve did not exit cleanly"
server_pid=""

mkdir -p "$(dirname "$RESULTS")"
python3 - "$work/ready.json" "$work/checkpoints.jsonl" "$peak" "$RESULTS" \
    "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')" "$(nproc)" \
    "$(cut -d' ' -f1-3 /proc/loadavg)" "$("$pushmock" --version 2>/dev/null || echo unknown)" \
    "${PUSHMOCK_ARGS:-(defaults)}" <<'PY'
import json, sys, time
ready = json.load(open(sys.argv[1]))
points = [json.loads(line) for line in open(sys.argv[2]) if line.strip()]
peak_kib, out, cpu, nproc, load, version, args = int(sys.argv[3]), *sys.argv[4:]
idle, last = points[0], points[-1]
per_record = (last["rss_kib"] - idle["rss_kib"]) * 1024 / last["kept"] if last["kept"] else None
result = {"benchmark": "memory", "time_to_ready": ready, "checkpoints": points, "peak_rss_kib": peak_kib,
          "bytes_per_kept_record": round(per_record) if per_record else None,
          "machine": {"cpu": cpu, "nproc": nproc, "load": load, "pushmock": version, "pushmock_args": args,
                      "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}}
json.dump(result, open(out, "w"), indent=2)
print()
print(f"time to ready: cold {ready['cold_s'] * 1000:.0f} ms (certificates generated); "
      f"warm median {ready['warm_median_s'] * 1000:.0f} ms, max {ready['warm_max_s'] * 1000:.0f} ms "
      f"over {len(ready['warm_s'])} starts (goal < 500 ms)")
print()
print(f"{'pushes':>10} | {'RSS MiB':>8} | {'kept in memory':>14}")
for p in points:
    print(f"{p['pushes']:>10,} | {p['rss_kib'] / 1024:>8.1f} | {p['kept']:>14,}")
print()
print(f"peak RSS (VmHWM): {peak_kib / 1024:.1f} MiB (goal < 1024 MiB)")
if per_record:
    print(f"RSS growth per kept record: {per_record:,.0f} bytes ((last RSS - idle RSS) / kept)")
print(f"machine: {cpu}, {nproc} CPUs, load {load}; pushmock {version}; args {args}")
print(f"results: {out}")
PY
