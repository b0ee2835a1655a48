#!/usr/bin/env python3
"""Cross-checks StoryGate's App Check verification against firebase-admin's app_check.verify_token.

Starts a local server for an App Check JWKS (and the ID-token certificates readiness needs), points the Admin SDK's
JWKS URL at it, starts `storygate serve` (ENV=prod, App Check enforced on /healthz) trusting it, builds a corpus of
App Check tokens (valid ones, one broken rule at a time, random byte mutations), asks both about each, and reports
every disagreement.

Where StoryGate is stricter than the SDK because the specification says so (the issue's rules and Google's
documented rule for custom backends: `iss` names this project's number, `aud` holds projects/<number> too, `sub`
non-empty, `exp` and `iat` required; RFC 7515 `crit`; duplicate JSON members; non-canonical base64url), the case is
listed as `stricter` and does not fail the run; any other disagreement does.

Usage: crosscheck_app_check.py --binary .build/debug/storygate [--mutations 200] [--seed 1]
"""
import argparse, base64, http.server, json, os, random, subprocess, sys, tempfile, threading, time
import urllib.request, urllib.error

from cryptography.hazmat.primitives.asymmetric import rsa

from crosscheck import b64, compare, free_port, make_cert, token_from

PROJECT = "xcheck-project"
NUMBER = "123456789012"
ISSUER = "https://firebaseappcheck.googleapis.com/" + NUMBER
APP = "1:123456789012:web:0a1b2c3d4e5f"


def jwk(key, kid):
    numbers = key.public_key().public_numbers()
    n = numbers.n.to_bytes((numbers.n.bit_length() + 7) // 8, "big")
    e = numbers.e.to_bytes((numbers.e.bit_length() + 7) // 8, "big")
    return {"kty": "RSA", "use": "sig", "alg": "RS256", "kid": kid, "n": b64(n), "e": b64(e)}


def base_claims(now):
    return {"sub": APP, "aud": ["projects/" + NUMBER, "projects/" + PROJECT], "provider": "debug", "iss": ISSUER,
            "exp": now + 3000, "iat": now - 60, "jti": "xcheck"}


def corpus(key, other, kid, now, rng, mutations):
    """(name, token, category): category 'stricter' marks cases where StoryGate follows a rule the SDK skips."""
    hdr = {"kid": kid, "typ": "JWT", "alg": "RS256"}
    cases = []

    def claims(**changes):
        c = base_claims(now)
        for name, value in changes.items():
            if value is ...:
                c.pop(name, None)
            else:
                c[name] = value
        return c

    def add(name, header=None, payload=None, signer=None, category="same", **raw):
        cases.append((name, token_from(header or hdr, payload if payload is not None else base_claims(now), signer or key, **raw), category))

    add("valid")
    add("valid aud reversed", payload=claims(aud=["projects/" + PROJECT, "projects/" + NUMBER]))
    add("valid aud with extra entry", payload=claims(aud=["projects/" + NUMBER, "projects/" + PROJECT, "projects/x"]))
    add("valid without jti and provider", payload=claims(jti=..., provider=...))
    add("valid fractional times", payload=claims(iat=now - 10.5, exp=now + 100.25))
    add("valid extra claims", payload=claims(extra={"a": [1, 2]}, flag=True))
    add("expired", payload=claims(exp=now - 100))
    add("expired long ago", payload=claims(exp=now - 86400, iat=now - 90000))
    add("exp as string", payload=claims(exp=str(now + 3000)), category="stricter")
    add("iat in the future", payload=claims(iat=now + 300))
    add("iat as string", payload=claims(iat=str(now)), category="stricter")
    add("nbf in the future", payload=claims(nbf=now + 600))
    add("exp missing", payload=claims(exp=...), category="stricter")
    add("iat missing", payload=claims(iat=...), category="stricter")
    add("iss of another project number", payload=claims(iss="https://firebaseappcheck.googleapis.com/999"), category="stricter")
    add("iss with the project id", payload=claims(iss="https://firebaseappcheck.googleapis.com/" + PROJECT), category="stricter")
    add("iss with a suffix", payload=claims(iss=ISSUER + "/x"), category="stricter")
    add("iss wrong host", payload=claims(iss="https://securetoken.google.com/" + PROJECT))
    add("iss http", payload=claims(iss="http://firebaseappcheck.googleapis.com/" + NUMBER))
    add("iss missing", payload=claims(iss=...))
    add("aud without the project number", payload=claims(aud=["projects/" + PROJECT]), category="stricter")
    add("aud without the project id", payload=claims(aud=["projects/" + NUMBER]))
    add("aud as a string", payload=claims(aud="projects/" + PROJECT))
    add("aud empty", payload=claims(aud=[]))
    add("aud missing", payload=claims(aud=...))
    add("aud of another project", payload=claims(aud=["projects/1", "projects/other"]))
    add("aud with a number element", payload=claims(aud=["projects/" + NUMBER, "projects/" + PROJECT, 5]), category="stricter")
    add("sub empty", payload=claims(sub=""), category="stricter")
    add("sub number", payload=claims(sub=42))
    add("sub missing", payload=claims(sub=...))
    add("typ missing", header={"kid": kid, "alg": "RS256"})
    add("typ lowercase", header={"kid": kid, "typ": "jwt", "alg": "RS256"})
    add("typ JWS", header={"kid": kid, "typ": "JWS", "alg": "RS256"})
    for alg in ["none", "HS256", "RS512", "PS256", "ES256", "rs256", ""]:
        add("alg " + (alg or "empty"), header={"kid": kid, "typ": "JWT", "alg": alg})
    add("alg missing", header={"kid": kid, "typ": "JWT"})
    add("kid missing", header={"typ": "JWT", "alg": "RS256"})
    add("kid empty", header={"kid": "", "typ": "JWT", "alg": "RS256"})
    add("kid unknown", header={"kid": "nope", "typ": "JWT", "alg": "RS256"})
    add("signed by another key", signer=other)
    add("crit header", header={"kid": kid, "typ": "JWT", "alg": "RS256", "crit": ["exp"]}, category="stricter")
    add("duplicate sub", raw_payload=json.dumps(base_claims(now), separators=(",", ":"))[:-1] + ',"sub":"' + APP + '"}', category="stricter")
    add("an ID token", payload={"iss": "https://securetoken.google.com/" + PROJECT, "aud": PROJECT, "sub": "u", "iat": now - 1, "exp": now + 100})

    valid = token_from(hdr, base_claims(now), key)
    h, p, s = valid.split(".")
    sig = base64.urlsafe_b64decode(s + "==")
    cases += [
        ("two segments", h + "." + p, "same"),
        ("four segments", valid + ".x", "same"),
        ("empty signature", h + "." + p + ".", "same"),
        ("signature truncated", h + "." + p + "." + b64(sig[:-1]), "same"),
        ("signature flipped", h + "." + p + "." + b64(bytes([sig[0] ^ 1]) + sig[1:]), "same"),
        ("payload swapped", h + "." + b64(json.dumps(base_claims(now) | {"sub": "1:9:web:f"}).encode()) + "." + s, "same"),
        ("padded signature", valid + "=" * (-len(s) % 4 or 4), "stricter"),
        ("header not JSON", b64(b"not json") + "." + p + "." + s, "same"),
    ]
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    for i in range(mutations):
        t = list(token_from(hdr, base_claims(now) | {"jti": "m%d" % i}, key))
        position = rng.randrange(len(t))
        if t[position] == ".":
            continue
        t[position] = rng.choice([c for c in alphabet if c != t[position]])
        # The last character carries unused bits: a change there may only alter those (non-canonical base64url).
        category = "stricter" if position == len(t) - 1 else "mutation"
        cases.append(("mutation %d at %d" % (i, position), "".join(t), category))
    return cases


def reference_verify(token):
    from firebase_admin import app_check
    try:
        claims = app_check.verify_token(token)
        return True, claims.get("app_id")
    except Exception as error:  # any rejection
        if os.environ.get("CROSSCHECK_DEBUG"):
            import traceback; traceback.print_exc()
        return False, type(error).__name__


def gateway_verify(port, token):
    request = urllib.request.Request("http://127.0.0.1:%d/healthz" % port, headers={"X-Firebase-AppCheck": token})
    try:
        with urllib.request.urlopen(request, timeout=10):
            return True, APP
    except urllib.error.HTTPError as error:
        body = json.loads(error.read() or b"{}")
        if error.code != 401:
            raise RuntimeError("gateway answered %d: %s" % (error.code, body))
        return False, body.get("error", {}).get("code")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=".build/debug/storygate")
    parser.add_argument("--mutations", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    kid = "xcheck-app-check-1"
    jwks = json.dumps({"keys": [jwk(key, kid)]}).encode()
    certs = json.dumps({"xcheck-id-kid": make_cert(key, "xcheck")}).encode()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = jwks if self.path == "/jwks" else certs
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Cache-Control", "public, max-age=21600")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d" % server.server_address[1]

    import firebase_admin
    from firebase_admin import app_check, credentials
    app_check._AppCheckService._JWKS_URL = base + "/jwks"

    class NoCredential(credentials.Base):
        # verify_token without consume calls no Google API; the service only wants a credential to hold.
        def get_credential(self):
            import google.auth.credentials
            return google.auth.credentials.AnonymousCredentials()

    firebase_admin.initialize_app(NoCredential(), {"projectId": PROJECT})

    config = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
    config.write("routes:\n  - {path: /healthz, builtin: healthz, auth: none, app_check: enforce}\n"
                 "  - {path: /readyz, builtin: readyz, auth: none}\n")
    config.close()
    port = free_port()
    env = dict(os.environ, ENV="prod", FIREBASE_PROJECT_ID=PROJECT, FIREBASE_PROJECT_NUMBER=NUMBER,
               FIREBASE_CERTS_URL=base + "/certs", APP_CHECK_JWKS_URL=base + "/jwks", PORT=str(port), HOST="127.0.0.1",
               LOG_LEVEL="warning", AUTH_FAILURE_LIMIT="off",
               OPENAI_API_KEY="sk-crosscheck-unused", OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    gateway = subprocess.Popen([args.binary, "serve", "--config", config.name], env=env)
    try:
        for _ in range(300):
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/readyz" % port, timeout=1):
                    break
            except Exception:
                time.sleep(0.1)
        else:
            sys.exit("gateway did not become ready")

        now = int(time.time())
        cases = corpus(key, other, kid, now, rng, args.mutations)
        sys.exit(compare(cases, reference_verify, lambda token: gateway_verify(port, token), "crosscheck (App Check)",
                         agree=lambda ref, gw: ref[0] == gw[0]))
    finally:
        gateway.terminate()
        gateway.wait(timeout=20)
        server.shutdown()
        os.unlink(config.name)


if __name__ == "__main__":
    main()
