#!/usr/bin/env python3
"""Local stand-ins for the two Google APIs a gateway with REVOCATION_CHECK=on calls, for bench/versus-haproxy.sh.

On 127.0.0.1 (standard library only):
  POST /token                                   the OAuth 2.0 token endpoint (the service account's token_uri): a
                                                JWT-bearer grant with an assertion gets {"access_token": ACCESS_TOKEN}
                                                (the assertion's signature is not checked: a bench, not a test)
  POST /v1/projects/PROJECT/accounts:lookup     Identity Toolkit: with that bearer token, {"localId": ["<uid>"]} gets
                                                the user, active (validSince 0), or disabled for a --disabled uid
  GET  /stats                                   what was asked, as JSON, so the bench can show that every state was
                                                cached before timing and that timing caused no lookup
"""
import argparse
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

ACCESS_TOKEN = "bench-token"
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"


class Counts:
    def __init__(self):
        self.lock = threading.Lock()
        self.token_requests = 0
        self.lookups = 0
        self.uids = set()
        self.refused = 0

    def snapshot(self):
        with self.lock:
            return {"token_requests": self.token_requests, "lookups": self.lookups, "uids": len(self.uids), "refused": self.refused}


def handler(project, disabled, counts):
    lookup_path = f"/v1/projects/{project}/accounts:lookup"

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as Google's endpoints and the gateway's libcurl pool use
        disable_nagle_algorithm = True  # headers and body go out in two writes: without it, 40 ms per answer

        def log_message(self, *arguments):
            pass

        def answer(self, status, value):
            body = json.dumps(value).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def refuse(self, status, message):
            with counts.lock:
                counts.refused += 1
            self.answer(status, {"error": {"code": status, "message": message}})

        def body(self):
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def do_GET(self):
            if self.path == "/stats":
                self.answer(200, counts.snapshot())
            else:
                self.refuse(404, "not found")

        def do_POST(self):
            body = self.body()
            if self.path == "/token":
                form = parse_qs(body.decode("ascii", "replace"))
                assertion = form.get("assertion", [""])[0]
                if form.get("grant_type", [""])[0] != JWT_BEARER:
                    return self.answer(400, {"error": "unsupported_grant_type"})
                if assertion.count(".") != 2:
                    return self.answer(400, {"error": "invalid_grant", "error_description": "no JWT assertion"})
                with counts.lock:
                    counts.token_requests += 1
                return self.answer(200, {"access_token": ACCESS_TOKEN, "expires_in": 3600, "token_type": "Bearer"})
            if self.path == lookup_path:
                if self.headers.get("Authorization") != "Bearer " + ACCESS_TOKEN:
                    return self.refuse(401, "no or wrong access token")
                try:
                    uids = json.loads(body)["localId"]
                    assert isinstance(uids, list) and uids and all(isinstance(uid, str) for uid in uids)
                except (ValueError, KeyError, TypeError, AssertionError):
                    return self.refuse(400, "INVALID_ARGUMENT: localId")
                users = []
                for uid in uids:
                    user = {"localId": uid, "validSince": "0"}
                    if uid in disabled:
                        user["disabled"] = True
                    users.append(user)
                with counts.lock:
                    counts.lookups += 1
                    counts.uids.update(uids)
                return self.answer(200, {"kind": "identitytoolkit#GetAccountInfoResponse", "users": users})
            self.refuse(404, "not found")

    return Handler


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--project", required=True, help="the Firebase project id whose users are looked up")
    parser.add_argument("--disabled", action="append", default=[], help="a uid reported as disabled (repeatable)")
    arguments = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", arguments.port), handler(arguments.project, set(arguments.disabled), Counts()))
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    main()
