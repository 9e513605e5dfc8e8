#!/usr/bin/env bash
# gateway-throughput.sh: APNs-shaped HTTP/2 throughput of `pushmock serve`, next to nghttpd.
#
# It measures what a user runs: the DEFAULT `pushmock serve` - release build, default
# event-loop thread count, TLS, provider-token authentication, full validation, device
# simulation and lint on, every exchange recorded in memory and journalled (durability
# `written`). Features switched off only appear as extra "variant" rows, never the headline.
#
# One run:
#   1. builds pushmock in release mode (skip with --skip-build);
#   2. writes the load: 1000 distinct /3/device/<64 hex> paths, a ~250-byte alert payload and
#      the APNs request headers, with a provider token from `pushmock provider-token`;
#   3. for every scenario, runs h2load (one thread, pinned to CPU 0) first against nghttpd
#      (the C reference, one worker thread, the SAME certificate and key) and then against a
#      fresh `pushmock serve` with an empty journal, both pinned to SERVER_CPUS:
#        tls-4x100  TLS, 4 connections x 100 concurrent streams   (the headline)
#        tls-1x100  TLS, 1 connection  x 100 concurrent streams
#        h2c-4x100  cleartext h2 (prior knowledge), 4 x 100
#        h2c-1x100  cleartext h2, 1 x 100
#      for DURATION seconds after WARMUP seconds. The req/s (and so the ratio) come from a run
#      WITHOUT h2load's per-request log (--log-file): writing a line per request costs h2load
#      enough CPU to become the limit against nghttpd (measured 2026-11-30: nghttpd 236-249k
#      req/s with the log, h2load at 98 % CPU; 270-273k without, nghttpd at 99.5 %). p50/p99
#      come from a second, logged run of the same scenario (PERCENTILE_RUNS), whose own req/s
#      is kept in the JSON as `percentile_run_req_per_s` and not used for anything else;
#   4. latency: tls-4x100 again for both servers at HALF of nghttpd's measured tls-4x100 rate
#      (h2load --rps, one logged run each: at that rate h2load is far from busy), so p50/p99
#      are latencies rather than queueing at saturation;
#   5. variants (extra rows, pushmock only, tls-4x100): `--no-lint` and
#      `--no-device-simulation` (what each feature costs) and both together; and pushmock
#      allowed on every CPU (WIDE_CPUS), with its default event loops (one per CPU) and with
#      `--threads 1` (does it scale with cores? h2load stays on CLIENT_CPU, which pushmock
#      then shares);
#   6. checks the pushmock runs: every response 2xx, no failed/errored stream, and the journal
#      grew by at least the number of successful responses (see "Journal check" below);
#   7. prints the tables and writes them as JSON to Benchmarks/results/latest.json;
#   8. kills everything it started on exit, also on failure or Ctrl-C.
#
# Request shape (identical for both servers): POST /3/device/<token> with the body file and
#   authorization: bearer <ES256 JWT>     apns-topic: dev.pushmock.sample
#   apns-push-type: alert                 apns-priority: 10
#   apns-expiration: 0                    apns-id: <fixed UUID> (APNS_ID="" omits it)
#   content-type: application/json        content-length (added by h2load)
# h2load also sends its own `user-agent`. Every header value except :path repeats, so HPACK
# indexes them after the first request on a connection, exactly as with a real provider -
# except `authorization`: h2load's encoder (libnghttp2's, as curl's) never indexes it, so both
# servers Huffman-decode the whole JWT on every request (≈ a quarter of nghttpd's CPU here).
#
# nghttpd and POST: nghttpd answers a POST to an existing static file with 200 and the file
# (it reads and discards the request body; checked with nghttpd 1.52). The docroot therefore
# holds one EMPTY file per token path, and nghttpd answers `200`, `content-length: 0`, empty
# DATA frame with END_STREAM. No substitute method is needed: both servers receive the very
# same requests. nghttpd does no JSON parsing, no JWT check and no journal, so the ratio
# pushmock/nghttpd reads as "what fraction of a bare C HTTP/2 server's speed do we keep while
# doing the real work".
#
# Journal check: with durability `written`, pushmock writes the journal line before it sends
# the response, so every response h2load received has a line. The journal also gets lines for
# warm-up requests and for requests still in flight when h2load stopped measuring (at most
# connections x streams). h2load's `done` count covers the measuring period only. So per scenario (fresh journal):  journal lines >= succeeded (main period), and
# journal lines - (requests answered during warm-up + main) <= c x m. We cannot count warm-up
# requests from h2load's output, so the script checks the lower bound strictly and reports the
# excess (warm-up + tail) next to an estimate (warm-up seconds x measured rate).
#
# Usage:  Benchmarks/gateway-throughput.sh [--skip-build] [--keep-work]
# Environment:
#   SCRATCH      SwiftPM scratch path (default: <repo>/.build-bench)
#   DURATION     h2load -D seconds per run (default 10)
#   WARMUP       h2load --warm-up-time seconds (default 1)
#   DURABILITY   pushmock --durability: written | fsync | fsync-interval (default written)
#   SCENARIOS    space-separated subset of: tls-4x100 tls-1x100 h2c-4x100 h2c-1x100 (default: all)
#   LATENCY      1 (default) runs the half-rate latency scenario (needs tls-4x100), 0 skips it
#   LATENCY_RPS  offered rate of the latency run (default: half of nghttpd's tls-4x100 req/s)
#   LATENCY_OWN  a second latency run at this percentage of pushmock's own tls-4x100 rate (default
#                80; 0 skips it): below the gateway's saturation, which half of nghttpd's rate
#                may not be
#   PERCENTILE_RUNS  1 (default): each full-speed run gets a logged companion run for p50/p99;
#                0: none (p50/p99 shown as "-" for those rows; about 40 % faster)
#   VARIANTS     space-separated subset of: nolint nodevsim lean wide wide-threads1 threads1
#                (default: all but threads1; "" for none). nolint and nodevsim each switch one
#                feature off: the difference to the headline row is what that feature costs
#                per request. wide / wide-threads1: pushmock on WIDE_CPUS with its default
#                event loops / with one. threads1: `--threads 1` on SERVER_CPUS (since the
#                default already runs one event loop per CPU it may use, the same as the
#                headline there)
#   WIDE_CPUS    taskset CPU list for the wide variants (default: every CPU, 0-(nproc-1))
#   SERVERS      space-separated subset of: pushmock nghttpd (default: both)
#   APNS_ID      apns-id header value (default a fixed UUID; empty = header omitted)
#   RESULTS      JSON output path (default: <repo>/Benchmarks/results/latest.json)
#   PUSHMOCK     use this pushmock binary instead of building (implies --skip-build)
#   PIN          1 (default with >= 2 CPUs and taskset) pins, 0 leaves scheduling to the kernel
#   SERVER_CPUS / CLIENT_CPU  taskset CPU lists for the servers / h2load (default 1 / 0)
#   PUSHMOCK_THREADS  pushmock --threads (default: unset = pushmock's default, one per core)
#   PUSHMOCK_ARGS     extra `pushmock serve` arguments for every pushmock run (changes the
#                     headline: say so when you publish numbers taken with it)
#   JOURNAL_DIR  directory for the journal (default: the temp work dir; /dev/shm takes the disk
#                out of the picture)
#   TLS13_CIPHERS  h2load --tls13-ciphers (default TLS_AES_128_GCM_SHA256 for both servers:
#                left alone, OpenSSL-based nghttpd picks AES-256-GCM and BoringSSL-based
#                pushmock AES-128-GCM, which would not be the same work)
#   PERF_SECONDS if > 0 and `perf` exists: one more tls-4x100 run, `tls-4x100+profiled` (an
#                extra row), during which perf records pushmock (perf record -g) for that
#                many seconds; writes perf-report.txt next to RESULTS, and the profile by
#                pipeline stage in µs per request (perf-stages.py) to perf-stages.txt and
#                <RESULTS without .json>.perf-stages.json. The headline run never has a
#                profiler attached: on a VM without hardware counters perf's timer sampling
#                with call chains cost the profiled server up to a fifth of its rate.
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
DURATION="${DURATION:-10}"
WARMUP="${WARMUP:-1}"
DURABILITY="${DURABILITY:-written}"
SCENARIOS="${SCENARIOS:-tls-4x100 tls-1x100 h2c-4x100 h2c-1x100}"
LATENCY="${LATENCY:-1}"
LATENCY_RPS="${LATENCY_RPS:-}"
PERCENTILE_RUNS="${PERCENTILE_RUNS:-1}"
LATENCY_OWN="${LATENCY_OWN:-80}"
VARIANTS="${VARIANTS-nolint nodevsim lean wide wide-threads1}"
SERVERS="${SERVERS:-pushmock nghttpd}"
APNS_ID="${APNS_ID-7C3E2A1B-5D4F-4E6A-9B8C-0D1E2F3A4B5C}"
RESULTS="${RESULTS:-$here/results/latest.json}"
PERF_SECONDS="${PERF_SECONDS:-0}"
TLS13_CIPHERS="${TLS13_CIPHERS:-TLS_AES_128_GCM_SHA256}"
TOKEN_COUNT=1000

for scenario in $SCENARIOS; do
    case "$scenario" in tls-4x100|tls-1x100|h2c-4x100|h2c-1x100) ;; *) echo "unknown scenario: $scenario" >&2; exit 2 ;; esac
done
for variant in $VARIANTS; do
    case "$variant" in threads1|nolint|nodevsim|lean|wide|wide-threads1) ;; *) echo "unknown variant: $variant" >&2; exit 2 ;; esac
done
for server in $SERVERS; do
    case "$server" in pushmock|nghttpd) ;; *) echo "unknown server: $server" >&2; exit 2 ;; esac
done

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf '\033[31mFAIL: %s\033[0m\n' "$*" >&2; exit 1; }

for tool in h2load nghttpd python3; do
    command -v "$tool" >/dev/null || die "$tool is not installed (Debian: apt-get install nghttp2-client nghttp2-server python3)"
done

# ---------------------------------------------------------------- pinning
# With two or more CPUs the servers run on SERVER_CPUS and h2load on CLIENT_CPU, so server and
# load generator never compete for a core. pushmock keeps its DEFAULT thread count (one event
# loop per CPU it may run on: one on SERVER_CPUS=1), as a user runs it; PUSHMOCK_THREADS
# overrides.
ncpu="$(nproc --all)"
WIDE_CPUS="${WIDE_CPUS:-0-$((ncpu - 1))}"
server_pin=()
client_pin=()
pushmock_pin=()
pushmock_threads=()
[[ -z "${PUSHMOCK_THREADS:-}" ]] || pushmock_threads=(--threads "$PUSHMOCK_THREADS")
if [[ "${PIN:-1}" == 1 && "$ncpu" -ge 2 ]] && command -v taskset >/dev/null; then
    server_pin=(taskset -c "${SERVER_CPUS:-1}")
    client_pin=(taskset -c "${CLIENT_CPU:-0}")
    pinning="servers on CPU ${SERVER_CPUS:-1} (pushmock --threads ${PUSHMOCK_THREADS:-default: one per CPU allowed}, nghttpd -n 1), h2load on CPU ${CLIENT_CPU:-0}"
else
    pinning="none (PIN=${PIN:-1}, nproc=$ncpu): servers and h2load share the CPU(s); pushmock --threads ${PUSHMOCK_THREADS:-default: one per CPU}"
fi

# ---------------------------------------------------------------- build
if [[ -n "${PUSHMOCK:-}" ]]; then
    pushmock="$PUSHMOCK"
else
    if [[ "$skip_build" -eq 0 ]]; then
        log "building pushmock (release, scratch path $SCRATCH)"
        (cd "$repo" && swift build -c release --scratch-path "$SCRATCH" --product pushmock) >&2
    fi
    pushmock="$(cd "$repo" && swift build -c release --scratch-path "$SCRATCH" --show-bin-path)/pushmock"
fi
[[ -x "$pushmock" ]] || die "no pushmock binary at $pushmock (build it or drop --skip-build)"

# ---------------------------------------------------------------- work dir and cleanup
work="$(mktemp -d "${TMPDIR:-/tmp}/pushmock-bench.XXXXXX")"
pids=()
perf_pid=""

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    if [[ -n "$perf_pid" ]] && kill -0 "$perf_pid" 2>/dev/null; then
        kill -INT "$perf_pid" 2>/dev/null || true
        wait "$perf_pid" 2>/dev/null || true
    fi
    for pid in "${pids[@]}"; do
        if kill -0 "$pid" 2>/dev/null; then
            kill -TERM "$pid" 2>/dev/null || true
        fi
    done
    for pid in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
        wait "$pid" 2>/dev/null || true
    done
    if [[ "$keep_work" -eq 1 ]]; then
        echo "work directory kept: $work" >&2
    elif [[ "$status" -ne 0 ]]; then
        rm -f "${journal:-/nonexistent}"  # gigabytes; rerun with --keep-work to keep it
        echo "work directory kept for inspection (journal deleted): $work" >&2
    else
        rm -f "${journal:-/nonexistent}"
        rm -rf "$work"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

forget_pid() {
    local gone="$1" kept=() pid
    for pid in "${pids[@]}"; do [[ "$pid" == "$gone" ]] || kept+=("$pid"); done
    pids=("${kept[@]}")
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

wait_for_port() { # port pid
    local port="$1" pid="$2"
    for _ in $(seq 100); do
        kill -0 "$pid" 2>/dev/null || return 1
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
        sleep 0.1
    done
    return 1
}

json_get() { # file python-expression-on-d
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# ---------------------------------------------------------------- load files
log "work directory: $work"
mkdir -p "$work/certs" "$work/runs" "$work/docroot/3/device"

python3 - "$work" "$TOKEN_COUNT" <<'PY'
import hashlib, json, sys
work, count = sys.argv[1], int(sys.argv[2])
tokens = [hashlib.sha256(f"pushmock-bench-{i}".encode()).hexdigest() for i in range(count)]
assert len(set(tokens)) == count and all(len(t) == 64 for t in tokens)
with open(f"{work}/tokens.txt", "w") as f:
    f.write("\n".join(tokens) + "\n")
for t in tokens:
    open(f"{work}/docroot/3/device/{t}", "w").close()
# A realistic alert: title/body/sound/badge, a thread id, plus a custom key padded to ~250 B.
payload = {
    "aps": {
        "alert": {"title": "Order shipped", "body": "Your order #48213 is on its way and arrives Thursday."},
        "sound": "default",
        "badge": 3,
        "thread-id": "orders",
    },
    "orderId": "48213",
    "pad": "",
}
compact = lambda p: json.dumps(p, separators=(",", ":"))
payload["pad"] = "x" * max(0, 250 - len(compact(payload)))
body = compact(payload).encode()
open(f"{work}/body.json", "wb").write(body)
print(f"body: {len(body)} bytes", file=sys.stderr)
PY
body_bytes="$(wc -c <"$work/body.json")"

write_uris() { # base-url output
    sed "s|^|$1/3/device/|" "$work/tokens.txt" >"$2"
}

# ---------------------------------------------------------------- h2load runner
scenario_shape() { # name -> "scheme clients streams"
    case "$1" in
        tls-4x100) echo "tls 4 100" ;;
        tls-1x100) echo "tls 1 100" ;;
        h2c-4x100) echo "h2c 4 100" ;;
        h2c-1x100) echo "h2c 1 100" ;;
        *) die "unknown scenario $1" ;;
    esac
}

proc_cpu_s() { # pid -> user+system CPU seconds so far
    awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f\n", ($14 + $15) / hz }' "/proc/$1/stat"
}

children_cpu_s() { # -> children_cpu: user+system CPU seconds of all reaped children of this shell
    # (`times` must run in this shell, not in a $(...) subshell, to see this shell's children)
    times >"$work/times.txt"
    children_cpu="$(tail -n 1 "$work/times.txt" | awk '{ split($1, u, /[ms]/); split($2, y, /[ms]/); printf "%.2f\n", u[1]*60 + u[2] + y[1]*60 + y[2] }')"
}

# One h2load run. `run` names the row (scenario, scenario@rate or scenario+variant); its shape
# comes from `scenario`; `rps` (total offered req/s, empty = as fast as possible) becomes
# h2load --rps per connection.
run_h2load() { # server run scenario urifile jwt server-pid rps mode
    # mode: measure   the run whose req/s counts; h2load keeps no per-request log (see the
    #                 header: the log costs h2load enough CPU to cap nghttpd's rate)
    #       percentiles  a companion run with the log, for p50/p99 only (files *.pct.txt, *.tsv)
    #       logged    one run that is both (rate-limited latency runs: h2load is far from busy)
    local server="$1" run="$2" scenario="$3" uris="$4" jwt="$5" server_pid="$6" rps="${7:-}" mode="${8:-measure}"
    local clients streams _scheme
    read -r _scheme clients streams <<<"$(scenario_shape "$scenario")"
    local out="$work/runs/$server.$run"
    local log_args=()
    [[ "$mode" == measure ]] || log_args=(--log-file="$out.tsv")
    [[ "$mode" == percentiles ]] && out="$out.pct"
    local headers=(
        -H "authorization: bearer $jwt"
        -H "apns-topic: dev.pushmock.sample"
        -H "apns-push-type: alert"
        -H "apns-priority: 10"
        -H "apns-expiration: 0"
        -H "content-type: application/json"
    )
    [[ -n "$APNS_ID" ]] && headers+=(-H "apns-id: $APNS_ID")
    [[ "$_scheme" == tls && -n "$TLS13_CIPHERS" ]] && headers+=(--tls13-ciphers="$TLS13_CIPHERS")
    local rate=()
    [[ -z "$rps" ]] || rate=(--rps "$(( (rps + clients - 1) / clients ))")
    log "$server $run: h2load -c $clients -m $streams ${rate[*]} -D $DURATION --warm-up-time $WARMUP ${log_args[*]:+(per-request log: $mode)}"
    local status=0 server_cpu0 client_cpu0 t0
    server_cpu0="$(proc_cpu_s "$server_pid")"
    children_cpu_s
    client_cpu0="$children_cpu"
    t0="$(date +%s.%N)"
    # In the background + `wait` so that Ctrl-C/SIGTERM reach the trap at once.
    "${client_pin[@]}" h2load -t 1 -c "$clients" -m "$streams" "${rate[@]}" \
        -D "$DURATION" --warm-up-time "$WARMUP" \
        -i "$uris" -d "$work/body.json" "${headers[@]}" \
        "${log_args[@]}" >"$out.txt" 2>&1 </dev/null &
    local h2load_pid=$!
    pids+=("$h2load_pid")
    wait "$h2load_pid" || status=$?
    forget_pid "$h2load_pid"
    # CPU use over the whole h2load run (warm-up included): is the server saturated, or h2load?
    children_cpu_s
    python3 - "$t0" "$(date +%s.%N)" "$server_cpu0" "$(proc_cpu_s "$server_pid")" \
        "$client_cpu0" "$children_cpu" "$out.cpu.json" <<'PY'
import json, sys
t0, t1, s0, s1, c0, c1 = map(float, sys.argv[1:7])
wall, server, client = t1 - t0, s1 - s0, c1 - c0
json.dump({"wall_s": round(wall, 2), "server_cpu_s": round(server, 2), "h2load_cpu_s": round(client, 2),
           "server_cpu_pct": round(100 * server / wall, 1), "h2load_cpu_pct": round(100 * client / wall, 1)},
          open(sys.argv[7], "w"))
PY
    grep -E '^(finished in|requests:|status codes:|TLS Protocol|Cipher|Application protocol)' "$out.txt" >&2 || true
    [[ "$status" -eq 0 ]] || die "h2load exited with $status against $server ($run); see $out.txt"
    [[ "$mode" == percentiles ]] && return 0
    printf '{"run":"%s","scenario":"%s","kind":"%s","rps":"%s","args":"%s"}\n' "$run" "$scenario" \
        "$kind" "$rps" "$extra_desc" >>"$work/plan.$server.jsonl"
}

scheme_of() { local s; read -r s _ <<<"$(scenario_shape "$1")"; echo "$s"; }

# ---------------------------------------------------------------- pushmock
# A fresh pushmock (and journal) per run, like nghttpd below: results do not depend on run
# order, and the previous run's journal is deleted before the next one starts, so its dirty
# pages are dropped instead of being written back (30 s later, on some CPU) in the middle of
# the next measurement. The certificates directory is shared, so every pushmock process and
# nghttpd serve the same certificate and key, and one JWT serves all runs.
pushmock_version="$("$pushmock" --version 2>/dev/null || echo unknown)"
journal="${JOURNAL_DIR:-$work}/journal.jsonl"
[[ -z "${JOURNAL_DIR:-}" ]] || mkdir -p "$JOURNAL_DIR"
pushmock_pid=""

start_pushmock() { # extra serve args... -> sets pushmock_pid tls_port h2c_port
    local ready="$work/ready.json"
    rm -f "$ready" "$journal"
    # shellcheck disable=SC2086 # PUSHMOCK_ARGS is a list of words
    local pin=("${server_pin[@]}")
    [[ ${#pushmock_pin[@]} -gt 0 ]] && pin=("${pushmock_pin[@]}")
    "${pin[@]}" "$pushmock" serve --tls-port 0 --port 0 \
        --ready-file "$ready" --certs-dir "$work/certs" \
        --journal "$journal" --durability "$DURABILITY" --log-level warning "${pushmock_threads[@]}" \
        ${PUSHMOCK_ARGS:-} "$@" >>"$work/pushmock.log" 2>&1 &
    pushmock_pid=$!
    pids+=("$pushmock_pid")
    for _ in $(seq 300); do
        kill -0 "$pushmock_pid" 2>/dev/null || { cat "$work/pushmock.log" >&2; die "pushmock serve exited before it was ready"; }
        [[ -s "$ready" ]] && json_get "$ready" 'd["cleartext"]["port"]' >/dev/null 2>&1 && break
        sleep 0.1
    done
    [[ -s "$ready" ]] || die "pushmock did not write $ready within 30 s"
    tls_port="$(json_get "$ready" 'd["tls"]["port"]')"
    h2c_port="$(json_get "$ready" 'd["cleartext"]["port"]')"
    key_path="$(json_get "$ready" 'd["apnsSampleKey"]["path"]')"
    local topic
    topic="$(json_get "$ready" 'd["apnsSampleKey"]["topic"]')"
    [[ "$topic" == "dev.pushmock.sample" ]] || die "unexpected sample topic $topic"
}

stop_pushmock() { # SIGTERM must drain and exit 0
    kill -TERM "$pushmock_pid"
    local code=0
    wait "$pushmock_pid" || code=$?
    forget_pid "$pushmock_pid"
    [[ "$code" -eq 0 ]] || die "pushmock exited with $code on SIGTERM; see $work/pushmock.log"
    pushmock_pid=""
}

# Certificates, sample key and JWT (also needed when only nghttpd runs).
start_pushmock
jwt="$("$pushmock" provider-token --key "$key_path")"
[[ "$jwt" == *.*.* ]] || die "provider-token did not print a JWT: $jwt"
log "pushmock $pushmock_version ready ($pinning; durability $DURABILITY): $(ls /proc/"$pushmock_pid"/task | wc -l) threads"
stop_pushmock

journal_json="$work/journal-check.jsonl"
: >"$journal_json"
kind=headline
extra_desc=""

pushmock_uris() { # scheme run -> the URI file for the running pushmock
    if [[ "$1" == tls ]]; then
        write_uris "https://127.0.0.1:$tls_port" "$work/uris.pushmock.$2"
    else
        write_uris "http://127.0.0.1:$h2c_port" "$work/uris.pushmock.$2"
    fi
}

run_pushmock() { # run scenario rps [extra serve args...]
    local run="$1" scenario="$2" rps="$3" scheme clients streams mode=measure
    shift 3
    [[ -n "$rps" ]] && mode=logged
    read -r scheme clients streams <<<"$(scenario_shape "$scenario")"
    start_pushmock "$@"
    pushmock_uris "$scheme" "$run"
    log "pushmock serve $* (pid $pushmock_pid, $(ls /proc/"$pushmock_pid"/task | wc -l) threads), tls :$tls_port, h2c :$h2c_port"
    if [[ "$run" == tls-4x100+profiled ]]; then
        ( sleep "$((WARMUP + 2))"; exec "${client_pin[@]}" perf record -F 999 -g -o "$work/perf.data" \
            -p "$pushmock_pid" -- sleep "$PERF_SECONDS" ) \
            >"$work/perf.log" 2>&1 &
        perf_pid=$!
    fi
    run_h2load pushmock "$run" "$scenario" "$work/uris.pushmock.$run" "$jwt" "$pushmock_pid" "$rps" "$mode"
    if [[ -n "$perf_pid" ]]; then wait "$perf_pid" || true; perf_pid=""; fi
    kill -0 "$pushmock_pid" 2>/dev/null || die "pushmock died during $run; see $work/pushmock.log"
    stop_pushmock
    journal_lines="$(wc -l <"$journal")"
    journal_bytes="$(stat -c %s "$journal")"
    rm -f "$journal"
    printf '{"scenario":"%s","lines":%d,"bytes":%d}\n' "$run" \
        "$journal_lines" "$journal_bytes" >>"$journal_json"
    # Fails loudly on non-2xx, failed/errored streams or a journal shorter than the responses.
    local log_arg=()
    [[ "$mode" == logged ]] && log_arg=(--log "$work/runs/pushmock.$run.tsv")
    python3 "$here/summarize.py" check --run "$work/runs/pushmock.$run.txt" \
        "${log_arg[@]}" --journal-lines "$journal_lines" \
        --journal-bytes "$journal_bytes" --warmup "$WARMUP" --concurrency "$((clients * streams))" \
        || die "pushmock $run failed verification (outputs in $work/runs)"
    if [[ "$mode" == measure && "$PERCENTILE_RUNS" == 1 && "$run" != tls-4x100+profiled ]]; then
        # The companion run for p50/p99, on a fresh pushmock of the same configuration.
        start_pushmock "$@"
        pushmock_uris "$scheme" "$run"
        run_h2load pushmock "$run" "$scenario" "$work/uris.pushmock.$run" "$jwt" "$pushmock_pid" "" percentiles
        kill -0 "$pushmock_pid" 2>/dev/null || die "pushmock died during $run (percentiles); see $work/pushmock.log"
        stop_pushmock
        rm -f "$journal"
        python3 "$here/summarize.py" check --run "$work/runs/pushmock.$run.pct.txt" --log "$work/runs/pushmock.$run.tsv" \
            || die "pushmock $run (percentiles) failed verification (outputs in $work/runs)"
    fi
}

# ---------------------------------------------------------------- nghttpd
start_nghttpd() { # scheme -> sets ng_port ng_pid
    ng_port="$(free_port)"
    local args=(-n 1 -d "$work/docroot")
    if [[ "$1" == h2c ]]; then
        "${server_pin[@]}" nghttpd "${args[@]}" --no-tls "$ng_port" >"$work/nghttpd.$1.log" 2>&1 &
    else
        "${server_pin[@]}" nghttpd "${args[@]}" "$ng_port" "$work/certs/server-key.pem" "$work/certs/server.pem" \
            >"$work/nghttpd.$1.log" 2>&1 &
    fi
    ng_pid=$!
    pids+=("$ng_pid")
    wait_for_port "$ng_port" "$ng_pid" || { cat "$work/nghttpd.$1.log" >&2; die "nghttpd ($1) did not start"; }
}

run_nghttpd() { # run scenario rps
    local run="$1" scenario="$2" rps="$3" scheme base
    scheme="$(scheme_of "$scenario")"
    start_nghttpd "$scheme"
    log "nghttpd ($scheme) on :$ng_port, pid $ng_pid"
    if [[ "$scheme" == tls ]]; then base="https://127.0.0.1:$ng_port"; else base="http://127.0.0.1:$ng_port"; fi
    write_uris "$base" "$work/uris.nghttpd.$run"
    local mode=measure log_arg=()
    [[ -n "$rps" ]] && mode=logged && log_arg=(--log "$work/runs/nghttpd.$run.tsv")
    run_h2load nghttpd "$run" "$scenario" "$work/uris.nghttpd.$run" "$jwt" "$ng_pid" "$rps" "$mode"
    kill -0 "$ng_pid" 2>/dev/null || die "nghttpd died during $run"
    python3 "$here/summarize.py" check --run "$work/runs/nghttpd.$run.txt" "${log_arg[@]}" \
        || die "nghttpd $run did not answer 2xx (outputs in $work/runs)"
    if [[ "$mode" == measure && "$PERCENTILE_RUNS" == 1 ]]; then
        run_h2load nghttpd "$run" "$scenario" "$work/uris.nghttpd.$run" "$jwt" "$ng_pid" "" percentiles
        kill -0 "$ng_pid" 2>/dev/null || die "nghttpd died during $run (percentiles)"
        python3 "$here/summarize.py" check --run "$work/runs/nghttpd.$run.pct.txt" --log "$work/runs/nghttpd.$run.tsv" \
            || die "nghttpd $run (percentiles) did not answer 2xx (outputs in $work/runs)"
    fi
    kill -TERM "$ng_pid"; wait "$ng_pid" 2>/dev/null || true; forget_pid "$ng_pid"
}

has_server() { [[ " $SERVERS " == *" $1 "* ]]; }

# ---------------------------------------------------------------- the runs
# Per scenario nghttpd first, then pushmock: the two figures of a row are taken a minute apart
# at most, so slow drifts of a shared machine move both.
for scenario in $SCENARIOS; do
    has_server nghttpd && run_nghttpd "$scenario" "$scenario" ""
    has_server pushmock && run_pushmock "$scenario" "$scenario" ""
done

# Latency at half of nghttpd's rate: below saturation for nghttpd, and the rate the goal
# (p99 < 5 ms) is stated at.
if [[ "$LATENCY" == 1 ]]; then
    kind=latency
    rps="$LATENCY_RPS"
    if [[ -z "$rps" && -f "$work/runs/nghttpd.tls-4x100.txt" ]]; then
        rps="$(python3 - "$work/runs/nghttpd.tls-4x100.txt" <<'PY'
import re, sys
m = re.search(r"^finished in [\d.]+\w+, ([\d.]+) req/s", open(sys.argv[1]).read(), re.M)
print(int(float(m.group(1)) / 2))
PY
)"
    fi
    if [[ -z "$rps" ]]; then
        log "latency run skipped: set LATENCY_RPS or include tls-4x100 and nghttpd"
    else
        has_server nghttpd && run_nghttpd "tls-4x100@$rps" tls-4x100 "$rps"
        has_server pushmock && run_pushmock "tls-4x100@$rps" tls-4x100 "$rps"
    fi
    # And below the gateway's own saturation: at LATENCY_OWN % of pushmock's tls-4x100 rate
    # (when half of nghttpd's rate is more than pushmock answers, the run above measures
    # queueing, not latency).
    if [[ "$LATENCY_OWN" -gt 0 && -f "$work/runs/pushmock.tls-4x100.txt" ]]; then
        own="$(python3 - "$work/runs/pushmock.tls-4x100.txt" "$LATENCY_OWN" <<'PY'
import re, sys
m = re.search(r"^finished in [\d.]+\w+, ([\d.]+) req/s", open(sys.argv[1]).read(), re.M)
print(int(float(m.group(1)) * int(sys.argv[2]) / 100))
PY
)"
        if [[ -n "$own" && "$own" != "$rps" ]]; then
            has_server nghttpd && run_nghttpd "tls-4x100@$own" tls-4x100 "$own"
            has_server pushmock && run_pushmock "tls-4x100@$own" tls-4x100 "$own"
        fi
    fi
fi

# Variants: pushmock with something changed, as extra rows next to the default.
if has_server pushmock; then
    kind=variant
    for variant in $VARIANTS; do
        pushmock_pin=()
        case "$variant" in
            wide) extra=(); pushmock_pin=(taskset -c "$WIDE_CPUS") ;;
            wide-threads1) extra=(--threads 1); pushmock_pin=(taskset -c "$WIDE_CPUS") ;;
            threads1) extra=(--threads 1) ;;
            nolint) extra=(--no-lint) ;;
            nodevsim) extra=(--no-device-simulation) ;;
            lean) extra=(--no-lint --no-device-simulation) ;;
        esac
        extra_desc="${extra[*]}"
        [[ ${#pushmock_pin[@]} -gt 0 ]] && extra_desc="(CPUs $WIDE_CPUS) $extra_desc"
        run_pushmock "tls-4x100+$variant" tls-4x100 "" "${extra[@]}"
    done
    pushmock_pin=()
    extra_desc=""
    if [[ "$PERF_SECONDS" -gt 0 ]] && command -v perf >/dev/null; then
        extra_desc="(perf record -g attached)"
        run_pushmock "tls-4x100+profiled" tls-4x100 ""
        extra_desc=""
    fi
fi

if [[ -f "$work/perf.data" ]]; then
    report_txt="$(dirname "$RESULTS")/perf-report.txt"
    mkdir -p "$(dirname "$report_txt")"
    {
        echo "# perf record -F 999 -g, ${PERF_SECONDS}s of pushmock during tls-4x100+profiled (default serve)"
        echo "# --- by shared object"
        perf report -i "$work/perf.data" --stdio --no-children --sort dso -g none 2>/dev/null | grep -E '^ +[0-9]'
        echo "# --- self time by symbol (top 60)"
        perf report -i "$work/perf.data" --stdio --no-children --sort symbol -g none 2>/dev/null \
            | grep -E '^ +[0-9]' | sed -E 's/ +$//' | cut -c1-200 | head -60
        echo "# --- inclusive time (children) by symbol (top 100)"
        perf report -i "$work/perf.data" --stdio --children --sort symbol -g none 2>/dev/null \
            | grep -E '^ +[0-9]' | sed -E 's/ +$//' | cut -c1-220 | head -100
    } >"$report_txt" || true
    log "perf report: $report_txt"
fi

# ---------------------------------------------------------------- report
git_rev="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ -n "$(git -C "$repo" status --porcelain 2>/dev/null | head -1)" ]]; then git_rev="$git_rev (dirty)"; fi
mkdir -p "$(dirname "$RESULTS")"
cat "$work"/plan.*.jsonl >"$work/plan.jsonl" 2>/dev/null || true
python3 "$here/summarize.py" report --runs "$work/runs" --journal "$journal_json" --plan "$work/plan.jsonl" \
    --out "$RESULTS" \
    --meta "nproc=$ncpu" \
    --meta "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')" \
    --meta "kernel=$(uname -sr)" \
    --meta "pinning=$pinning" \
    --meta "load=$(cut -d' ' -f1-3 /proc/loadavg) (1/5/15 min load average at the end; $ncpu CPUs)" \
    --meta "pushmock_args=${PUSHMOCK_ARGS:-(none: defaults)}" \
    --meta "pushmock=$pushmock_version" \
    --meta "git=$git_rev" \
    --meta "swift=$(swift --version 2>/dev/null | head -1 || echo unknown)" \
    --meta "h2load=$(h2load --version 2>&1 | head -1)" \
    --meta "nghttpd=$(nghttpd --version 2>&1 | head -1)" \
    --meta "openssl=$(openssl version 2>/dev/null || echo unknown)" \
    --meta "durability=$DURABILITY" \
    --meta "journal_dir=${JOURNAL_DIR:-(temp work dir, $(df -T "$work" | awk 'NR==2{print $2}'))}" \
    --meta "tls13_ciphers=${TLS13_CIPHERS:-(h2load default)}" \
    --meta "duration_s=$DURATION" \
    --meta "warmup_s=$WARMUP" \
    --meta "body_bytes=$body_bytes" \
    --meta "tokens=$TOKEN_COUNT" \
    --meta "apns_id=${APNS_ID:-(omitted)}" \
    --meta "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"

# The profile by pipeline stage, in µs per request (issue #12's budgets are per request).
if [[ -f "$work/perf.data" ]]; then
    # The µs column comes from the profiled window itself (samples over the requests answered
    # while perf recorded, at the measured rate): the whole run's CPU per request includes
    # the warm-up, which a long WARMUP makes cheaper per request than the steady state.
    read -r us_per_request window_requests < <(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
for row in d["scenarios"]:
    if row["scenario"] == "tls-4x100+profiled":
        p = row["pushmock"]
        print(p.get("server_cpu_us_per_request", "") or "-", (p.get("req_per_s") or 0) * float(sys.argv[2])); break' \
        "$RESULTS" "$PERF_SECONDS" 2>/dev/null || true)
    stages_txt="$(dirname "$RESULTS")/perf-stages.txt"
    stage_args=(--json "${RESULTS%.json}.perf-stages.json" --frequency 999)
    [[ -n "$us_per_request" && "$us_per_request" != "-" ]] && stage_args+=(--us-per-request "$us_per_request")
    [[ -n "$window_requests" && "$window_requests" != "0.0" ]] && stage_args+=(--window-requests "$window_requests")
    ((PERF_SECONDS + 2 > DURATION)) && log "PERF_SECONDS + 2 > DURATION: perf recorded past the measured period, so the profile's µs per request is an estimate"
    if python3 "$here/perf-stages.py" "$work/perf.data" "${stage_args[@]}" >"$stages_txt"; then
        echo
        echo "profile of tls-4x100+profiled by stage (perf, ${PERF_SECONDS} s; $stages_txt):"
        cat "$stages_txt"
    else
        log "perf-stages.py failed; the plain report is $report_txt"
    fi
fi
