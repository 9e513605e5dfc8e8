#!/usr/bin/env bash
# sender-throughput.sh: how fast `pushmock send` pushes APNs notifications into the mock, next
# to h2load (nghttp2's load generator, the client-side reference) against the same mock in the
# same run.
#
# One run:
#   1. builds pushmock in release mode into .build-bench (skip with --skip-build);
#   2. writes the load: 1000 distinct 64-hex tokens (a CSV for the sender, a URI list for h2load)
#      and a ~250-byte alert payload (the gateway benchmark's);
#   3. for every scenario and round: starts a fresh `pushmock serve` (TLS, token auth, full
#      validation, journal with durability `written`), pinned to CPU 1 with one event-loop
#      thread, then runs h2load and the sender against it, each pinned to CPU 0, each for
#      DURATION seconds after WARMUP seconds; the order alternates between rounds;
#        1x100  1 connection  x 100 concurrent streams
#        4x100  4 connections x 100 concurrent streams each
#   4. checks that every sender notification was accepted and every h2load request got a 2xx;
#   5. prints req/s of both, the ratio sender/h2load (mean over rounds), the sender's p50/p99
#      latency, and writes Benchmarks/results/sender-latest.json;
#   6. stops everything it started, also on failure or Ctrl-C.
#
# Both clients send the same requests: POST /3/device/<token> with the body and
#   authorization: bearer <ES256 JWT>   apns-topic: dev.pushmock.sample
#   apns-push-type: alert              content-type: application/json
# (h2load adds user-agent and content-length). The sender runs the way a user runs it:
#   pushmock send apns --recipients tokens.csv --payload body.json --connections C
#                      --concurrency C*M --duration D --warmup W --json
# i.e. the full library path (typed outcomes, retry bookkeeping, the summary with percentiles).
#
# Usage:  Benchmarks/sender-throughput.sh [--skip-build] [--keep-work]
# Environment:
#   SCRATCH    SwiftPM scratch path (default: <repo>/.build-bench)
#   DURATION   measured seconds per client run (default 8)
#   WARMUP     warm-up seconds (default 1)
#   ROUNDS     rounds per scenario, alternating which client goes first (default 2)
#   SCENARIOS  subset of: 1x100 4x100 (default: both)
#   DURABILITY pushmock --durability (default written)
#   JOURNAL_DIR where the journal goes (default: the work dir)
#   RESULTS    JSON output (default: <repo>/Benchmarks/results/sender-latest.json)
#   PUSHMOCK   use this pushmock binary (implies --skip-build)
#   SERVER_CPU / CLIENT_CPU   CPUs to pin to (default 1 / 0 with >= 2 CPUs)
#   TARGET     pushmock (default: a fresh `pushmock serve` per round) or nghttpd (nghttp2's C
#              server, one worker, with pushmock's certificate; every token path an empty
#              file, so it answers 200): takes the gateway's cost out, so the ratio says
#              whether the sender keeps up with h2load as a client
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"

skip_build=0
keep_work=0
for arg in "$@"; do
    case "$arg" in
        --skip-build) skip_build=1 ;;
        --keep-work) keep_work=1 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown argument: $arg (try --help)" >&2; exit 2 ;;
    esac
done

SCRATCH="${SCRATCH:-$repo/.build-bench}"
DURATION="${DURATION:-8}"
WARMUP="${WARMUP:-1}"
ROUNDS="${ROUNDS:-2}"
SCENARIOS="${SCENARIOS:-1x100 4x100}"
DURABILITY="${DURABILITY:-written}"
TARGET="${TARGET:-pushmock}"
RESULTS="${RESULTS:-$here/results/sender-latest.json}"
[[ "$TARGET" == pushmock || "$TARGET" == nghttpd ]] || { echo "TARGET is pushmock or nghttpd" >&2; exit 2; }

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf '\033[31mFAIL: %s\033[0m\n' "$*" >&2; exit 1; }

[[ "$TARGET" == pushmock ]] || command -v nghttpd >/dev/null || { echo "nghttpd is not installed (Debian: nghttp2-server)" >&2; exit 1; }
for tool in h2load python3; do
    command -v "$tool" >/dev/null || die "$tool is not installed (Debian: apt-get install nghttp2-client python3)"
done
for scenario in $SCENARIOS; do
    case "$scenario" in 1x100|4x100) ;; *) die "unknown scenario: $scenario" ;; esac
done

server_pin=()
client_pin=()
threads=()
if [[ "$(nproc)" -ge 2 ]] && command -v taskset >/dev/null; then
    server_pin=(taskset -c "${SERVER_CPU:-1}")
    client_pin=(taskset -c "${CLIENT_CPU:-0}")
    threads=(--threads 1)
    pinning="pushmock serve on CPU ${SERVER_CPU:-1} (--threads 1); h2load and the sender on CPU ${CLIENT_CPU:-0}"
else
    pinning="none (fewer than 2 CPUs or no taskset)"
fi

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

work="$(mktemp -d "${TMPDIR:-/tmp}/pushmock-sender-bench.XXXXXX")"
journal_dir="${JOURNAL_DIR:-$work}"
mkdir -p "$journal_dir" "$work/runs"
server_pid=""

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -f "$journal_dir/journal.jsonl"
    if [[ "$keep_work" -eq 1 || "$status" -ne 0 ]]; then
        echo "work directory kept: $work" >&2
    else
        rm -rf "$work"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

json_get() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# ------------------------------------------------------------------ load
python3 - "$work" <<'PY'
import hashlib, json, sys
work = sys.argv[1]
tokens = [hashlib.sha256(f"pushmock-bench-{i}".encode()).hexdigest() for i in range(1000)]
with open(f"{work}/tokens.csv", "w") as f:
    f.write("token\n" + "\n".join(tokens) + "\n")
with open(f"{work}/tokens.txt", "w") as f:
    f.write("\n".join(tokens) + "\n")
payload = {
    "aps": {
        "alert": {"title": "Order shipped", "body": "Your order #48213 is on its way and arrives Thursday."},
        "sound": "default", "badge": 3, "thread-id": "orders",
    },
    "orderId": "48213", "pad": "",
}
compact = lambda p: json.dumps(p, separators=(",", ":"))
payload["pad"] = "x" * max(0, 250 - len(compact(payload)))
open(f"{work}/body.json", "w").write(compact(payload))
PY

start_server() {
    if [[ "$TARGET" == nghttpd ]]; then
        start_nghttpd
        return
    fi
    start_pushmock
}

# nghttpd answers a POST to an existing static file with 200 (the body is read and dropped).
start_nghttpd() {
    if [[ ! -s "$work/ready.json" ]]; then
        start_pushmock  # certificates, sample key and the ready file the sender reads them from
        stop_pushmock
        mkdir -p "$work/docroot/3/device"
        (cd "$work/docroot/3/device" && xargs touch <"$work/tokens.txt")
    fi
    port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')"
    "${server_pin[@]}" nghttpd -n 1 -d "$work/docroot" "$port" "$work/certs/server-key.pem" "$work/certs/server.pem" \
        >>"$work/nghttpd.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 100); do
        kill -0 "$server_pid" 2>/dev/null || { cat "$work/nghttpd.log" >&2; die "nghttpd exited"; }
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
        sleep 0.1
    done
    jwt="$(cd "$work" && "$pushmock" provider-token --key "$work/certs/apns-sample-key.p8")"
    sed "s|^|https://127.0.0.1:$port/3/device/|" "$work/tokens.txt" >"$work/uris.txt"
}

start_pushmock() {
    local ready="$work/ready.json"
    rm -f "$ready" "$journal_dir/journal.jsonl"
    (cd "$work" && exec "${server_pin[@]}" "$pushmock" serve --tls-port 0 --port 0 --ready-file "$ready" \
        --certs-dir "$work/certs" --journal "$journal_dir/journal.jsonl" --durability "$DURABILITY" \
        --log-level warning "${threads[@]}") >>"$work/serve.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 300); do
        kill -0 "$server_pid" 2>/dev/null || { cat "$work/serve.log" >&2; die "pushmock serve exited"; }
        [[ -s "$ready" ]] && json_get "$ready" 'd["tls"]["port"]' >/dev/null 2>&1 && break
        sleep 0.1
    done
    port="$(json_get "$ready" 'd["tls"]["port"]')"
    jwt="$(cd "$work" && "$pushmock" provider-token --key "$work/certs/apns-sample-key.p8")"
    sed "s|^|https://127.0.0.1:$port/3/device/|" "$work/tokens.txt" >"$work/uris.txt"
}

stop_server() {
    if [[ "$TARGET" == nghttpd ]]; then
        kill -TERM "$server_pid"; wait "$server_pid" 2>/dev/null || true
        server_pid=""
        return
    fi
    stop_pushmock
}

stop_pushmock() {
    kill -TERM "$server_pid"
    wait "$server_pid" || die "pushmock serve did not exit cleanly"
    server_pid=""
    rm -f "$journal_dir/journal.jsonl"
}

run_h2load() { # scenario round
    local connections="${1%x*}" streams="${1#*x}" out="$work/runs/h2load.$1.$2.txt"
    log "h2load $1 round $2"
    "${client_pin[@]}" h2load -t 1 -c "$connections" -m "$streams" -D "$DURATION" --warm-up-time "$WARMUP" \
        -i "$work/uris.txt" -d "$work/body.json" \
        -H "authorization: bearer $jwt" -H "apns-topic: dev.pushmock.sample" \
        -H "apns-push-type: alert" -H "content-type: application/json" \
        --tls13-ciphers=TLS_AES_128_GCM_SHA256 >"$out" 2>&1 </dev/null || die "h2load failed; see $out"
    grep -E '^(finished in|requests:|status codes:)' "$out" >&2
}

run_sender() { # scenario round
    local connections="${1%x*}" streams="${1#*x}" out="$work/runs/sender.$1.$2.json" target_url=()
    [[ "$TARGET" == pushmock ]] || target_url=(--url "https://127.0.0.1:$port")
    log "pushmock send $1 round $2"
    (cd "$work" && "${client_pin[@]}" "$pushmock" send apns --ready-file "$work/ready.json" \
        "${target_url[@]}" --recipients "$work/tokens.csv" --payload "$work/body.json" \
        --connections "$connections" --concurrency "$((connections * streams))" \
        --duration "$DURATION" --warmup "$WARMUP" --progress never --json) >"$out" 2>"$out.err" </dev/null \
        || die "pushmock send failed; see $out and $out.err"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); l=d["latencyMs"]; print("sent %d, accepted %d, %.0f req/s, p50 %.2f ms, p99 %.2f ms" % (d["sent"], d["accepted"], d["ratePerSecond"], l["p50"], l["p99"]))' "$out" >&2
}

[[ "$TARGET" == pushmock ]] || pinning="nghttpd -n 1 on CPU ${SERVER_CPU:-1}; h2load and the sender on CPU ${CLIENT_CPU:-0}"
log "work directory $work; target $TARGET; $pinning; $DURATION s per run after $WARMUP s warm-up; $ROUNDS rounds"
for scenario in $SCENARIOS; do
    for round in $(seq "$ROUNDS"); do
        start_server
        if (( round % 2 == 1 )); then
            run_h2load "$scenario" "$round"; run_sender "$scenario" "$round"
        else
            run_sender "$scenario" "$round"; run_h2load "$scenario" "$round"
        fi
        stop_server
    done
done

mkdir -p "$(dirname "$RESULTS")"
python3 - "$work/runs" "$RESULTS" "$SCENARIOS" "$ROUNDS" "$pinning (target $TARGET)" "$DURATION" "$WARMUP" "$DURABILITY" \
    "$("$pushmock" --version 2>/dev/null || echo unknown)" "$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
    "$(h2load --version 2>&1 | head -1)" <<'PY'
import json, re, sys, statistics, datetime
runs, out, scenarios, rounds, pinning, duration, warmup, durability, version, git, h2v = sys.argv[1:12]
rows = []
failed = False
for scenario in scenarios.split():
    h2, snd, p50, p99 = [], [], [], []
    for r in range(1, int(rounds) + 1):
        text = open(f"{runs}/h2load.{scenario}.{r}.txt").read()
        rate = float(re.search(r"finished in [\d.]+s, ([\d.]+) req/s", text).group(1))
        req = re.search(r"requests: (\d+) total, \d+ started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored", text)
        codes = re.search(r"status codes: (\d+) 2xx", text)
        if req is None or int(req.group(4)) or int(req.group(5)) or codes is None or int(codes.group(1)) != int(req.group(3)):
            print(f"h2load {scenario} round {r}: not every request succeeded", file=sys.stderr); failed = True
        h2.append(rate)
        d = json.load(open(f"{runs}/sender.{scenario}.{r}.json"))
        if d["accepted"] != d["sent"] or d["sent"] == 0:
            print(f"sender {scenario} round {r}: {d['sent'] - d['accepted']} of {d['sent']} not accepted", file=sys.stderr); failed = True
        snd.append(d["ratePerSecond"]); p50.append(d["latencyMs"]["p50"]); p99.append(d["latencyMs"]["p99"])
    rows.append({
        "scenario": scenario,
        "h2load_rps": [round(x) for x in h2], "sender_rps": [round(x) for x in snd],
        "h2load_mean": round(statistics.mean(h2)), "sender_mean": round(statistics.mean(snd)),
        "ratio": round(statistics.mean(snd) / statistics.mean(h2), 2),
        "sender_p50_ms": round(statistics.mean(p50), 2), "sender_p99_ms": round(statistics.mean(p99), 2),
    })
print()
print(f"{'scenario':<10}{'h2load req/s':>16}{'sender req/s':>16}{'ratio':>8}{'sender p50':>12}{'sender p99':>12}")
for row in rows:
    print(f"{row['scenario']:<10}{row['h2load_mean']:>16}{row['sender_mean']:>16}{row['ratio']:>8.2f}"
          f"{row['sender_p50_ms']:>10.2f}ms{row['sender_p99_ms']:>10.2f}ms")
    print(f"{'':<10}{' '.join(map(str, row['h2load_rps'])):>16}{' '.join(map(str, row['sender_rps'])):>16}   (per round)")
meta = {"pinning": pinning, "duration_s": duration, "warmup_s": warmup, "rounds": rounds, "durability": durability,
        "pushmock": version, "git": git, "h2load": h2v, "date": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
        "loadavg_at_end": open("/proc/loadavg").read().split()[:3]}
json.dump({"meta": meta, "scenarios": rows}, open(out, "w"), indent=2)
print(f"\nresults: {out}")
sys.exit(1 if failed else 0)
PY
