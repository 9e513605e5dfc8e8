#!/usr/bin/env bash
# soak.sh: a long mixed run of the release `pushmock serve` at 80 % of its measured maximum,
# reporting RSS, open file descriptors and p99 latency every minute, and a verdict: flat or not.
#
# One run:
#   1. builds pushmock in release mode into .build-bench (skip with --skip-build or PUSHMOCK=);
#   2. starts `pushmock serve` (default settings: lint, device simulation, in-memory store of
#      100,000 records / 256 MiB, journal with durability `written`) with a rotating journal
#      (--journal-max-bytes 256M --journal-keep 2, so ten minutes do not fill the disk);
#   3. mints credentials: an APNs provider token (`pushmock provider-token`), an FCM access
#      token (google-auth against the gateway's /token with the sample service account); Expo
#      needs none;
#   4. measures the maximum: h2load on cleartext h2 (APNs 4, FCM 2, Expo 1 connections x 100
#      streams), unlimited, for MEASURE_SECONDS; the 2xx answers per second are the maximum
#      (counted from h2load's summaries: without its per-request log, which at full speed costs
#      h2load enough CPU to cap what it measures, see gateway-throughput.sh);
#   5. soaks for MINUTES minutes at LOAD_FRACTION (default 0.8) of that rate, split
#      APNs 65 % / FCM 30 % / Expo 5 % (three h2load processes with --rps, restarted every
#      minute so each minute has its own latency log; Expo's share is capped at EXPO_MAX_RPS,
#      under its real 600 notifications/s per project limit, above which the gateway answers
#      429 as Expo does, and APNs takes the rest); during every odd minute a fault rule
#      (10 % of APNs requests answered 500 InternalServerError) is active; every 2 s a control
#      client asks GET /_pushmock/recordings?limit=20, /_pushmock/info and /_pushmock/faults;
#   6. after every minute prints: requests answered, non-2xx, p50/p99 (ms, from h2load's
#      per-request logs), the gateway's RSS (VmRSS) and open file descriptors, and what the
#      stores hold (from /metrics: records and their MiB, simulated devices, Expo receipts,
#      access tokens), so RSS growth can be told apart from stores still filling;
#   7. verdict "flat" when, compared with minute 2 (the in-memory store fills within the
#      first minute at these rates and is at its bound from then on) or, when later, the first
#      minute the Expo receipt store is full (and at least three minutes remain): the last minute's RSS is
#      within RSS_TOLERANCE % (default 10) and the descriptor count within FD_TOLERANCE (default
#      8). p99 is reported, not judged (other builds share this machine);
#   8. after the last minute, waits (up to 75 s) for `serve` to give free heap memory back
#      after its quiet period and reports the RSS then, which tells memory the gateway holds
#      from memory the allocator kept after the load (reported, not judged);
#   9. writes the per-minute table as JSON to RESULTS and kills everything it started on exit.
#
# Usage:  Benchmarks/soak.sh [--skip-build]
# Environment:
#   MINUTES          soak length (default 10)
#   LOAD_FRACTION    fraction of the measured maximum to offer (default 0.8)
#   MEASURE_SECONDS  length of the maximum measurement (default 15)
#   EXPO_MAX_RPS     cap of Expo's share of the soak rate (default 400; Expo allows 600/s)
#   SCRATCH          SwiftPM scratch path (default <repo>/.build-bench)
#   PUSHMOCK         use this pushmock binary (implies --skip-build)
#   RESULTS          JSON output (default <repo>/Benchmarks/results/soak-latest.json)
#   RSS_TOLERANCE, FD_TOLERANCE  see step 7
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
MINUTES="${MINUTES:-10}"
LOAD_FRACTION="${LOAD_FRACTION:-0.8}"
MEASURE_SECONDS="${MEASURE_SECONDS:-15}"
EXPO_MAX_RPS="${EXPO_MAX_RPS:-400}"
SCRATCH="${SCRATCH:-$repo/.build-bench}"
RESULTS="${RESULTS:-$here/results/soak-latest.json}"
RSS_TOLERANCE="${RSS_TOLERANCE:-10}"
FD_TOLERANCE="${FD_TOLERANCE:-8}"

log() { printf '[soak %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }
for tool in h2load curl jq /usr/bin/python3; do command -v "$tool" >/dev/null || die "$tool is missing"; done
/usr/bin/python3 -c 'import google.oauth2.service_account, requests' 2>/dev/null \
    || die "python3-google-auth and python3-requests are needed for the FCM access token"

if [[ -n "${PUSHMOCK:-}" ]]; then
    pushmock="$PUSHMOCK"
elif [[ "$skip_build" -eq 1 ]]; then
    pushmock="$SCRATCH/release/pushmock"
else
    log "building pushmock (release) into $SCRATCH"
    (cd "$repo" && swift build -c release --product pushmock --scratch-path "$SCRATCH" >&2)
    pushmock="$SCRATCH/release/pushmock"
fi
[[ -x "$pushmock" ]] || die "no pushmock binary at $pushmock"

work="$(mktemp -d "${TMPDIR:-/tmp}/pushmock-soak.XXXXXX")"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    wait 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- gateway
"$pushmock" serve --tls-port 0 --port 0 --certs-dir "$work/certs" --journal "$work/journal.jsonl" \
    --journal-max-bytes 256M --journal-keep 2 --ready-file "$work/ready.json" --log-level warning \
    >"$work/serve.log" 2>&1 </dev/null &
server_pid=$!
pids+=("$server_pid")
for _ in $(seq 1 300); do [[ -s "$work/ready.json" ]] && break; sleep 0.1; done
[[ -s "$work/ready.json" ]] || die "pushmock did not become ready: $(cat "$work/serve.log")"
port="$(jq -r '.cleartext.port' "$work/ready.json")"
tls_port="$(jq -r '.tls.port' "$work/ready.json")"
base="http://127.0.0.1:$port"
log "pushmock $("$pushmock" --version 2>/dev/null || echo '?') ready, pid $server_pid, h2c port $port"

jwt="$("$pushmock" provider-token --key "$work/certs/apns-sample-key.p8")"
topic="$(jq -r '.apnsSampleKey.topic' "$work/ready.json")"
account="$(jq -r '.fcmSampleServiceAccount.path' "$work/ready.json")"
project="$(jq -r '.fcmSampleServiceAccount.projectId' "$work/ready.json")"
ca="$(jq -r '.caCertificatePath' "$work/ready.json")"
access_token="$(REQUESTS_CA_BUNDLE="$ca" /usr/bin/python3 - "$account" "$tls_port" <<'PY'
import json, sys
from google.oauth2 import service_account
from google.auth.transport.requests import Request
info = json.load(open(sys.argv[1]))
info["token_uri"] = "https://localhost:%s/token" % sys.argv[2]
credentials = service_account.Credentials.from_service_account_info(
    info, scopes=["https://www.googleapis.com/auth/firebase.messaging"])
credentials.refresh(Request())
print(credentials.token)
PY
)"
[[ -n "$access_token" ]] || die "no FCM access token"

printf '%s' '{"aps":{"alert":{"title":"Soak","body":"A notification of a usual size for the soak test."},"sound":"default"}}' >"$work/apns.json"
printf '{"message":{"token":"%s","notification":{"title":"Soak","body":"An FCM message for the soak test."},"data":{"kind":"soak"}}}' \
    "bk3RNwTe3H0:CI2k_HHwgIpoDKCIZvvDMExUdFQ3P1soak$(printf '%040d' 7)" >"$work/fcm.json"
printf '%s' '[{"to":"ExponentPushToken[soaksoaksoaksoaksoak01]","title":"Soak","body":"Expo message for the soak test.","data":{"k":1}}]' >"$work/expo.json"

apns_args=(-H "authorization: bearer $jwt" -H "apns-topic: $topic" -H "apns-push-type: alert" -H "apns-priority: 10"
    -d "$work/apns.json" "$base/3/device/$(printf 'a%.0s' $(seq 1 64))")
fcm_args=(-H "authorization: Bearer $access_token" -H "content-type: application/json"
    -d "$work/fcm.json" "$base/v1/projects/$project/messages:send")
expo_args=(-H "content-type: application/json" -H "accept: application/json" -d "$work/expo.json" "$base/--/api/v2/push/send")

# Sanity: each kind answers 200 once.
for kind in apns fcm expo; do
    declare -n args="${kind}_args"
    out="$(h2load -n 1 -c 1 "${args[@]}" 2>&1)"
    grep -q '1 succeeded' <<<"$out" || die "$kind request not answered 2xx: $(grep -E 'requests:|status codes' <<<"$out")"
done

# ---------------------------------------------------------------- helpers
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$server_pid/status"; }
# What the stores hold (from /metrics): records, MiB of record lines, simulated devices, Expo
# receipts, access tokens — so RSS growth can be told apart from stores still filling.
store_counts() {
    curl -s "$base/metrics" | awk '
        /^pushmock_recordings /                               { r = $2 }
        /^pushmock_recordings_bytes /                         { b = $2 }
        /^pushmock_simulated_devices /                        { d = $2 }
        /^pushmock_registry_entries\{registry="expo_receipts"/ { e = $2 }
        /^pushmock_registry_entries\{registry="access_tokens"/ { a = $2 }
        END { printf "%d %.1f %d %d %d\n", r, b / 1048576, d, e, a }'
}
fd_count() { ls "/proc/$server_pid/fd" | wc -l; }

# Runs the three loads for $1 seconds; $2 = total rate (0: unlimited, c x m each); $3 = tag.
run_mix() { # seconds rate tag [log: 1 (default) writes per-request logs, 0 does not]
    local seconds="$1" rate="$2" tag="$3" log="${4:-1}" kind clients share per_client
    local load_pids=()
    for kind in apns fcm expo; do
        case "$kind" in apns) share=65; clients=4 ;; fcm) share=30; clients=2 ;; expo) share=5; clients=1 ;; esac
        local rate_args=() kind_rate
        if [[ "$rate" -gt 0 ]]; then
            kind_rate=$(( rate * share / 100 ))
            # Expo answers 429 beyond 600 notifications/s per project: its share is capped at
            # EXPO_MAX_RPS and APNs takes the rest, so every non-2xx answer is the fault rule's.
            local expo_rate=$(( rate * 5 / 100 ))
            (( expo_rate > EXPO_MAX_RPS )) && expo_rate=$EXPO_MAX_RPS
            case "$kind" in
                expo) kind_rate=$expo_rate ;;
                apns) kind_rate=$(( kind_rate + rate * 5 / 100 - expo_rate )) ;;
            esac
            per_client=$(( (kind_rate + clients - 1) / clients ))
            rate_args=(--rps "$per_client")
        fi
        declare -n args="${kind}_args"
        local log_args=()
        [[ "$log" == 1 ]] && log_args=(--log-file="$work/$tag.$kind.tsv")
        h2load -t 1 -c "$clients" -m 100 "${rate_args[@]}" -D "$seconds" "${args[@]}" \
            "${log_args[@]}" >"$work/$tag.$kind.txt" 2>&1 </dev/null &
        load_pids+=($!)
        pids+=($!)
    done
    for pid in "${load_pids[@]}"; do wait "$pid" || true; done
}

# Per-request stats of one tag: answered, non-2xx, p50 and p99 in ms, failed streams.
stats_of() {
    python3 - "$work" "$1" <<'PY'
import glob, sys, re
work, tag = sys.argv[1], sys.argv[2]
durations, non2xx, answered, failed = [], 0, 0, 0
for path in glob.glob(f"{work}/{tag}.*.tsv"):
    for line in open(path):
        parts = line.split()
        if len(parts) < 3: continue
        status, micros = int(parts[1]), int(parts[2])
        answered += 1
        durations.append(micros)
        if not 200 <= status < 300: non2xx += 1
for path in glob.glob(f"{work}/{tag}.*.txt"):
    m = re.search(r"(\d+) failed, (\d+) errored", open(path).read())
    if m: failed += int(m.group(1))
durations.sort()
pick = lambda q: durations[min(len(durations) - 1, int(q * len(durations)))] / 1000 if durations else 0
print(answered, non2xx, round(pick(0.50), 2), round(pick(0.99), 2), failed)
PY
}

control_loop() {
    while true; do
        curl -s -o /dev/null "$base/_pushmock/recordings?limit=20" || true
        curl -s -o /dev/null "$base/_pushmock/info" || true
        curl -s -o /dev/null "$base/_pushmock/faults" || true
        sleep 2
    done
}

# ---------------------------------------------------------------- maximum
log "measuring the maximum: ${MEASURE_SECONDS}s, unlimited rate, same mix"
run_mix "$MEASURE_SECONDS" 0 measure 0
# Only 2xx answers count: Expo's 429s beyond its per-project limit are cheap and would inflate
# it. h2load's summary line: "status codes: N 2xx, N 3xx, N 4xx, N 5xx".
measured_2xx=$(cat "$work"/measure.*.txt | sed -n 's/^status codes: \([0-9]*\) 2xx.*/\1/p' | awk '{ n += $1 } END { print n + 0 }')
max_rps=$(( measured_2xx / MEASURE_SECONDS ))
(( max_rps > 0 )) || { cat "$work"/measure.*.txt >&2; echo "soak: the maximum measurement answered nothing" >&2; exit 1; }
target=$(python3 -c "print(int($max_rps * $LOAD_FRACTION))")
log "maximum ≈ $max_rps req/s (mix); soaking at $target req/s for $MINUTES min"
rm -f "$work"/measure.*

control_loop &
control_pid=$!
pids+=("$control_pid")

# ---------------------------------------------------------------- soak
rows=()
printf '%-6s %10s %8s %8s %8s %10s %6s %7s %-5s %8s %8s %8s %8s %7s\n' minute answered non2xx p50_ms p99_ms rss_MiB fds failed fault \
    records rec_MiB devices receipts tokens >&2
for minute in $(seq 1 "$MINUTES"); do
    fault="off"
    if (( minute % 2 == 1 )); then
        fault_rule="$(curl -s -X POST "$base/_pushmock/faults" -H 'content-type: application/json' \
            -d '{"name":"soak-500","match":{"platform":"apns"},"trigger":{"probability":0.1},"action":{"type":"apns-error","reason":"InternalServerError"}}' \
            | jq -r '.[0].id // .id // empty' 2>/dev/null || true)"
        [[ -n "$fault_rule" ]] || die "the fault rule was not accepted"
        fault="on"
    fi
    run_mix 60 "$target" "m$minute"
    if [[ "$fault" == on ]]; then curl -s -o /dev/null -X DELETE "$base/_pushmock/faults" || true; fi
    kill -0 "$server_pid" 2>/dev/null || die "pushmock died in minute $minute: $(tail -5 "$work/serve.log")"
    read -r answered non2xx p50 p99 failed <<<"$(stats_of "m$minute")"
    rss=$(rss_kb); fds=$(fd_count)
    read -r records record_mib devices receipts tokens <<<"$(store_counts)"
    printf '%-6s %10s %8s %8s %8s %10s %6s %7s %-5s %8s %8s %8s %8s %7s\n' "$minute" "$answered" "$non2xx" "$p50" "$p99" \
        "$(( rss / 1024 ))" "$fds" "$failed" "$fault" "$records" "$record_mib" "$devices" "$receipts" "$tokens" >&2
    rows+=("{\"minute\":$minute,\"answered\":$answered,\"non2xx\":$non2xx,\"p50_ms\":$p50,\"p99_ms\":$p99,\"rss_kib\":$rss,\"fds\":$fds,\"failed\":$failed,\"fault\":\"$fault\",\"records\":$records,\"record_mib\":$record_mib,\"devices\":$devices,\"expo_receipts\":$receipts,\"access_tokens\":$tokens}")
    rm -f "$work"/m"$minute".*.tsv
done

# ---------------------------------------------------------------- after the load
# `serve` gives free heap memory back after 30 s without exchanges (checked every 30 s, so
# within 60 s): the resident set then tells memory the gateway holds from memory the allocator
# kept after the load.
journal_seq="$(curl -s "$base/_pushmock/recordings?limit=1" | jq -r '(.records // .)[0].seq // 0' 2>/dev/null || echo 0)"
returned_bytes() { curl -s "$base/metrics" | awk '/^pushmock_memory_returned_bytes_total / { printf "%d", $2 }'; }
idle_returned=0
for _ in $(seq 1 75); do
    sleep 1
    idle_returned="$(returned_bytes)"
    [[ "${idle_returned:-0}" -gt 0 ]] && break
done
idle_rss=$(rss_kb)
log "after the load: RSS $(( idle_rss / 1024 )) MiB once idle, $(( ${idle_returned:-0} / 1048576 )) MiB given back to the system"

# ---------------------------------------------------------------- verdict
mkdir -p "$(dirname "$RESULTS")"
printf '{"max_rps":%s,"target_rps":%s,"minutes":%s,"journal_last_seq":%s,"idle_rss_kib":%s,"idle_returned_bytes":%s,"rows":[%s]}\n' \
    "$max_rps" "$target" "$MINUTES" "${journal_seq:-0}" "$idle_rss" "${idle_returned:-0}" "$(IFS=,; echo "${rows[*]}")" >"$RESULTS"
python3 - "$RESULTS" "$RSS_TOLERANCE" "$FD_TOLERANCE" <<'PY'
import json, sys
data = json.load(open(sys.argv[1])); rss_tol, fd_tol = float(sys.argv[2]), int(sys.argv[3])
rows = data["rows"]
if len(rows) < 3:
    print("verdict: too short to judge (need at least 3 minutes)"); sys.exit(0)
# The baseline is minute 2, or the first minute the Expo receipt store was full (it fills last:
# 100,000 receipts take about five minutes at 5 % Expo of ~6k req/s), whichever is later.
last = rows[-1]
most = max(row.get("expo_receipts", 0) for row in rows)
full = [index for index, row in enumerate(rows) if most and row.get("expo_receipts", 0) >= most]
base = rows[max(1, full[0] if full else 1)] if len(rows) - max(1, full[0] if full else 1) >= 3 else rows[1]
rss_change = 100.0 * (last["rss_kib"] - base["rss_kib"]) / base["rss_kib"]
fd_change = last["fds"] - base["fds"]
flat = abs(rss_change) <= rss_tol and abs(fd_change) <= fd_tol
data.update(verdict="flat" if flat else "NOT flat", baseline_minute=base["minute"], rss_change_pct=round(rss_change, 1), fd_change=fd_change)
json.dump(data, open(sys.argv[1], "w"), indent=1)
print(f"verdict: {'FLAT' if flat else 'NOT FLAT'} - RSS minute {base['minute']} -> {len(rows)}: {base['rss_kib']//1024} -> {last['rss_kib']//1024} MiB ({rss_change:+.1f} %, tolerance {rss_tol:g} %), "
      f"fds {base['fds']} -> {last['fds']} ({fd_change:+d}, tolerance {fd_tol}); "
      f"p99 minute {base['minute']} / last: {base['p99_ms']} / {last['p99_ms']} ms; max {data['max_rps']} req/s, offered {data['target_rps']} req/s")
PY
log "results: $RESULTS"
