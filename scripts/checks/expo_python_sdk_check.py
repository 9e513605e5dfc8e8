#!/usr/bin/env python3
"""Feeds PushMock's rendered Expo answers to the real `exponent_server_sdk` (PyPI).

Not part of the test suite yet. Usage:

    python3 -m venv /tmp/expo-venv && /tmp/expo-venv/bin/pip install exponent_server_sdk
    /tmp/expo-venv/bin/python scripts/checks/expo_python_sdk_check.py bodies.json

`bodies.json` maps a scenario name to {"status": <http status>, "body": "<exact body>"}, as
rendered by PushMockCore's ExpoTicketResponse / ExpoReceiptsResponse / ExpoRequestError
(scenario names below). A local HTTP/1.1 server answers the SDK with those bytes and records
what the SDK sent (method, path, protocol version, headers) so the report shows the wire.
"""
import gzip
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from exponent_server_sdk import (
    DeviceNotRegisteredError, InvalidCredentialsError, MessageRateExceededError,
    MessageTooBigError, PushClient, PushMessage, PushServerError, PushTicket, PushTicketError)

BODIES = json.load(open(sys.argv[1]))
SEEN = []
NEXT = {"name": None, "gzip": False}
TOKEN = "ExponentPushToken[aaaaaaaaaaaaaaaaaaaaaa]"
TOKEN2 = "ExponentPushToken[bbbbbbbbbbbbbbbbbbbbbb]"


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        length = int(self.headers.get("content-length", 0))
        raw = self.rfile.read(length)
        SEEN.append({"path": self.path, "version": self.request_version,
                     "headers": {k.lower(): v for k, v in self.headers.items()},
                     "body": raw.decode("utf-8", "replace")})
        scenario = BODIES[NEXT["name"]]
        payload = scenario["body"].encode()
        self.send_response(scenario["status"])
        self.send_header("content-type", "application/json; charset=utf-8")
        if NEXT["gzip"] and "gzip" in self.headers.get("accept-encoding", ""):
            payload = gzip.compress(payload)
            self.send_header("content-encoding", "gzip")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
client = PushClient(host="http://127.0.0.1:%d" % server.server_address[1])
failures = []


def check(name, condition, detail=""):
    print(("ok   " if condition else "FAIL ") + name + (" — " + detail if detail else ""))
    if not condition:
        failures.append(name)


def publish(scenario, messages, use_gzip=False):
    NEXT.update(name=scenario, gzip=use_gzip)
    return client.publish_multiple(messages)


# Tickets: ok + DeviceNotRegistered, and gzip-compressed answers.
for use_gzip in (False, True):
    tickets = publish("tickets_ok_and_errors", [PushMessage(to=TOKEN, body="hi"), PushMessage(to=TOKEN2, body="hi")], use_gzip)
    check("tickets parsed (gzip=%s)" % use_gzip, [t.status for t in tickets] == ["ok", "error"])
    check("ok ticket id", tickets[0].id == "0d44e896-1a04-4409-a56e-a7383641cdb7")
    try:
        tickets[1].validate_response()
        check("DeviceNotRegistered raised", False)
    except DeviceNotRegisteredError as error:
        check("DeviceNotRegistered raised", TOKEN2 in str(error))

for scenario, exception in [("ticket_too_big", MessageTooBigError), ("ticket_rate", MessageRateExceededError),
                            ("ticket_credentials", PushTicketError)]:
    ticket = publish(scenario, [PushMessage(to=TOKEN, body="hi")])[0]
    try:
        ticket.validate_response()
        check(scenario, False, "no exception")
    except exception as error:
        check(scenario, True, type(error).__name__)

# A single-object answer ({"data":{…}}) cannot come back to this SDK: it always sends an array.
try:
    publish("ticket_single_shape", [PushMessage(to=TOKEN)])
    check("single-object data refused by the SDK (it always sends arrays)", False)
except Exception as error:  # len() of a dict is 2, so the length check trips
    check("single-object data refused by the SDK (it always sends arrays)", True, type(error).__name__)

# Request-level errors: PushServerError with the errors list, whatever the status.
for name in [n for n in BODIES if n.startswith("error_")]:
    try:
        publish(name, [PushMessage(to=TOKEN)])
        check(name, False, "no exception")
    except PushServerError as error:
        code = error.errors[0]["code"] if error.errors else None
        check(name, code == name[len("error_"):],
              "HTTP %d, %s, details=%s" % (error.response.status_code, error.errors[0]["message"][:60],
                                           error.errors[0].get("details")))

# Receipts.
NEXT.update(name="receipts", gzip=False)
receipts = client.check_receipts_multiple([PushTicket(None, "ok", "", None, i)
                                           for i in ["0d44e896-1a04-4409-a56e-a7383641cdb7", "r2", "r3", "r4", "r5", "r6"]])
by_id = {r.id: r for r in receipts}
check("receipts parsed", sorted(by_id) == sorted(["0d44e896-1a04-4409-a56e-a7383641cdb7", "r2", "r3", "r4", "r5", "r6"]))
for receipt_id, exception in [("r2", DeviceNotRegisteredError), ("r3", MessageTooBigError),
                              ("r4", InvalidCredentialsError), ("r5", MessageRateExceededError), ("r6", PushTicketError)]:
    try:
        by_id[receipt_id].validate_response()
        check("receipt " + receipt_id, False, "no exception")
    except exception as error:
        check("receipt " + receipt_id, True, type(error).__name__)

# A `to` list: the SDK's own length check counts recipients but then indexes messages.
NEXT.update(name="tickets_ok_and_errors", gzip=False)
try:
    client.publish_multiple([PushMessage(to=[TOKEN, TOKEN2], body="hi")])
    print("note to-list publish worked")
except Exception as error:
    print("note to-list publish fails inside the SDK: %s: %s" % (type(error).__name__, error))

first = SEEN[0]
print("\nWhat the SDK sends:")
print("  %s %s %s" % ("POST", first["path"], first["version"]))
for key, value in sorted(first["headers"].items()):
    print("  %s: %s" % (key, value))
print("  body: %s" % first["body"])
print("  receipts body: %s" % [s for s in SEEN if s["path"].endswith("getReceipts")][0]["body"])
server.shutdown()
print("\n%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
