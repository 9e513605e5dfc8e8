#!/usr/bin/env python3
"""HTTP/2 and connection abuse against a running `pushmock serve`, one case per run.

    h2_abuse.py CASE HOST CLEARTEXT_PORT TLS_PORT SERVER_PID

Each case attacks one connection (raw frames written with the `h2`/`hpack` packages from
PyPI, or plain sockets) while a well-behaved HTTP/2 client keeps asking
`GET /_pushmock/health` on its own connection. It prints one JSON object:

    {"case": …, "ok": true|false, "problems": […], "observed": {…}, "probes": n,
     "probe_failures": n, "rss_start_kb": …, "rss_peak_kb": …}

`ok` means: every probe during the attack (on the client's one connection) and a new
connection after it were answered 200, the server's RSS grew
by less than RSS_GROWTH_LIMIT_KB, and the abusive connection saw what the case expects
(`observed` says what it saw). Used by Tests/PushMockCLITests/HTTP2AbuseTests.swift; each case
runs for a few seconds.
"""
import json
import os
import resource
import socket
import struct
import subprocess
import sys
import threading
import time

import h2.config
import h2.connection
import h2.events
import h2.exceptions
from hpack import Decoder, Encoder

SERVER_PID = [0]
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = 0, 1, 3, 4, 6, 7, 8, 9
END_STREAM, END_HEADERS = 0x1, 0x4
RSS_GROWTH_LIMIT_KB = 200 * 1024
# How long to wait for an answer the case expects. Every such wait ends as soon as the answer
# is there, so this costs nothing when the server is quick; it is long because CI runs these
# cases beside the rest of the suite on two cores, where 200 answers once took over 3 seconds.
PATIENCE = 30.0
ERROR_NAMES = {0: "NO_ERROR", 1: "PROTOCOL_ERROR", 2: "INTERNAL_ERROR", 3: "FLOW_CONTROL_ERROR", 7: "REFUSED_STREAM",
               8: "CANCEL", 9: "COMPRESSION_ERROR", 11: "ENHANCE_YOUR_CALM"}


def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream & 0x7FFFFFFF) + payload


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return 0
    return 0


class FrameReader:
    """Reads frames from a raw socket, decoding response headers; notes GOAWAY and EOF."""

    def __init__(self, sock):
        self.sock = sock
        self.buffer = b""
        self.decoder = Decoder()
        self.decoder.max_allowed_table_size = 65536
        self.statuses = []
        self.goaway = None
        self.resets = {}
        self.closed = False
        self.frames = 0
        self.data_frames = 0

    def pump(self, seconds, until=None):
        deadline = time.time() + seconds
        while time.time() < deadline and not self.closed:
            if until and until(self):
                return
            self.sock.settimeout(max(0.01, min(0.2, deadline - time.time())))
            try:
                chunk = self.sock.recv(1 << 20)
            except socket.timeout:
                continue
            except OSError:
                self.closed = True
                return
            if not chunk:
                self.closed = True
                return
            self.buffer += chunk
            self._parse()

    def _parse(self):
        while len(self.buffer) >= 9:
            length = int.from_bytes(self.buffer[:3], "big")
            if len(self.buffer) < 9 + length:
                return
            kind, flags = self.buffer[3], self.buffer[4]
            stream = int.from_bytes(self.buffer[5:9], "big") & 0x7FFFFFFF
            payload = self.buffer[9:9 + length]
            self.buffer = self.buffer[9 + length:]
            self.frames += 1
            if kind == HEADERS:
                try:
                    for name, value in self.decoder.decode(payload):
                        if name in (b":status", ":status"):
                            self.statuses.append(int(value))
                except Exception:  # noqa: BLE001 - a decoding failure is reported, not fatal
                    self.statuses.append(-1)
            elif kind == GOAWAY and len(payload) >= 8:
                code = int.from_bytes(payload[4:8], "big")
                self.goaway = {"code": ERROR_NAMES.get(code, code), "debug": payload[8:].decode("utf-8", "replace")}
            elif kind == RST_STREAM and len(payload) == 4:
                code = ERROR_NAMES.get(int.from_bytes(payload, "big"), int.from_bytes(payload, "big"))
                self.resets[code] = self.resets.get(code, 0) + 1
            elif kind == DATA:
                self.data_frames += 1

    def summary(self):
        statuses = {}
        for status in self.statuses:
            statuses[str(status)] = statuses.get(str(status), 0) + 1
        return {"statuses": statuses, "goaway": self.goaway, "resets": self.resets, "closed": self.closed,
                "frames": self.frames}


def raw_connection(host, port, settings=b""):
    sock = socket.create_connection((host, port), timeout=5)
    sock.sendall(PREFACE + frame(SETTINGS, 0, 0, settings))
    return sock


def send_quietly(sock, data):
    try:
        sock.sendall(data)
        return True
    except OSError:
        return False


class WellBehavedClient:
    """A plain HTTP/2 client (h2) that asks for /_pushmock/health on one connection."""

    def __init__(self, host, port):
        self.host, self.port = host, port
        self.sock = socket.create_connection((host, port), timeout=PATIENCE)
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.conn.initiate_connection()
        self.sock.sendall(self.conn.data_to_send())

    def get(self, path="/_pushmock/health", timeout=PATIENCE):
        stream = self.conn.get_next_available_stream_id()
        self.conn.send_headers(stream, [(":method", "GET"), (":path", path), (":scheme", "http"),
                                        (":authority", f"127.0.0.1:{self.port}")], end_stream=True)
        self.sock.sendall(self.conn.data_to_send())
        status = None
        deadline = time.time() + timeout
        while time.time() < deadline:
            self.sock.settimeout(max(0.01, deadline - time.time()))
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                break
            if not data:
                break
            for event in self.conn.receive_data(data):
                if isinstance(event, h2.events.ResponseReceived) and event.stream_id == stream:
                    status = int(dict(event.headers)[":status"])
                if isinstance(event, h2.events.StreamEnded) and event.stream_id == stream:
                    self.sock.sendall(self.conn.data_to_send())
                    return status
                if isinstance(event, h2.events.DataReceived):
                    self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            self.sock.sendall(self.conn.data_to_send())
        return status

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def probe_once(host, port, timeout=PATIENCE):
    try:
        client = WellBehavedClient(host, port)
        try:
            return client.get(timeout=timeout)
        finally:
            client.close()
    except OSError:
        return None


def probe_until_answered(host, port):
    """A new well-behaved client, tried again until it gets 200 or PATIENCE runs out (a
    connection cap or handshake timeout may still be settling after an attack)."""
    deadline = time.time() + PATIENCE
    status = probe_once(host, port)
    while status != 200 and time.time() < deadline:
        time.sleep(0.25)
        status = probe_once(host, port)
    return status


def request_block(encoder, port, path="/_pushmock/health", method="GET", extra=()):
    return encoder.encode([(":method", method), (":path", path), (":scheme", "http"),
                           (":authority", f"127.0.0.1:{port}")] + list(extra))


# MARK: Cases. Each returns (observed, problems) and takes a few seconds at most.

def case_rapid_reset(host, port, tls_port):
    sock = raw_connection(host, port)
    encoder = Encoder()
    reader = FrameReader(sock)
    sent = 0
    for batch in range(40):
        chunk = bytearray()
        for index in range(500):
            stream = 1 + 2 * (batch * 500 + index)
            chunk += frame(HEADERS, END_HEADERS, stream, request_block(encoder, port, method="POST"))
            chunk += frame(RST_STREAM, 0, stream, struct.pack(">I", 8))
        if not send_quietly(sock, bytes(chunk)):
            break
        sent += 500
        reader.pump(0.01)
    reader.pump(PATIENCE, until=lambda r: r.goaway is not None)
    observed = reader.summary() | {"streams_reset": sent}
    sock.close()
    # Nothing was completed, so nothing may be answered; the connection either survives or is
    # told to calm down (libnghttp2's rapid-reset guard).
    problems = [] if not observed["statuses"] else ["reset streams were answered"]
    # libnghttp2's rapid-reset guard (CVE-2023-44487) ends the connection with GOAWAY
    # INTERNAL_ERROR once the reset rate passes its limit.
    if not observed["goaway"] or observed["goaway"]["code"] != "INTERNAL_ERROR":
        problems.append(f"expected GOAWAY INTERNAL_ERROR (libnghttp2's rapid-reset guard), saw {observed['goaway']}")
    return observed, problems


def case_continuation_flood(host, port, tls_port):
    sock = raw_connection(host, port)
    encoder = Encoder()
    reader = FrameReader(sock)
    sock.sendall(frame(HEADERS, 0, 1, request_block(encoder, port)))
    # Literal header fields without indexing, 16 KiB per CONTINUATION, never END_HEADERS.
    field = b"\x00\x05x-pad\x7f\x80\x01" + b"a" * 255
    payload = field * (16000 // len(field))
    sent = 0
    for _ in range(1000):  # up to ~16 MB
        if not send_quietly(sock, frame(CONTINUATION, 0, 1, payload)):
            break
        sent += len(payload)
        if sent % (1 << 20) < len(payload):
            reader.pump(0.005)
            if reader.closed or reader.goaway:
                break
    reader.pump(1.5, until=lambda r: r.closed or r.goaway is not None or r.statuses)
    observed = reader.summary() | {"bytes_sent": sent}
    sock.close()
    problems = []
    # The header list passes MAX_HEADER_LIST_SIZE after the first frame: either libnghttp2 ends
    # the connection (GOAWAY), or the block is discarded and its stream never reaches the gateway.
    if observed["statuses"] and set(observed["statuses"]) != {"431"}:
        problems.append(f"a CONTINUATION flood was answered {observed['statuses']}")
    return observed, problems


def case_hpack_bomb(host, port, tls_port):
    # One 4000-byte header in the dynamic table, referenced 2000 times per request: ~8 MB of
    # headers from ~8 KB on the wire, 200 times over (1.6 GB if expanded).
    bomb = [("x-bomb", "a" * 4000)] * 2000
    streams = 200
    # Encoded before connecting: pure-Python HPACK is slow on a loaded machine, and a server
    # with a short idle timeout would end an idle connection first. The first block puts the header
    # into the dynamic table; every later one only refers to it, so they are all the same.
    encoder = Encoder()
    first_block = request_block(encoder, port, extra=bomb)
    later_block = request_block(encoder, port, extra=bomb)
    sock = raw_connection(host, port)
    reader = FrameReader(sock)
    for index in range(streams):
        block = first_block if index == 0 else later_block
        if not send_quietly(sock, frame(HEADERS, END_HEADERS | END_STREAM, 1 + 2 * index, block)):
            break
        if index % 20 == 0:
            reader.pump(0.01)
    reader.pump(PATIENCE, until=lambda r: len(r.statuses) >= streams or r.closed)
    observed = reader.summary()
    sock.close()
    problems = []
    if observed["statuses"].get("431", 0) != streams:
        problems.append(f"expected {streams} answers 431, saw {observed['statuses']}")
    return observed, problems


def case_oversized_header(host, port, tls_port):
    # Encoded before connecting (Huffman-coding 60 kB in pure Python can take longer than a
    # short idle timeout on a loaded machine: the server would say GOAWAY first).
    block = request_block(Encoder(), port, extra=[("x-big", "b" * 60000)])
    sock = raw_connection(host, port)
    reader = FrameReader(sock)
    # Split over HEADERS + CONTINUATION (frames are at most 16 KiB).
    pieces = [block[i:i + 16384] for i in range(0, len(block), 16384)]
    frames = frame(HEADERS, END_STREAM | (END_HEADERS if len(pieces) == 1 else 0), 1, pieces[0])
    for index, piece in enumerate(pieces[1:], start=1):
        frames += frame(CONTINUATION, END_HEADERS if index == len(pieces) - 1 else 0, 1, piece)
    sock.sendall(frames)
    reader.pump(PATIENCE, until=lambda r: r.statuses or r.closed)
    observed = reader.summary()
    sock.close()
    return observed, ([] if observed["statuses"] == {"431": 1} else [f"expected one 431, saw {observed['statuses']}"])


def flood(host, port, one_frame, count):
    sock = raw_connection(host, port)
    reader = FrameReader(sock)
    chunk = one_frame * 5000
    sent = 0
    while sent < count:
        if not send_quietly(sock, chunk):
            break
        sent += 5000
    # The flooder never read: its acknowledgements pile up on the server until it calms it down.
    reader.pump(PATIENCE, until=lambda r: r.goaway is not None or r.closed)
    observed = reader.summary() | {"frames_sent": sent}
    sock.close()
    return observed


def flood_problems(observed):
    # libnghttp2 stops a peer whose acknowledgements pile up (more than 1000 queued) with
    # GOAWAY ENHANCE_YOUR_CALM and closes; the GOAWAY can be lost in the TCP reset of a socket
    # closed with unread input, so a closed connection counts as the same answer.
    goaway = observed["goaway"]
    if goaway is not None and goaway["code"] != "ENHANCE_YOUR_CALM":
        return [f"expected GOAWAY ENHANCE_YOUR_CALM, saw {goaway}"]
    if goaway is None and not observed["closed"]:
        return ["the flooding connection was neither told to calm down nor closed"]
    return []


def case_settings_flood(host, port, tls_port):
    observed = flood(host, port, frame(SETTINGS, 0, 0), 200_000)
    return observed, flood_problems(observed)


def case_ping_flood(host, port, tls_port):
    observed = flood(host, port, frame(PING, 0, 0, b"12345678"), 200_000)
    return observed, flood_problems(observed)


def case_zero_window(host, port, tls_port):
    # INITIAL_WINDOW_SIZE 0: answers with bodies can never be sent; the server must hold them
    # without growing (MAX_CONCURRENT_STREAMS bounds them) and keep serving others.
    # Encoded before connecting, so the idle timeout cannot end the connection first.
    encoder = Encoder()
    chunk = b"".join(frame(HEADERS, END_HEADERS | END_STREAM, 1 + 2 * index,
                           request_block(encoder, port, path="/_pushmock/info")) for index in range(900))
    sock = raw_connection(host, port, settings=struct.pack(">HI", 0x4, 0))
    reader = FrameReader(sock)
    sock.sendall(chunk)
    # Wait for the first answers' headers, then a little longer: no DATA may follow them.
    reader.pump(PATIENCE, until=lambda r: 200 in r.statuses)
    reader.pump(1.0)
    observed = reader.summary()
    sock.close()
    problems = [] if observed["statuses"].get("200", 0) > 0 and reader.data_frames == 0 else [
        f"expected headers without DATA, saw {observed}"]
    return observed, problems


def case_never_reading(host, port, tls_port):
    # Requests as fast as possible for two seconds, never reading an answer.
    sock = raw_connection(host, port)
    encoder = Encoder()
    sock.settimeout(0.5)
    stream = 1
    sent = 0
    deadline = time.time() + 2.0
    while time.time() < deadline:
        chunk = b"".join(frame(HEADERS, END_HEADERS | END_STREAM, stream + 2 * index, request_block(encoder, port))
                         for index in range(200))
        stream += 400
        try:
            sock.sendall(chunk)
        except (socket.timeout, OSError):
            break  # the server stopped reading: backpressure works
        sent += 200
    sock.close()
    return {"requests_sent": sent}, []


def case_slowloris(host, port, tls_port):
    # One byte of the preface every 500 ms (12 s for all of it): the handshake timeout (3 s in
    # the test) must close it long before the preface is complete, even on a loaded machine.
    sock = socket.create_connection((host, port), timeout=5)
    started = time.time()
    closed_after = None
    for byte in PREFACE:
        if not send_quietly(sock, bytes([byte])):
            closed_after = time.time() - started
            break
        sock.settimeout(0.5)
        try:
            if sock.recv(1) == b"":
                closed_after = time.time() - started
                break
        except socket.timeout:
            pass
        except OSError:
            closed_after = time.time() - started
            break
    sock.close()
    observed = {"closed_after_seconds": closed_after}
    return observed, ([] if closed_after is not None else ["a byte-a-tick preface was never cut off"])


def case_idle_flood(host, port, tls_port):
    # A thousand, or what this process's descriptor limit leaves room for.
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    count = max(300, min(1100, soft - 64))
    # More idle connections than --max-connections: the well-behaved client (connected before,
    # probing throughout) keeps its answers, the ones over the cap are closed at once, the rest when the handshake timeout
    # fires, and then new clients get in again.
    idle = []
    for _ in range(count):
        try:
            idle.append(socket.create_connection((host, port), timeout=2))
        except OSError:
            break

    def closed(sock):
        sock.setblocking(False)
        try:
            return sock.recv(1) == b""
        except BlockingIOError:
            return False
        except OSError:
            return True

    time.sleep(0.3)
    closed_at_once = sum(1 for sock in idle if closed(sock))
    deadline = time.time() + PATIENCE
    while time.time() < deadline and not all(closed(sock) for sock in idle):
        time.sleep(0.2)
    closed_later = sum(1 for sock in idle if closed(sock))
    for sock in idle:
        sock.close()
    fresh = probe_until_answered(host, port)
    observed = {"opened": len(idle), "closed_at_once": closed_at_once, "closed_after_timeout": closed_later,
                "fresh_client_after": fresh}
    problems = []
    if closed_later != len(idle):
        problems.append("idle connections were not all closed by the handshake timeout")
    if fresh != 200:
        problems.append("a new client could not connect after the flood")
    return observed, problems


def case_idle_goaway(host, port, tls_port):
    # An HTTP/2 connection that goes quiet is closed after the idle timeout (the tests run the
    # server with --idle-timeout 2s) with GOAWAY NO_ERROR {"reason":"IdleTimeout"}.
    sock = raw_connection(host, port)
    sock.sendall(frame(SETTINGS, 0x1, 0))
    reader = FrameReader(sock)
    reader.pump(PATIENCE, until=lambda r: r.closed)
    observed = reader.summary()
    sock.close()
    expected = {"code": "NO_ERROR", "debug": '{"reason":"IdleTimeout"}'}
    problems = []
    if observed["goaway"] != expected or not observed["closed"]:
        problems.append(f"expected GOAWAY {expected} and a close, saw {observed}")
    return observed, problems


def case_big_body(host, port, tls_port):
    # 50 MB to an APNs device: answered 413 PayloadTooLarge long before the body ends.
    sock = socket.create_connection((host, port), timeout=5)
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    stream = conn.get_next_available_stream_id()
    conn.send_headers(stream, [(":method", "POST"), (":path", "/3/device/" + "ab" * 32), (":scheme", "https"),
                               (":authority", "api.sandbox.push.apple.com"), ("apns-topic", "com.example.app")])
    sock.sendall(conn.data_to_send())
    total, sent, status, body = 50 * 1024 * 1024, 0, None, b""
    chunk = b"x" * 16384
    deadline = time.time() + PATIENCE
    sock.settimeout(0.05)
    ended = False
    while time.time() < deadline and not ended:
        window = min(conn.local_flow_control_window(stream), conn.max_outbound_frame_size) if status is None else 0
        if window > 0 and sent < total:
            try:
                conn.send_data(stream, chunk[:window], end_stream=sent + window >= total)
                sent += window
                sock.sendall(conn.data_to_send())
            except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError, OSError):
                window = 0
        try:
            data = sock.recv(65536)
        except socket.timeout:
            continue
        except OSError:
            break
        if not data:
            break
        for event in conn.receive_data(data):
            if isinstance(event, h2.events.ResponseReceived):
                status = int(dict(event.headers)[":status"])
            elif isinstance(event, h2.events.DataReceived):
                body += event.data
                conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, (h2.events.StreamEnded, h2.events.StreamReset)):
                ended = True
        try:
            sock.sendall(conn.data_to_send())
        except OSError:
            break
    sock.close()
    observed = {"status": status, "body": body.decode("utf-8", "replace"), "bytes_sent_before_answer": sent}
    problems = []
    if status != 413 or "PayloadTooLarge" not in observed["body"]:
        problems.append(f"expected 413 PayloadTooLarge, saw {status} {observed['body']!r}")
    if sent >= total:
        problems.append("the whole body was sent before the answer")
    return observed, problems


def send_and_read_until_closed(host, port, payload, seconds=PATIENCE):
    """Sends `payload` on a new connection and reads what comes back until the server closes
    it or `seconds` pass; returns (received, closed)."""
    sock = socket.create_connection((host, port), timeout=5)
    sock.sendall(payload)
    received, closed = b"", False
    deadline = time.time() + seconds
    while time.time() < deadline:
        sock.settimeout(0.2)
        try:
            chunk = sock.recv(4096)
        except socket.timeout:
            continue
        except OSError:
            closed = True
            break
        if not chunk:
            closed = True
            break
        received += chunk
    sock.close()
    return received, closed


def case_invalid_preface(host, port, tls_port):
    received, closed = send_and_read_until_closed(host, port, b"PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n" + bytes(range(256)) * 4)
    observed = {"closed": closed, "first_bytes": received[:40].hex()}
    return observed, ([] if closed else ["an invalid preface left the connection open"])


def case_http1_garbage(host, port, tls_port):
    received, closed = send_and_read_until_closed(
        host, port, b"GET /_pushmock/health HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header Without Colon\r\n\r\n")
    observed = {"closed": closed, "response": received.split(b"\r\n", 1)[0].decode("latin-1")}
    problems = []
    if not observed["response"].startswith("HTTP/1.1 400"):
        problems.append(f"expected 400, saw {observed['response']!r}")
    if not closed:
        problems.append("the connection stayed open after the 400")
    return observed, problems


def case_tls_garbage(host, port, tls_port):
    sock = socket.create_connection((host, tls_port), timeout=5)
    sock.sendall(os.urandom(4096))
    closed = False
    deadline = time.time() + PATIENCE
    while time.time() < deadline:
        sock.settimeout(0.2)
        try:
            if sock.recv(4096) == b"":
                closed = True
                break
        except socket.timeout:
            continue
        except OSError:
            closed = True
            break
    sock.close()
    return {"closed": closed}, ([] if closed else ["TLS garbage left the connection open"])


def open_descriptors(pid):
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return 0


def cpu_seconds(pid):
    # utime + stime of the whole process, from /proc/PID/stat (fields 14 and 15).
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def case_descriptor_exhaustion(host, port, tls_port):
    # Descriptors run out (EMFILE) while connections wait in the listen backlog: established
    # HTTP/2 connections (under the connection cap) fill the server's descriptor table, then
    # its soft RLIMIT_NOFILE is lowered below what it holds (what descriptors taken by anything
    # else would do), so every accept fails. The server must keep serving the connections it
    # has, back off instead of spinning, and accept again once descriptors are free. The test
    # runs it with long handshake/idle timeouts so the held connections stay.
    pid = SERVER_PID[0]
    baseline = open_descriptors(pid)
    # Enough that the lowered limit less the 64 descriptors the connection cap keeps in reserve
    # still leaves room for new clients once the held connections are gone.
    held = [raw_connection(host, port) for _ in range(120)]
    deadline = time.time() + PATIENCE
    while time.time() < deadline and open_descriptors(pid) < baseline + len(held):
        time.sleep(0.1)
    time.sleep(0.5)
    cpu_before = cpu_seconds(pid)
    time.sleep(4.0)
    cpu_baseline = cpu_seconds(pid) - cpu_before
    in_use = open_descriptors(pid)
    soft, _ = resource.prlimit(pid, resource.RLIMIT_NOFILE)
    lowered = in_use - 4
    subprocess.run(["prlimit", f"--pid={pid}", f"--nofile={lowered}:"], check=True)
    waiting = []
    for _ in range(20):
        try:
            waiting.append(socket.create_connection((host, port), timeout=2))
        except OSError:
            break
    # Exhausted for a while: the probes on the established connection keep running meanwhile.
    time.sleep(1.0)
    cpu_before = cpu_seconds(pid)
    time.sleep(4.0)
    cpu_while_exhausted = cpu_seconds(pid) - cpu_before
    refused_meanwhile = probe_once(host, port, timeout=1.0)
    # Free descriptors: the held connections and the waiting ones go (the lowered limit stays).
    for sock in held + waiting:
        sock.close()
    fresh = None
    deadline = time.time() + PATIENCE
    while time.time() < deadline and fresh != 200:
        fresh = probe_once(host, port)
        if fresh != 200:
            time.sleep(0.25)
    observed = {"held": len(held), "descriptors_in_use": in_use, "soft_limit": soft, "lowered_to": lowered,
                "waiting": len(waiting), "cpu_seconds_in_4s_before": round(cpu_baseline, 3),
                "cpu_seconds_in_4s_exhausted": round(cpu_while_exhausted, 3),
                "new_client_while_exhausted": refused_meanwhile, "new_client_after": fresh}
    subprocess.run(["prlimit", f"--pid={pid}", f"--nofile={soft}:"], check=False)
    problems = []
    # A spinning accept loop burns a whole core (4 s here); backing off 250 ms costs almost nothing.
    # The probes cost the same before and during. Spinning on accept4 (what NIO's own backoff
    # handler left, measured here at 0.37-0.55 s on a loaded machine) costs far more than the
    # few accepts a 250 ms pause allows (0.01 s).
    if cpu_while_exhausted > cpu_baseline + 0.2:
        problems.append(f"the server used {cpu_while_exhausted:.2f} s of CPU in 4 s while out of descriptors, "
                        f"{cpu_baseline:.2f} s before (busy loop?)")
    if refused_meanwhile == 200:
        problems.append("a new client was served while the descriptor table was full (the limit did not bite)")
    if fresh != 200:
        problems.append("no new client got in after descriptors were freed")
    return observed, problems


CASES = {name[len("case_"):].replace("_", "-"): function for name, function in globals().items()
         if name.startswith("case_")}


def main():
    if len(sys.argv) != 6 or sys.argv[1] not in CASES:
        print(f"usage: h2_abuse.py {{{','.join(sorted(CASES))}}} HOST CLEARTEXT_PORT TLS_PORT SERVER_PID", file=sys.stderr)
        return 2
    name, host, port, tls_port, pid = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    SERVER_PID[0] = pid
    rss_start = rss_kb(pid)
    peak = [rss_start]
    probes = [0, 0]
    stop = threading.Event()

    # The well-behaved client keeps one connection, as push providers do (a new connection
    # may legitimately be refused while an idle flood fills the connection cap).
    client = WellBehavedClient(host, port)

    def watch():
        # The well-behaved client and the RSS sampler, while the attack runs.
        while not stop.is_set():
            peak[0] = max(peak[0], rss_kb(pid))
            probes[0] += 1
            try:
                status = client.get()
            except OSError:
                status = None
            if status != 200:
                probes[1] += 1
            stop.wait(0.2)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        observed, problems = CASES[name](host, port, tls_port)
    except Exception as error:  # noqa: BLE001 - reported as the case's problem
        observed, problems = {}, [f"the case itself failed: {error!r}"]
    stop.set()
    watcher.join()
    client.close()
    peak[0] = max(peak[0], rss_kb(pid))
    if probe_until_answered(host, port) != 200:
        problems.append("the server did not answer a well-behaved client after the attack")
    if probes[1]:
        problems.append(f"{probes[1]} of {probes[0]} well-behaved requests failed during the attack")
    if peak[0] - rss_start > RSS_GROWTH_LIMIT_KB:
        problems.append(f"RSS grew from {rss_start} kB to {peak[0]} kB")
    print(json.dumps({"case": name, "ok": not problems, "problems": problems, "observed": observed,
                      "probes": probes[0], "probe_failures": probes[1], "rss_start_kb": rss_start,
                      "rss_peak_kb": peak[0]}))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
