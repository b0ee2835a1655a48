#!/usr/bin/env python3
"""Cross-checks StoryGate's token verification against the reference verifiers.

Starts a local x509 cert server and a `storygate serve` (ENV=prod) that trusts it, builds a corpus of tokens
(valid ones, one broken rule at a time, and random byte mutations), asks firebase-admin's verify_id_token
(which calls google-auth) and the gateway's GET /v1/me about each, and reports every disagreement.

Where StoryGate is deliberately stricter than the references because the specifications say so
(RFC 7515 `crit`, duplicate JSON members, non-canonical base64url, a future `auth_time` or `nbf`), the
case is listed as `stricter` and does not fail the run; any other disagreement does.

Usage: crosscheck.py --binary .build/debug/storygate [--mutations 300] [--seed 1]
"""
import argparse, base64, hashlib, http.server, json, os, random, socket, subprocess, sys, threading, time
import urllib.request, urllib.error

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa, ec
from cryptography.x509.oid import NameOID
import datetime

PROJECT = "xcheck-project"
ISSUER = "https://securetoken.google.com/" + PROJECT


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def make_cert(key, cn):
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=30)).sign(key, hashes.SHA256()))
    return cert.public_bytes(serialization.Encoding.PEM).decode()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Keys:
    def __init__(self):
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = "xcheck-kid-1"
        self.certs = {self.kid: make_cert(self.key, "xcheck")}


def sign(key, signing_input: bytes) -> bytes:
    return key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())


def token_from(header, payload, key, raw_header=None, raw_payload=None):
    h = raw_header if raw_header is not None else json.dumps(header, separators=(",", ":"))
    p = raw_payload if raw_payload is not None else json.dumps(payload, separators=(",", ":"))
    signing_input = (b64(h.encode()) + "." + b64(p.encode())).encode()
    return signing_input.decode() + "." + b64(sign(key, signing_input))


def base_claims(now):
    return {"iss": ISSUER, "aud": PROJECT, "auth_time": now - 60, "user_id": "user-1", "sub": "user-1",
            "iat": now - 60, "exp": now + 3000, "firebase": {"identities": {}, "sign_in_provider": "custom"}}


def corpus(keys, now, rng, mutations):
    """(name, token, category) — category 'stricter' marks cases where StoryGate follows a MUST the references skip."""
    k, kid = keys.key, keys.kid
    hdr = {"alg": "RS256", "kid": kid, "typ": "JWT"}
    cases = []

    def add(name, header=None, payload=None, key=None, category="same", **raw):
        cases.append((name, token_from(header or hdr, payload or base_claims(now), key or k, **raw), category))

    def claims(**changes):
        c = base_claims(now)
        for name, value in changes.items():
            if value is ...:
                c.pop(name, None)
            else:
                c[name] = value
        return c

    add("valid")
    add("valid without typ", header={"alg": "RS256", "kid": kid})
    add("valid with extra claims", payload=claims(email="a@example.com", name="Ada"))
    add("valid uid of 128 chars", payload=claims(sub="u" * 128))
    add("valid unicode uid", payload=claims(sub="ü" * 100))
    add("valid fractional times", payload=claims(iat=now - 10.5, exp=now + 100.25))
    add("expired", payload=claims(exp=now - 100))
    add("expired long ago", payload=claims(exp=now - 86400))
    add("exp missing", payload=claims(exp=...))
    add("iat missing", payload=claims(iat=...))
    add("iat in the future", payload=claims(iat=now + 300))
    add("exp as string", payload=claims(exp=str(now + 3000)))
    add("aud wrong", payload=claims(aud="other-project"))
    add("aud as list", payload=claims(aud=[PROJECT]))
    add("aud missing", payload=claims(aud=...))
    add("iss wrong", payload=claims(iss="https://securetoken.google.com/other"))
    add("iss http", payload=claims(iss="http://securetoken.google.com/" + PROJECT))
    add("iss missing", payload=claims(iss=...))
    add("sub empty", payload=claims(sub=""))
    add("sub too long", payload=claims(sub="u" * 129))
    add("sub number", payload=claims(sub=12345))
    add("sub missing", payload=claims(sub=...))
    add("custom token audience", payload=claims(aud="https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"))
    add("kid missing", header={"alg": "RS256", "typ": "JWT"})
    add("kid empty", header={"alg": "RS256", "kid": "", "typ": "JWT"})
    add("kid unknown", header={"alg": "RS256", "kid": "nope", "typ": "JWT"})
    for alg in ["none", "HS256", "RS512", "PS256", "ES256", "rs256", ""]:
        add("alg " + (alg or "empty"), header={"alg": alg, "kid": kid, "typ": "JWT"})
    add("alg missing", header={"kid": kid, "typ": "JWT"})
    add("signed by another key", key=keys.other)
    add("auth_time in the future", payload=claims(auth_time=now + 600), category="stricter")
    add("nbf in the future", payload=claims(nbf=now + 600), category="stricter")
    add("crit header", header={"alg": "RS256", "kid": kid, "crit": ["exp"]}, category="stricter")
    add("duplicate aud", raw_payload=json.dumps(base_claims(now), separators=(",", ":"))[:-1] + ',"aud":"' + PROJECT + '"}', category="stricter")

    valid = token_from(hdr, base_claims(now), k)
    h, p, s = valid.split(".")
    sig = base64.urlsafe_b64decode(s + "==")
    cases += [
        ("two segments", h + "." + p, "same"),
        ("four segments", valid + ".x", "same"),
        ("empty signature", h + "." + p + ".", "same"),
        ("signature truncated", h + "." + p + "." + b64(sig[:-1]), "same"),
        ("signature extended", h + "." + p + "." + b64(sig + b"\0"), "same"),
        ("signature flipped", h + "." + p + "." + b64(bytes([sig[0] ^ 1]) + sig[1:]), "same"),
        ("payload swapped", h + "." + b64(json.dumps(claims(sub="mallory")).encode()) + "." + s, "same"),
        ("padded signature", valid + "=" * (-len(s) % 4 or 4), "stricter"),
        ("header not JSON", b64(b"not json") + "." + p + "." + s, "same"),
        ("payload is a list", token_from(hdr, None, k, raw_payload="[1,2]"), "same"),
    ]
    # random byte mutations of valid tokens
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    for i in range(mutations):
        t = list(token_from(hdr, claims(sub="user-%d" % i), k))
        position = rng.randrange(len(t))
        if t[position] == ".":
            continue
        t[position] = rng.choice([c for c in alphabet if c != t[position]])
        # The last character carries 4 unused bits: a change there may only alter those (a non-canonical
        # encoding of the same signature, which RFC 4648 §3.5 lets a decoder reject and StoryGate does).
        category = "stricter" if position == len(t) - 1 else "mutation"
        cases.append(("mutation %d at %d" % (i, position), "".join(t), category))
    return cases


def reference_verify(token):
    import firebase_admin
    from firebase_admin import auth
    try:
        claims = auth.verify_id_token(token, clock_skew_seconds=0)
        return True, claims.get("uid")
    except Exception as error:  # any rejection
        if os.environ.get("CROSSCHECK_DEBUG"):
            import traceback; traceback.print_exc()
        return False, type(error).__name__


def gateway_verify(port, token):
    request = urllib.request.Request("http://127.0.0.1:%d/v1/me" % port, headers={"Authorization": "Bearer " + token})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return True, json.loads(response.read())["uid"]
    except urllib.error.HTTPError as error:
        body = json.loads(error.read() or b"{}")
        if error.code != 401:
            raise RuntimeError("gateway answered %d: %s" % (error.code, body))
        return False, body.get("error", {}).get("code")


def compare(cases, reference_verify, gateway_verify, title, agree):
    """Both verdicts on every case, printed; 1 when any disagreement is not one where StoryGate is stricter by spec."""
    import firebase_admin
    disagreements, stricter, counts = [], [], {"accept": 0, "reject": 0}
    for name, token, category in cases:
        ref_ok, ref_detail = reference_verify(token)
        gw_ok, gw_detail = gateway_verify(token)
        counts["accept" if gw_ok else "reject"] += 1
        if agree((ref_ok, ref_detail), (gw_ok, gw_detail)):
            continue
        line = "%-40s reference=%s(%s) storygate=%s(%s)" % (name, "accept" if ref_ok else "reject", ref_detail,
                                                             "accept" if gw_ok else "reject", gw_detail)
        if category == "stricter" and ref_ok and not gw_ok:
            stricter.append(line)
        else:
            disagreements.append(line)
    print("%s: %d tokens (%d accepted, %d rejected by StoryGate) against firebase-admin %s"
          % (title, len(cases), counts["accept"], counts["reject"], firebase_admin.__version__))
    for line in stricter:
        print("  stricter by spec: " + line)
    for line in disagreements:
        print("  DISAGREE: " + line)
    print("%d passed, %d failed" % (len(cases) - len(disagreements), len(disagreements)))
    return 1 if disagreements else 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=".build/debug/storygate")
    parser.add_argument("--mutations", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    keys = Keys()

    class CertHandler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = json.dumps(keys.certs).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Cache-Control", "public, max-age=3600")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_):
            pass

    cert_server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), CertHandler)
    threading.Thread(target=cert_server.serve_forever, daemon=True).start()
    certs_url = "http://127.0.0.1:%d/certs" % cert_server.server_address[1]

    import firebase_admin
    from firebase_admin import _token_gen, credentials
    _token_gen.ID_TOKEN_CERT_URI = certs_url
    os.environ.pop("FIREBASE_AUTH_EMULATOR_HOST", None)

    class NoCredential(credentials.Base):
        # verify_id_token needs no credential; the auth client only wants an object to hold.
        def get_credential(self):
            import google.auth.credentials
            return google.auth.credentials.AnonymousCredentials()

    firebase_admin.initialize_app(NoCredential(), {"projectId": PROJECT})

    port = free_port()
    env = dict(os.environ, ENV="prod", FIREBASE_PROJECT_ID=PROJECT, FIREBASE_CERTS_URL=certs_url, PORT=str(port),
               HOST="127.0.0.1", LOG_LEVEL="warning",
               # this measures verification: the per-address failed-auth limit would turn most answers into 429s
               AUTH_FAILURE_LIMIT="off",
               # prod needs a key for the AI functions; this run never calls them
               OPENAI_API_KEY="sk-crosscheck-unused", OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    gateway = subprocess.Popen([args.binary, "serve"], env=env)
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
        cases = corpus(keys, now, rng, args.mutations)
        sys.exit(compare(cases, reference_verify, lambda token: gateway_verify(port, token), "crosscheck",
                         agree=lambda ref, gw: ref[0] == gw[0] and (not ref[0] or ref[1] == gw[1])))
    finally:
        gateway.terminate()
        gateway.wait(timeout=20)
        cert_server.shutdown()


if __name__ == "__main__":
    main()
