#!/usr/bin/env python3
"""Parses h2load output for gateway-throughput.sh.

  summarize.py check  --run OUT.txt [--log LOG.tsv] [--journal-lines N --journal-bytes B
                       --warmup S --concurrency C]
      Verifies one h2load run (all responses 2xx, no failed/errored/timed-out stream, the
      per-request log, when there is one, agrees with h2load's counters and, when journal
      figures are given, the journal grew by at least the number of successful responses).
      Prints one line; exits 1 on any violation.

  summarize.py report --runs DIR --journal JOURNAL.jsonl --plan PLAN.jsonl --out RESULTS.json --meta k=v ...
      Reads DIR/<server>.<run>.txt (the measuring run), and DIR/<server>.<run>.tsv with
      DIR/<server>.<run>.pct.txt when a logged companion run gave the percentiles, for every run of PLAN (one JSON object per h2load
      run: run name, scenario shape, kind headline|latency|variant, offered rate, extra
      arguments), prints the tables - headline (pushmock vs nghttpd, ratio), latency at a
      fixed offered rate, variants (pushmock with something changed, ratio to nghttpd's run
      of the same scenario) - and writes JSON.

h2load prints no percentiles, so p50/p99 come from --log-file: tab-separated
start time (µs since epoch), status (-1 for a failed stream), µs until the end of the response.
h2load writes that log only for requests of the measuring period (not the warm-up). Writing
it costs h2load enough CPU to cap nghttpd's rate, so full-speed rates come from unlogged runs
(gateway-throughput.sh's header).
"""

import argparse
import json
import math
import os
import re
import sys

SCENARIO_ORDER = ["tls-4x100", "tls-1x100", "h2c-4x100", "h2c-1x100"]
SERVERS = ["pushmock", "nghttpd"]


def parse_h2load(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    r = {}
    m = re.search(r"^finished in ([\d.]+)(\w+), ([\d.]+) req/s, ([\d.]+)(\w+)/s", text, re.M)
    if not m:
        raise ValueError(f"{path}: no 'finished in' line (h2load failed?)")
    scale = {"us": 1e-6, "ms": 1e-3, "s": 1.0}
    r["elapsed_s"] = float(m.group(1)) * scale.get(m.group(2), 1.0)
    r["req_per_s"] = float(m.group(3))
    m = re.search(
        r"^requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, "
        r"(\d+) errored, (\d+) timeout",
        text,
        re.M,
    )
    if not m:
        raise ValueError(f"{path}: no 'requests:' line")
    for key, value in zip(["total", "started", "done", "succeeded", "failed", "errored", "timeout"], m.groups()):
        r[key] = int(value)
    m = re.search(r"^status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", text, re.M)
    if not m:
        raise ValueError(f"{path}: no 'status codes:' line")
    r["status"] = dict(zip(["2xx", "3xx", "4xx", "5xx"], map(int, m.groups())))
    m = re.search(r"^traffic: .*?\((\d+)\) total, .*?\((\d+)\) headers \(space savings ([\d.]+)%\)", text, re.M)
    if m:
        r["traffic_bytes"] = int(m.group(1))
        r["header_bytes"] = int(m.group(2))
        r["hpack_savings_pct"] = float(m.group(3))
    for label, key in [("TLS Protocol", "tls_protocol"), ("Cipher", "tls_cipher"),
                       ("Server Temp Key", "tls_key_exchange"), ("Application protocol", "alpn")]:
        m = re.search(rf"^{label}: (.+)$", text, re.M)
        if m:
            r[key] = m.group(1).strip()
    return r


def percentile(sorted_values, p):
    """Nearest-rank percentile."""
    if not sorted_values:
        return None
    rank = max(1, math.ceil(p / 100.0 * len(sorted_values)))
    return sorted_values[rank - 1]


def parse_log(path):
    durations, statuses = [], {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3:
                continue
            status, micros = int(parts[1]), int(parts[2])
            statuses[status] = statuses.get(status, 0) + 1
            if 200 <= status < 300:
                durations.append(micros)
    durations.sort()
    return {
        "rows": sum(statuses.values()),
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
        "latency_us": {
            "p50": percentile(durations, 50),
            "p90": percentile(durations, 90),
            "p99": percentile(durations, 99),
            "p999": percentile(durations, 99.9),
            "max": durations[-1] if durations else None,
            "mean": round(sum(durations) / len(durations), 1) if durations else None,
        },
    }


def problems_of(run, log=None):
    problems = []
    if run["done"] == 0:
        problems.append("no request completed")
    non2xx = run["status"]["3xx"] + run["status"]["4xx"] + run["status"]["5xx"]
    if non2xx:
        problems.append(f"{non2xx} non-2xx responses ({run['status']})")
    if run["status"]["2xx"] != run["done"]:
        problems.append(f"2xx={run['status']['2xx']} but done={run['done']}")
    for key in ["failed", "errored", "timeout"]:
        if run[key]:
            problems.append(f"{run[key]} {key}")
    if log is not None:
        if log["rows"] != run["done"]:
            problems.append(f"log has {log['rows']} rows but h2load reports {run['done']} done")
        bad = {k: v for k, v in log["statuses"].items() if not k.startswith("2")}
        if bad:
            problems.append(f"non-2xx statuses in log: {bad}")
    if run.get("alpn") not in (None, "h2", "h2c"):
        problems.append(f"negotiated {run.get('alpn')}, not HTTP/2")
    return problems


def journal_assessment(run, lines, nbytes, warmup, concurrency):
    """Journal lines added during one scenario versus what h2load saw (see the script header)."""
    excess = lines - run["succeeded"]
    estimate = warmup * run["req_per_s"]
    result = {
        "lines": lines,
        "bytes": nbytes,
        "bytes_per_line": round(nbytes / lines, 1) if lines else None,
        "succeeded_main_period": run["succeeded"],
        "excess_lines": excess,
        "excess_estimate": round(estimate + concurrency),
        "ok": excess >= 0,
    }
    warnings = []
    if excess < 0:
        warnings.append(f"journal has {-excess} lines FEWER than 2xx responses")
    elif excess > 1.5 * estimate + concurrency:
        warnings.append(
            f"journal has {excess} more lines than main-period responses; expected about "
            f"{round(estimate)} warm-up + <= {concurrency} in flight"
        )
    result["warnings"] = warnings
    return result


def cmd_check(args):
    run = parse_h2load(args.run)
    log = parse_log(args.log) if args.log else None
    problems = problems_of(run, log)
    name = os.path.basename(args.run)[: -len(".txt")]
    summary = f"{name}: {run['req_per_s']:.0f} req/s, {run['done']} done"
    if log is not None:
        summary += f", p50 {fmt_ms(log['latency_us']['p50'])} ms, p99 {fmt_ms(log['latency_us']['p99'])} ms"
    else:
        summary += " (no per-request log: rate only)"
    if args.journal_lines is not None:
        j = journal_assessment(run, args.journal_lines, args.journal_bytes, args.warmup, args.concurrency)
        summary += (f"; journal +{j['lines']} lines ({j['excess_lines']} beyond main-period 2xx, "
                    f"~{j['excess_estimate']} expected), {j['bytes_per_line']} B/line")
        if not j["ok"]:
            problems.extend(j["warnings"])
        else:
            for w in j["warnings"]:
                print(f"WARNING: {name}: {w}", file=sys.stderr)
    print(summary, file=sys.stderr)
    if problems:
        for p in problems:
            print(f"FAIL: {name}: {p}", file=sys.stderr)
        return 1
    return 0


def fmt_ms(micros):
    return "-" if micros is None else f"{micros / 1000:.2f}"


def cmd_report(args):
    meta = {}
    for item in args.meta:
        key, _, value = item.partition("=")
        meta[key] = value
    journals = {}
    if args.journal and os.path.exists(args.journal):
        for line in open(args.journal):
            if line.strip():
                j = json.loads(line)
                journals[j["scenario"]] = j
    plan = {}
    if args.plan and os.path.exists(args.plan):
        for line in open(args.plan):
            if line.strip():
                p = json.loads(line)
                plan.setdefault(p["run"], p)
    runs_on_disk = {f.split(".", 1)[1][: -len(".txt")] for f in os.listdir(args.runs)
                    if f.endswith(".txt") and not f.endswith(".pct.txt") and "." in f}
    for run in sorted(runs_on_disk - set(plan)):
        plan[run] = {"run": run, "scenario": run, "kind": "headline", "rps": "", "args": ""}
    kind_order = {"headline": 0, "latency": 1, "variant": 2}
    ordered = sorted(plan.values(), key=lambda p: (
        kind_order.get(p["kind"], 3),
        SCENARIO_ORDER.index(p["scenario"]) if p["scenario"] in SCENARIO_ORDER else 99))
    rows = []
    for p in ordered:
        run_name, scenario = p["run"], p["scenario"]
        row = {"scenario": run_name, "shape": scenario, "kind": p["kind"]}
        if p.get("rps"):
            row["offered_req_per_s"] = int(p["rps"])
        if p.get("args"):
            row["pushmock_extra_args"] = p["args"]
        _, shape = scenario.split("-", 1)
        clients, streams = (int(x) for x in shape.split("x"))
        for server in SERVERS:
            base = os.path.join(args.runs, f"{server}.{run_name}")
            if not os.path.exists(base + ".txt"):
                continue
            run = parse_h2load(base + ".txt")
            # The percentiles: of this run when it was logged (rate-limited runs), else of its
            # logged companion run (base.pct.txt), if there was one.
            log = parse_log(base + ".tsv") if os.path.exists(base + ".tsv") else None
            companion = parse_h2load(base + ".pct.txt") if os.path.exists(base + ".pct.txt") else None
            latency = log["latency_us"] if log else {}
            entry = {
                "req_per_s": run["req_per_s"],
                "latency_ms": {k: (None if latency.get(k) is None else round(latency[k] / 1000, 3))
                               for k in ["p50", "p90", "p99", "p999", "max", "mean"]},
                "requests_done": run["done"],
                "status": run["status"],
                "failed": run["failed"],
                "errored": run["errored"],
                "elapsed_s": run["elapsed_s"],
            }
            for key in ["alpn", "tls_protocol", "tls_cipher", "tls_key_exchange", "hpack_savings_pct",
                        "traffic_bytes"]:
                if key in run:
                    entry[key] = run[key]
            if os.path.exists(base + ".cpu.json"):
                entry["cpu"] = json.load(open(base + ".cpu.json"))
            if server == "pushmock" and run_name in journals:
                j = journals[run_name]
                entry["journal"] = journal_assessment(
                    run, j["lines"], j["bytes"], float(meta.get("warmup_s", 0)), clients * streams)
            if companion is not None:
                entry["percentiles_from"] = "logged companion run"
                entry["percentile_run_req_per_s"] = companion["req_per_s"]
                entry["problems"] = problems_of(run) + [f"percentile run: {p}" for p in problems_of(companion, log)]
            else:
                entry["percentiles_from"] = "this run (logged)" if log else "none"
                entry["problems"] = problems_of(run, log)
            row[server] = entry
        rows.append(row)
    # A variant's ratio is to nghttpd's run of the same scenario.
    by_name = {row["scenario"]: row for row in rows}
    for row in rows:
        reference = row.get("nghttpd") or by_name.get(row["shape"], {}).get("nghttpd")
        if "pushmock" in row and reference and reference["req_per_s"]:
            row["ratio"] = round(row["pushmock"]["req_per_s"] / reference["req_per_s"], 3)

    result = {"benchmark": "gateway-throughput", "machine": meta, "scenarios": rows}
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")

    # ---- tables
    def table_lines(header, body):
        table = [header] + body
        widths = [max(len(r[i]) for r in table) for i in range(len(header))]
        out = []
        for n, r in enumerate(table):
            out.append(" | ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(r)))
            if n == 0:
                out.append("-+-".join("-" * w for w in widths))
        return out

    def server_cells(e):
        if not e:
            return ["-", "-", "-"]
        return [f"{e['req_per_s']:,.0f}", fmt_ms_value(e["latency_ms"]["p50"]), fmt_ms_value(e["latency_ms"]["p99"])]

    titles = {
        "headline": "default `pushmock serve` vs nghttpd (as fast as h2load can go; p50/p99 from a logged companion run)",
        "latency": "latency at fixed offered rates (half of nghttpd's tls-4x100 req/s: the goal's rate; "
                   "and LATENCY_OWN % of pushmock's: below its saturation)",
        "variant": "variants: pushmock with something changed (ratio to nghttpd's run of the same scenario)",
    }
    for kind in ["headline", "latency", "variant"]:
        kind_rows = [row for row in rows if row["kind"] == kind]
        if not kind_rows:
            continue
        if kind == "variant":
            header = ["variant", "pushmock args", "pushmock req/s", "p50 ms", "p99 ms", "ratio"]
            body = [[row["scenario"], row.get("pushmock_extra_args", "")] + server_cells(row.get("pushmock"))
                    + [f"{row['ratio']:.2f}x" if "ratio" in row else "-"] for row in kind_rows]
        else:
            header = ["scenario", "pushmock req/s", "p50 ms", "p99 ms", "nghttpd req/s", "p50 ms", "p99 ms", "ratio"]
            body = [[row["scenario"]] + server_cells(row.get("pushmock")) + server_cells(row.get("nghttpd"))
                    + [f"{row['ratio']:.2f}x" if "ratio" in row else "-"] for row in kind_rows]
        print()
        print(titles[kind] + ":")
        print("\n".join(table_lines(header, body)))
    print()
    for key in ["cpu", "nproc", "kernel", "pinning", "load", "pushmock_args", "pushmock", "git", "swift", "h2load", "nghttpd", "openssl",
                "durability", "journal_dir", "tls13_ciphers", "duration_s", "warmup_s", "body_bytes", "tokens", "date"]:
        if key in meta:
            print(f"  {key:<14} {meta[key]}")
    for row in rows:
        e = row.get("pushmock", {})
        j = e.get("journal")
        if j:
            print(f"  journal {row['scenario']}: +{j['lines']} lines, {j['bytes_per_line']} B/line, "
                  f"{j['excess_lines']} beyond main-period 2xx (~{j['excess_estimate']} expected)")
        cpu = [f"{s} {row[s]['cpu']['server_cpu_pct']:.0f}% (h2load {row[s]['cpu']['h2load_cpu_pct']:.0f}%)"
               for s in SERVERS if s in row and "cpu" in row[s]]
        if cpu:
            print(f"  cpu {row['scenario']}: " + ", ".join(cpu))
        # CPU time per request answered (the journal counts every one, warm-up included): on a
        # shared machine a steadier figure than req/s, which moves with the CPU share the
        # server got.
        if j and "cpu" in e and j["lines"]:
            e["server_cpu_us_per_request"] = round(e["cpu"]["server_cpu_s"] * 1e6 / j["lines"], 2)
            print(f"  server CPU per request {row['scenario']}: {e['server_cpu_us_per_request']:.1f} µs")
        tls = [e.get("tls_protocol"), e.get("tls_cipher")] if e else []
        if all(tls) and tls:
            ng = row.get("nghttpd", {})
            print(f"  tls {row['scenario']}: pushmock {' / '.join(tls)}; "
                  f"nghttpd {ng.get('tls_protocol', '-')} / {ng.get('tls_cipher', '-')}")
    with open(args.out, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    print(f"\n  results: {args.out}")
    bad = [(row["scenario"], s, p) for row in rows for s in SERVERS for p in row.get(s, {}).get("problems", [])]
    for scenario, server, problem in bad:
        print(f"FAIL: {server} {scenario}: {problem}", file=sys.stderr)
    return 1 if bad else 0


def fmt_ms_value(ms):
    return "-" if ms is None else f"{ms:.2f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check")
    check.add_argument("--run", required=True)
    check.add_argument("--log")
    check.add_argument("--journal-lines", type=int)
    check.add_argument("--journal-bytes", type=int, default=0)
    check.add_argument("--warmup", type=float, default=0)
    check.add_argument("--concurrency", type=int, default=0)
    report = sub.add_parser("report")
    report.add_argument("--runs", required=True)
    report.add_argument("--journal")
    report.add_argument("--plan")
    report.add_argument("--out", required=True)
    report.add_argument("--meta", action="append", default=[])
    args = parser.parse_args()
    return cmd_check(args) if args.command == "check" else cmd_report(args)


if __name__ == "__main__":
    sys.exit(main())
