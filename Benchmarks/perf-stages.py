#!/usr/bin/env python3
"""perf-stages.py: where a gateway profile's CPU time goes, by pipeline stage, in µs per request.

Issue #12 states budgets per request ("device simulation and lint each <= 1 us"); a perf profile
gives shares of samples. This turns one into the other: every sample of `perf record -g` is
charged to each stage whose function is on its call stack (inclusive, so stages nest: device
simulation is inside recording and delivery, which is inside the pipeline), and to one leaf
category by the function it was in (self time). Shares times the run's server CPU per request
give microseconds.

    perf-stages.py PERF_DATA [--window-requests N [--frequency HZ]] [--us-per-request X] [--json OUT]

The µs column needs the CPU per request of the profiled window. `--window-requests` (the
requests answered while perf recorded) gives it from the profile itself: samples / frequency
is the CPU time perf saw. `--us-per-request` takes a figure from elsewhere instead; the
benchmark's whole-run figure includes the warm-up, which runs at a different cost per request
than the steady state a long warm-up is meant to reach, so it is printed for reference only.

Caveats, also printed:
  * `perf record -g` unwinds with frame pointers. libc and libnghttp2 are built without them,
    so a sample inside malloc or memcpy is charged to its caller's caller, and samples inside
    libnghttp2's own functions often have no usable stack (they count only as leaf time).
    Inclusive stage figures are therefore lower bounds, most so for stages that allocate.
  * A short run is not steady state: device histories still grow (ring growth, first-touch
    page faults) and the recording ring is not yet evicting.
"""
import argparse
import collections
import json
import re
import subprocess
import sys

# Inclusive stages: (name, regex over one frame's symbol[, regex that must match no frame]).
# Order is the print order.
PIPELINE = r"15PushMockGateway0C10ConnectionC7respond"
STAGES = [
    ("request pipeline (parse, validate, authenticate, record, deliver)", PIPELINE),
    ("  parse and validate (headers, path, payload)", r"RequestRulesO|Endpoint\w*V5parse_|APNsMessageID|TokenFormat"),
    ("  authenticate (provider token, cached)", r"Endpoint\w*V12authenticate"),
    ("  lint", r"V4lint_2in|LintMemo|LintInput|NotificationLinting"),
    ("  device simulation (intake in the pipeline, devices in commit)", r"17DeliverySimulatorC|14DeliveryIntakeV"),
    ("  build the exchange record", r"16ExchangeRecorderV\d+\w*Record_"),
    ("  commit (journal line, memory store, journal write, devices)", r"ConnectionC6commit"),
    ("    encode the journal line", r"encodeJSONLine"),
    ("    journal write(2)", r"JournalFileCore|JournalWriter"),
    ("HTTP/2 transport outside the pipeline (session, callbacks, output)", r"17PushMockTransport", PIPELINE),
    ("TLS and socket I/O outside the pipeline (NIOSSL, NIO)", r"6NIOSSL|8NIOPosix", PIPELINE + "|17PushMockTransport"),
]

# Leaf (self-time) categories: first match wins; the rest is "other".
LEAVES = [
    ("kernel", lambda sym, dso: dso.startswith("[kernel")),
    ("libnghttp2 (HPACK, framing)", lambda sym, dso: "libnghttp2" in dso),
    ("BoringSSL (crypto)", lambda sym, dso: "BoringSSL" in sym or "aes_gcm" in sym or "gcm_" in sym),
    ("malloc/free", lambda sym, dso: "libc.so" in dso and re.search(r"malloc|free|unlink_chunk|_int_", sym) is not None),
    ("memcpy/memmove/memcmp", lambda sym, dso: "libc.so" in dso and re.search(r"mem(move|cpy|cmp|set|chr)", sym) is not None),
    ("reference counting", lambda sym, dso: re.search(r"swift_(retain|release|bridgeObject)|RefCounts|swift_isUniquelyReferenced", sym) is not None),
    ("exclusivity checks", lambda sym, dso: re.search(r"swift_(begin|end)Access|AccessSet|__tls_get_addr", sym) is not None),
    ("other libc / runtime", lambda sym, dso: re.search(r"libc\.so|libswiftCore|ld-linux|vdso|libswift_Concurrency", dso) is not None),
    ("Swift code (pushmock)", lambda sym, dso: True),
]

FRAME = re.compile(r"^\s*([0-9a-f]+)\s+(.*?)\s+\((.*)\)\s*$")


def samples(path):
    """Yields each sample's frames, leaf first, as (symbol, dso)."""
    proc = subprocess.Popen(
        ["perf", "script", "-i", path, "-F", "ip,sym,dso"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, errors="replace",
    )
    frames = []
    for line in proc.stdout:
        if not line.strip():
            if frames:
                yield frames
            frames = []
            continue
        match = FRAME.match(line)
        if match:
            frames.append((match.group(2), match.group(3)))
    if frames:
        yield frames
    proc.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("perf_data")
    parser.add_argument("--us-per-request", type=float, default=None,
                        help="server CPU µs per request of the profiled run (adds a µs column)")
    parser.add_argument("--window-requests", type=float, default=None,
                        help="requests answered while perf recorded: the µs column then comes from the samples")
    parser.add_argument("--frequency", type=float, default=999.0, help="perf record -F (default 999)")
    parser.add_argument("--json", default=None, help="also write the figures here")
    args = parser.parse_args()

    stage_patterns = [(stage[0], re.compile(stage[1]), re.compile(stage[2]) if len(stage) > 2 else None) for stage in STAGES]
    total = 0
    stage_counts = collections.Counter()
    leaf_counts = collections.Counter()
    for frames in samples(args.perf_data):
        total += 1
        for name, pattern, excluded in stage_patterns:
            if any(pattern.search(symbol) for symbol, _ in frames) and not (
                excluded and any(excluded.search(symbol) for symbol, _ in frames)
            ):
                stage_counts[name] += 1
        symbol, dso = frames[0]
        for name, test in LEAVES:
            if test(symbol, dso):
                leaf_counts[name] += 1
                break
    if total == 0:
        print("perf-stages: no samples in " + args.perf_data, file=sys.stderr)
        return 1

    us = args.us_per_request
    whole_run_us = us
    if args.window_requests:
        # Each sample is 1/frequency s of CPU of some pushmock thread.
        us = total / args.frequency / args.window_requests * 1e6

    def row(name, count):
        share = 100.0 * count / total
        cost = f"{share / 100.0 * us:8.2f}" if us is not None else "        "
        return f"{name:<66} {share:6.2f} % {cost}"

    if args.window_requests:
        print(f"{total} samples; {us:.1f} µs of server CPU per request in the profiled window"
              + (f" (whole run incl. warm-up: {whole_run_us:.1f} µs)" if whole_run_us is not None else ""))
    else:
        print(f"{total} samples" + (f"; {us:.1f} µs of server CPU per request" if us is not None else ""))
    print(f"{'stage (inclusive: a stage includes the stages indented under it)':<66} {'share':>8} {'µs/req':>8}")
    for name, *_ in STAGES:
        print(row(name, stage_counts[name]))
    print(f"{'where the samples were (self time, each sample once)':<66} {'share':>8} {'µs/req':>8}")
    for name, _ in LEAVES:
        print(row(name, leaf_counts[name]))
    print("caveat: frame-pointer stacks miss the caller of libc/libnghttp2 leaf frames, so the")
    print("inclusive stages are lower bounds; a 10-s run is not steady state (histories still grow).")

    if args.json:
        with open(args.json, "w") as out:
            json.dump({
                "samples": total,
                "us_per_request": us,
                "us_per_request_source": "profiled window" if args.window_requests else "given",
                "us_per_request_whole_run": whole_run_us,
                "stages": {name.strip(): {"share_pct": round(100.0 * stage_counts[name] / total, 2),
                                          "us": None if us is None else round(stage_counts[name] / total * us, 3)}
                           for name, *_ in STAGES},
                "leaves": {name: {"share_pct": round(100.0 * leaf_counts[name] / total, 2),
                                  "us": None if us is None else round(leaf_counts[name] / total * us, 3)}
                           for name, _ in LEAVES},
            }, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
