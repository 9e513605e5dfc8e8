#!/usr/bin/env python3
"""A stand-in for the app backend's analytics endpoint (section 9 of the design): receives the
delivery receipts and open/click events PushMock posts as webhooks, checks each one's HMAC-SHA256
signature with the shared secret, answers 401 to a bad one, and appends every request to a JSON
Lines log.

    python3 receiver.py --port 9000 --secret template-s3cret --log events.jsonl
"""
import argparse
import hashlib
import hmac
import http.server
import json
import os
import threading

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int, default=9000, help="0 picks a free port (see --port-file)")
parser.add_argument("--secret", required=True)
parser.add_argument("--log", default="events.jsonl")
parser.add_argument("--port-file", help="written with the port once listening")
args = parser.parse_args()
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        expected = "sha256=" + hmac.new(args.secret.encode(), body, hashlib.sha256).hexdigest()
        verified = hmac.compare_digest(expected, self.headers.get("x-pushmock-signature-256", ""))
        entry = {
            "event": self.headers.get("x-pushmock-event"),
            "delivery": self.headers.get("x-pushmock-delivery"),
            "attempt": self.headers.get("x-pushmock-attempt"),
            "verified": verified,
            "body": json.loads(body) if verified else None,
        }
        with lock, open(args.log, "a") as log:
            log.write(json.dumps(entry) + "\n")
        answer = b"ok" if verified else b"bad signature"
        self.send_response(200 if verified else 401)
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *arguments):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
if args.port_file:
    with open(args.port_file + ".tmp", "w") as file:
        file.write(str(server.server_address[1]))
    os.rename(args.port_file + ".tmp", args.port_file)
print(f"listening on http://127.0.0.1:{server.server_address[1]}/push-events", flush=True)
server.serve_forever()
