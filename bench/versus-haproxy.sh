#!/usr/bin/env bash
# Side by side on one machine, in one run, interleaved rounds: StoryGate and HAProxy 2.6 each verifying a Firebase
# RS256 ID token, limiting per user and proxying to the same small nginx upstream; nginx as a plain proxy without
# auth and the upstream alone as the ceilings. Two modes: 1,000 users' tokens rotating (StoryGate's verified-token
# cache helps), and fresh (StoryGate with TOKEN_CACHE_SIZE=0: every request pays for RSA, as HAProxy 2.6 always does).
#
#   bench/versus-haproxy.sh                      # release build; 2 modes x 3 rounds x 4 targets x 10 s: ~5 minutes
#   bench/versus-haproxy.sh --binary PATH --out results.md
#   bench/versus-haproxy.sh --debug --duration 2 --rounds 1 --warmup 1   # smoke run (numbers meaningless)
#   bench/versus-haproxy.sh --redis --modes rotating      # the fleet configuration: StoryGate's limits in Redis
#   bench/versus-haproxy.sh --body 1024 --modes rotating  # POST with a 1 KiB JSON body to every target
#   bench/versus-haproxy.sh --modes rotating --rules revocation,app-check   # what the session rules cost
#
# --rules adds StoryGate targets beside the plain one, each its own gateway on the same upstream with the same tokens,
# in the same interleaved rounds (rotating mode only): storygate-revocation (REVOCATION_CHECK=on against local Python
# stand-ins for Google's token endpoint and Identity Toolkit, bench/google/stand-in.py; every user's state looked up
# before timing and cached for the whole run) and storygate-appcheck (APP_CHECK=enforce, every request with a valid
# dev App Check token). The summary gives each one's ratio to the plain StoryGate row and to HAProxy.
#
# Installs haproxy, nginx and wrk with apt-get when missing (their services are not started). Checks every auth
# target before timing (a valid token -> 200 with the upstream's body; no token, expired, wrong key, tampered
# signature, wrong audience, alg none -> 401; with --rules also a disabled user -> 403 USER_DISABLED and no App Check
# token -> 401 APP_CHECK_FAILED), so nobody benchmarks a misconfigured gateway. Method, and what each target does:
# BENCHMARKS.md, "Side by side with HAProxy".
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  cat <<'EOF'
usage: bench/versus-haproxy.sh [options]

  --binary PATH          use this storygate binary (default: a release build of this checkout)
  --debug                build and use a debug binary (smoke runs only: the numbers mean nothing)
  --rounds N             interleaved rounds per mode (default 3)
  --duration SECONDS     one target's run in a round (default 10)
  --warmup SECONDS       an unmeasured run of each target before a mode's rounds (default 2)
  --connections N        wrk connections (default 64)
  --threads N            wrk threads (default 1; see BENCHMARKS.md for why)
  --tokens N             distinct users' tokens rotating (default 1000)
  --modes LIST           rotating,fresh (default both)
  --targets LIST         storygate,haproxy,nginx,upstream (default all four, in that order within a round)
  --rules LIST           revocation,app-check: also time StoryGate with that rule on, as the targets
                         storygate-revocation (REVOCATION_CHECK=on, states cached) and storygate-appcheck
                         (APP_CHECK=enforce), right after storygate in each round; rotating mode only
  --app-check-tokens N   distinct App Check tokens rotating for storygate-appcheck (default 16)
  --storygate-route R    proxy (GET /api/bench through the configured upstream route), me (GET /v1/me: auth
                         only, NO PROXY HOP; HAProxy then answers by itself too), or auto (default: proxy when
                         the binary takes --config, else me)
  --access-log           StoryGate writes its access log (default off: HAProxy and nginx log nothing here)
  --redis                StoryGate keeps its rate limits in a local redis-server (REDIS_URL, the fleet
                         configuration deploy/ ships); HAProxy keeps its stick table
  --body BYTES           every target gets POST with a JSON body of BYTES bytes instead of GET
  --base-port N          ports N..N+9 on 127.0.0.1 (default 18200)
  --out FILE             also write the results (markdown) to FILE
  --keep                 keep the temporary directory (configs, logs, tokens, wrk output)
EOF
}

command_line="$*"
mode=release binary="" rounds=3 duration=10 warmup=2 connections=64 threads=1 token_count=1000
modes="rotating,fresh" targets="storygate,haproxy,nginx,upstream" route=auto access_log=0 base_port=18200 out=""
redis=0 body_bytes=0 rules="" app_check_token_count=16
while (($#)); do
  case $1 in
    --binary) mode=path binary=$2; shift ;;
    --debug) mode=debug ;;
    --rounds) rounds=$2; shift ;;
    --duration) duration=${2%s}; shift ;;
    --warmup) warmup=${2%s}; shift ;;
    --connections) connections=$2; shift ;;
    --threads) threads=$2; shift ;;
    --tokens) token_count=$2; shift ;;
    --modes) modes=$2; shift ;;
    --targets) targets=$2; shift ;;
    --rules) rules=$2; shift ;;
    --app-check-tokens) app_check_token_count=$2; shift ;;
    --storygate-route) route=$2; shift ;;
    --access-log) access_log=1 ;;
    --redis) redis=1 ;;
    --body) body_bytes=$2; shift ;;
    --base-port) base_port=$2; shift ;;
    --out) out=$2; shift ;;
    --keep) BENCH_KEEP=1 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; bench_die "unknown option $1" ;;
  esac
  shift
done
IFS=, read -r -a mode_list <<<"$modes"
IFS=, read -r -a target_list <<<"$targets"
for m in "${mode_list[@]}"; do case $m in rotating | fresh) ;; *) bench_die "--modes: rotating or fresh, not $m" ;; esac; done
for t in "${target_list[@]}"; do case $t in storygate | haproxy | nginx | upstream) ;; *) bench_die "--targets: unknown target $t" ;; esac; done
# Each rule is one more StoryGate target, timed right after the plain one (or first, without it).
revocation=0 app_check=0 rule_targets=()
IFS=, read -r -a rule_list <<<"$rules"
for rule in "${rule_list[@]}"; do
  case $rule in
    revocation) revocation=1; rule_targets+=(storygate-revocation) ;;
    app-check) app_check=1; rule_targets+=(storygate-appcheck) ;;
    *) bench_die "--rules: revocation or app-check, not $rule" ;;
  esac
done
if ((${#rule_targets[@]})); then
  [[ ",$modes," == *,rotating,* ]] || bench_die "--rules: the rule targets run in rotating mode only (add --modes rotating)"
  with_rules=()
  for t in "${target_list[@]}"; do
    with_rules+=("$t")
    [ "$t" = storygate ] && with_rules+=("${rule_targets[@]}")
  done
  [[ " ${target_list[*]} " == *" storygate "* ]] || with_rules=("${rule_targets[@]}" "${target_list[@]}")
  target_list=("${with_rules[@]}")
fi
[[ "$app_check_token_count" =~ ^[1-9][0-9]*$ ]] || bench_die "--app-check-tokens: a positive number, not $app_check_token_count"
# The targets timed in a mode: the rule targets only in rotating mode (their figure is the rotating one).
mode_targets() {
  local t
  for t in "${target_list[@]}"; do
    [ "$1" = fresh ] && [[ $t == storygate-?* ]] && continue
    printf '%s\n' "$t"
  done
}
is_storygate() { [[ $1 == storygate || $1 == storygate-?* ]]; }
case $route in auto | proxy | me) ;; *) bench_die "--storygate-route: auto, proxy or me, not $route" ;; esac
[ -z "$out" ] || out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")

[[ "$body_bytes" =~ ^[0-9]+$ ]] || bench_die "--body: a number of bytes, not $body_bytes"
bench_install wrk haproxy nginx curl openssl python3
((redis == 0)) || bench_install redis-server
haproxy_version=$(haproxy -v 2>&1 | sed -n 's/^HAProxy version \([0-9]*\.[0-9]*\).*/\1/p' | head -1)
awk -v v="$haproxy_version" 'BEGIN { split(v, p, "."); exit !(p[1] > 2 || (p[1] == 2 && p[2] >= 6)) }' ||
  bench_die "haproxy $haproxy_version is too old: http_auth_bearer needs 2.6 (Debian 12's package)"

bench_init versus
binary=$(bench_storygate_binary "$mode" "$binary")
if [ "$route" = auto ]; then
  if bench_supports_config "$binary"; then route=proxy; else route=me; fi
fi
if [ "$route" = proxy ] && ! bench_supports_config "$binary"; then
  bench_die "this storygate has no --config, so no proxy route: use --storygate-route me (or a newer binary)"
fi
if ((app_check)) && ! "$binary" mint-app-check --help >/dev/null 2>&1; then
  bench_die "--rules app-check: this storygate has no App Check (no mint-app-check command)"
fi

upstream_port=$base_port
nginx_port=$((base_port + 1))
haproxy_port=$((base_port + 2))
haproxy_local_port=$((base_port + 3))
storygate_port=$((base_port + 4))
storygate_fresh_port=$((base_port + 5))
redis_port=$((base_port + 6))
storygate_revocation_port=$((base_port + 7))
storygate_appcheck_port=$((base_port + 8))
google_port=$((base_port + 9))
bench_require_ports "$upstream_port" "$nginx_port" "$haproxy_port" "$haproxy_local_port" "$storygate_port" "$storygate_fresh_port"
((redis == 0)) || bench_require_ports "$redis_port"
((revocation == 0)) || bench_require_ports "$storygate_revocation_port" "$google_port"
((app_check == 0)) || bench_require_ports "$storygate_appcheck_port"

project=storygate-dev
issuer="https://securetoken.google.com/$project"
T=$BENCH_TMP

# --- tokens -------------------------------------------------------------------------------------------------
bench_log "minting $token_count tokens and the bad ones for the checks"
bench_mint "$binary" "$token_count" "$T/tokens.txt"
expired_minted=$(date +%s)
bench_mint "$binary" 1 "$T/expired.txt" 1 expired
ENV=dev "$binary" mint-token --uid audience --project other-project --certs-dir "$BENCH_REPO/certs/dev" >"$T/wrong-audience.txt" 2>/dev/null
# Signed by another key, under the dev certificate's kid: the signature is what must fail.
mkdir -p "$T/wrong-key"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/wrong-key/signing-key.pem" -out "$T/wrong-key/cert.pem" -days 2 \
  -subj "/CN=storygate bench wrong key" >/dev/null 2>&1 || bench_die "openssl could not make a throwaway key"
python3 - "$BENCH_REPO/certs/dev/certs.json" "$T/wrong-key/cert.pem" "$T/wrong-key/certs.json" "$T/cert.pem" <<'PY'
import json, sys
dev = json.load(open(sys.argv[1]))
kid, pem = next(iter(dev.items()))
json.dump({kid: open(sys.argv[2]).read()}, open(sys.argv[3], "w"))
open(sys.argv[4], "w").write(pem)  # the dev certificate as PEM
PY
# HAProxy 2.6's jwt_verify reads its key file with PEM_read_bio_PUBKEY: a PEM public key, not a certificate (given
# a certificate it warns "file not found" and every verification fails with -5). So: the dev certificate's key.
openssl x509 -in "$T/cert.pem" -pubkey -noout >"$T/dev-public-key.pem" || bench_die "openssl could not read the dev certificate"
ENV=dev "$binary" mint-token --uid wrongkey --certs-dir "$T/wrong-key" >"$T/wrong-key.txt" 2>/dev/null ||
  bench_die "could not mint the wrong-key token"
valid_token=$(head -1 "$T/tokens.txt")
IFS=. read -r valid_header valid_payload valid_signature <<<"$valid_token"
middle=$((${#valid_signature} / 2))
flipped=B
[ "${valid_signature:middle:1}" = B ] && flipped=C
tampered_token="$valid_header.$valid_payload.${valid_signature:0:middle}$flipped${valid_signature:middle+1}"
none_header=$(printf '{"alg":"none","typ":"JWT"}' | base64 -w0 | tr '+/' '-_' | tr -d '=')
none_token="$none_header.$valid_payload."
# The rules: a user the Identity Toolkit stand-in reports disabled; App Check tokens of the dev project number.
disabled_uid=bench-disabled
app_check_project_number=100000000000
if ((revocation)); then
  ENV=dev "$binary" mint-token --uid "$disabled_uid" --certs-dir "$BENCH_REPO/certs/dev" >"$T/disabled.txt" 2>/dev/null ||
    bench_die "could not mint the disabled user's token"
fi
if ((app_check)); then
  bench_log "minting $app_check_token_count App Check tokens"
  : >"$T/app-check-tokens.txt"
  for ((i = 1; i <= app_check_token_count; i++)); do
    ENV=dev "$binary" mint-app-check --app-id "1:$app_check_project_number:web:bench$i" --ttl 86400 \
      --project-number "$app_check_project_number" --project "$project" --certs-dir "$BENCH_REPO/certs/dev" \
      >>"$T/app-check-tokens.txt" 2>/dev/null || bench_die "storygate mint-app-check failed"
  done
  app_check_token=$(head -1 "$T/app-check-tokens.txt")
fi

# --- configs --------------------------------------------------------------------------------------------------
render() { # render TEMPLATE OUTPUT: fills the @NAME@ placeholders
  sed -e "s|@TMP@|$T|g" -e "s|@UPSTREAM_PORT@|$upstream_port|g" -e "s|@PROXY_PORT@|$2|g" \
    -e "s|@LOCAL_PORT@|$haproxy_local_port|g" -e "s|@PUBLIC_KEY@|$T/dev-public-key.pem|g" -e "s|@ISSUER@|$issuer|g" \
    -e "s|@AUDIENCE@|$project|g" -e "s|@THREADS@|$(nproc)|g" "$1" >"$3"
}
mkdir -p "$T/nginx-upstream" "$T/nginx-proxy" "$T/media"
render "$BENCH_DIR/nginx/upstream.conf.in" "$upstream_port" "$T/nginx-upstream.conf"
render "$BENCH_DIR/nginx/proxy.conf.in" "$nginx_port" "$T/nginx-proxy.conf"
render "$BENCH_DIR/haproxy/haproxy.cfg.in" "$haproxy_port" "$T/haproxy.cfg"
render "$BENCH_DIR/storygate/bench.yaml" "$storygate_port" "$T/storygate.yaml"
haproxy -c -f "$T/haproxy.cfg" >"$T/haproxy-check.log" 2>&1 || { cat "$T/haproxy-check.log" >&2; bench_die "haproxy refused its config"; }
# haproxy -c passes with only a warning when jwt_verify cannot load its key; that would benchmark 401s.
! grep -q 'WARNING' "$T/haproxy-check.log" || { cat "$T/haproxy-check.log" >&2; bench_die "haproxy warned about its config (above)"; }
nginx -t -q -p "$T" -e "$T/nginx-check.log" -c "$T/nginx-upstream.conf" 2>&1 || bench_die "nginx refused the upstream config"
nginx -t -q -p "$T" -e "$T/nginx-check.log" -c "$T/nginx-proxy.conf" 2>&1 || bench_die "nginx refused the proxy config"
if ((revocation)); then
  # A throwaway service account whose token_uri is the local stand-in (http to loopback is allowed).
  openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$T/service-account-key.pem" 2>/dev/null ||
    bench_die "openssl could not make the service account's key"
  python3 - "$T/service-account-key.pem" "http://127.0.0.1:$google_port/token" "$project" "$T/service-account.json" <<'PY'
import json, sys
key, token_uri, project, out = sys.argv[1:]
json.dump({"type": "service_account", "project_id": project, "private_key_id": "bench", "private_key": open(key).read(),
           "client_email": f"bench@{project}.iam.gserviceaccount.com", "token_uri": token_uri}, open(out, "w"))
PY
fi

# --- processes ----------------------------------------------------------------------------------------------
wait_or_die() { # wait_or_die URL PID NAME LOG [STATUS]
  bench_wait_http "$1" "$2" 60 "${5:-200}" || { sleep 0.5; cat "$4" >&2 2>/dev/null; bench_die "$3 did not start (log above)"; }
}
bench_log "starting the upstream, nginx, HAProxy and StoryGate ($route route)"
bench_spawn nginx-upstream "$T/nginx-upstream.out" nginx -p "$T" -e "$T/nginx-upstream.error.log" -c "$T/nginx-upstream.conf" -g 'daemon off;'
upstream_pid=$BENCH_LAST_PID
bench_spawn nginx-proxy "$T/nginx-proxy.out" nginx -p "$T" -e "$T/nginx-proxy.error.log" -c "$T/nginx-proxy.conf" -g 'daemon off;'
nginx_pid=$BENCH_LAST_PID
bench_spawn haproxy "$T/haproxy.out" haproxy -db -f "$T/haproxy.cfg"
haproxy_pid=$BENCH_LAST_PID
if ((redis)); then
  bench_spawn redis "$T/redis.out" redis-server --bind 127.0.0.1 --port "$redis_port" --save '' --appendonly no
  redis_pid=$BENCH_LAST_PID
fi
if ((revocation)); then
  bench_spawn google "$T/google.out" python3 "$BENCH_DIR/google/stand-in.py" --port "$google_port" --project "$project" --disabled "$disabled_uid"
  google_pid=$BENCH_LAST_PID
  wait_or_die "http://127.0.0.1:$google_port/stats" "$google_pid" "the Google stand-in" "$T/google.out"
fi
# The request body, when POSTing: a JSON object of exactly body_bytes bytes.
wrk_request=()
if ((body_bytes > 0)); then
  python3 -c 'import json, sys; n = int(sys.argv[1]); pad = max(0, n - len(json.dumps({"story": ""}))); sys.stdout.write(json.dumps({"story": "a" * pad}))' \
    "$body_bytes" >"$T/body.json"
  wrk_request=(WRK_METHOD=POST "WRK_BODY_FILE=$T/body.json")
fi

# The load-test environment without RATE_LIMIT_SHADOW=all: the api limit is a real one here, like HAProxy's stick
# table (see bench/storygate/bench.yaml).
storygate_environment=()
mapfile -t storygate_environment < <(bench_storygate_env | grep -v '^RATE_LIMIT_SHADOW=')
if ((access_log)); then
  storygate_environment+=(ACCESS_LOG=true LOG_LEVEL=info)
else
  storygate_environment+=(ACCESS_LOG=false LOG_LEVEL=warning)
fi
((redis == 0)) || storygate_environment+=("REDIS_URL=redis://127.0.0.1:$redis_port")
start_storygate() { # start_storygate PORT CACHE_SIZE NAME [VAR=VALUE...]
  local port=$1 cache_size=$2 name=$3
  shift 3
  local arguments=(serve --host 127.0.0.1 --port "$port")
  [ "$route" = proxy ] && arguments+=(--config "$T/storygate.yaml")
  bench_bounded_log "$T/$name.log"
  bench_spawn "$name" "$BENCH_FIFO" env -u OPENAI_API_KEY -u OPENAI_API_KEY_FILE -u OPENAI_BASE_URL -u STORYGATE_CONFIG \
    -u FIREBASE_PROJECT_ID -u FIREBASE_PROJECT_NUMBER -u REVOCATION_CHECK -u APP_CHECK -u GOOGLE_APPLICATION_CREDENTIALS \
    "${storygate_environment[@]}" "TOKEN_CACHE_SIZE=$cache_size" "$@" "$binary" "${arguments[@]}"
}
start_storygate "$storygate_port" 10000 storygate
storygate_pid=$BENCH_LAST_PID
start_storygate "$storygate_fresh_port" 0 storygate-fresh
storygate_fresh_pid=$BENCH_LAST_PID
# The rules, each on a gateway otherwise the same as the rotating one. The bench's tokens are of the dev project:
# naming it the configured project puts them under the revocation check (its certificate stays the local dev one).
# The states are kept a day, so every user looked up before timing stays cached for the whole run.
if ((revocation)); then
  start_storygate "$storygate_revocation_port" 10000 storygate-revocation REVOCATION_CHECK=on "FIREBASE_PROJECT_ID=$project" \
    "GOOGLE_APPLICATION_CREDENTIALS=$T/service-account.json" "IDENTITY_TOOLKIT_URL=http://127.0.0.1:$google_port" \
    REVOCATION_MAX_AGE_SECONDS=86400
  storygate_revocation_pid=$BENCH_LAST_PID
fi
if ((app_check)); then
  start_storygate "$storygate_appcheck_port" 10000 storygate-appcheck APP_CHECK=enforce "FIREBASE_PROJECT_NUMBER=$app_check_project_number"
  storygate_appcheck_pid=$BENCH_LAST_PID
fi

wait_or_die "http://127.0.0.1:$upstream_port/" "$upstream_pid" "the nginx upstream" "$T/nginx-upstream.error.log"
wait_or_die "http://127.0.0.1:$nginx_port/" "$nginx_pid" "nginx (proxy)" "$T/nginx-proxy.error.log"
wait_or_die "http://127.0.0.1:$haproxy_port/" "$haproxy_pid" "HAProxy" "$T/haproxy.out" 401
wait_or_die "http://127.0.0.1:$storygate_port/readyz" "$storygate_pid" "StoryGate" "$T/storygate.log"
wait_or_die "http://127.0.0.1:$storygate_fresh_port/readyz" "$storygate_fresh_pid" "StoryGate (fresh)" "$T/storygate-fresh.log"
((revocation == 0)) || wait_or_die "http://127.0.0.1:$storygate_revocation_port/readyz" "$storygate_revocation_pid" "StoryGate (revocation)" "$T/storygate-revocation.log"
((app_check == 0)) || wait_or_die "http://127.0.0.1:$storygate_appcheck_port/readyz" "$storygate_appcheck_pid" "StoryGate (App Check)" "$T/storygate-appcheck.log"

# --- correctness before timing ------------------------------------------------------------------------------
if [ "$route" = proxy ]; then sg_path=/api/bench; ha_port=$haproxy_port; else sg_path=/v1/me; ha_port=$haproxy_local_port; fi
proxy_path=/api/bench
sleep_until=$((expired_minted + 2))
while (($(date +%s) < sleep_until)); do sleep 0.2; done
failures=0
check() { # check NAME URL EXPECTED_STATUS BODY_PATTERN [TOKEN] [APP_CHECK_TOKEN]
  local name=$1 url=$2 want=$3 pattern=$4 token=${5:-} app_check_header=${6:-} status
  local arguments=(-s -o "$T/check.body" -D "$T/check.headers" -w '%{http_code}' --max-time 10)
  [ -n "$token" ] && arguments+=(-H "Authorization: Bearer $token")
  [ -n "$app_check_header" ] && arguments+=(-H "X-Firebase-AppCheck: $app_check_header")
  status=$(curl "${arguments[@]}" "$url" || true)
  if [ "$status" = "$want" ] && { [ -z "$pattern" ] || grep -q -- "$pattern" "$T/check.body"; }; then
    printf '  ok    %-44s %s\n' "$name" "$status" >&2
  else
    printf '  FAIL  %-44s got %s, want %s%s: %s\n' "$name" "$status" "$want" "${pattern:+ with $pattern}" "$(head -c 300 "$T/check.body")" >&2
    failures=$((failures + 1))
  fi
}
bench_log "checking every target before timing"
ok_body='"ok":true'
storygate_body=$ok_body
[ "$route" = me ] && storygate_body='"uid":"load-1"'
checked=(storygate storygate-fresh)
((revocation == 0)) || checked+=(storygate-revocation)
((app_check == 0)) || checked+=(storygate-appcheck)
for target in "${checked[@]}" haproxy; do
  # storygate-appcheck gets a valid App Check token with each, so these checks are about the ID token.
  app_check_header=""
  case $target in
    storygate) url="http://127.0.0.1:$storygate_port$sg_path"; body=$storygate_body ;;
    storygate-fresh) url="http://127.0.0.1:$storygate_fresh_port$sg_path"; body=$storygate_body ;;
    storygate-revocation) url="http://127.0.0.1:$storygate_revocation_port$sg_path"; body=$storygate_body ;;
    storygate-appcheck) url="http://127.0.0.1:$storygate_appcheck_port$sg_path"; body=$storygate_body; app_check_header=$app_check_token ;;
    haproxy) url="http://127.0.0.1:$ha_port$proxy_path"; body=$ok_body ;;
  esac
  check "$target: valid token" "$url" 200 "$body" "$valid_token" "$app_check_header"
  check "$target: no token" "$url" 401 "" "" "$app_check_header"
  check "$target: expired token" "$url" 401 "" "$(cat "$T/expired.txt")" "$app_check_header"
  check "$target: signed by another key" "$url" 401 "" "$(cat "$T/wrong-key.txt")" "$app_check_header"
  check "$target: tampered signature" "$url" 401 "" "$tampered_token" "$app_check_header"
  check "$target: wrong audience and issuer" "$url" 401 "" "$(cat "$T/wrong-audience.txt")" "$app_check_header"
  check "$target: alg none" "$url" 401 "" "$none_token" "$app_check_header"
  check "$target: not a JWT" "$url" 401 "" "not-a-token" "$app_check_header"
done
# The rules are on: a user Identity Toolkit reports disabled is refused, and so is a request without App Check.
if ((revocation)); then
  check "storygate-revocation: disabled user" "http://127.0.0.1:$storygate_revocation_port$sg_path" 403 '"USER_DISABLED"' "$(cat "$T/disabled.txt")"
fi
if ((app_check)); then
  check "storygate-appcheck: no App Check token" "http://127.0.0.1:$storygate_appcheck_port$sg_path" 401 '"APP_CHECK_FAILED"' "$valid_token"
  flipped=A
  [ "${app_check_token: -1}" = A ] && flipped=B
  check "storygate-appcheck: tampered App Check token" "http://127.0.0.1:$storygate_appcheck_port$sg_path" 401 '"APP_CHECK_FAILED"' \
    "$valid_token" "${app_check_token%?}$flipped"
fi
if [ "$route" = proxy ]; then
  check "storygate: the api limit is on the route" "http://127.0.0.1:$storygate_port$sg_path" 200 "$ok_body" "$valid_token"
  grep -qi '^ratelimit-policy: "api"' "$T/check.headers" || { printf '  FAIL  storygate: no RateLimit-Policy "api" header\n' >&2; failures=$((failures + 1)); }
fi
check "nginx proxy: passes on" "http://127.0.0.1:$nginx_port$proxy_path" 200 "$ok_body" "$valid_token"
check "upstream alone" "http://127.0.0.1:$upstream_port$proxy_path" 200 "$ok_body" "$valid_token"
((failures == 0)) || { BENCH_KEEP=1; bench_die "$failures check(s) failed: not benchmarking a misconfigured target"; }

# Every user's revocation state looked up (one request per user, all in one curl), so timing finds them cached.
google_stat() { curl -s --max-time 5 "http://127.0.0.1:$google_port/stats" | python3 -c 'import json, sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
if ((revocation)); then
  bench_log "looking up the $token_count users' states on storygate-revocation before timing"
  separator=""
  while read -r token; do
    printf '%surl = "http://127.0.0.1:%s%s"\nheader = "Authorization: Bearer %s"\noutput = "/dev/null"\nwrite-out = "%%{http_code}\\n"\n' \
      "$separator" "$storygate_revocation_port" "$sg_path" "$token"
    separator=$'next\n'
  done <"$T/tokens.txt" >"$T/prime.curl"
  primed=$(curl -s --max-time 300 --config "$T/prime.curl" | grep -c '^200$' || true)
  ((primed == token_count)) || { BENCH_KEEP=1; bench_die "priming storygate-revocation: $primed of $token_count requests got 200"; }
  looked_up=$(google_stat uids)
  # The users of the tokens, plus the disabled one from the checks.
  ((looked_up >= token_count + 1)) || { BENCH_KEEP=1; bench_die "the Identity Toolkit stand-in saw $looked_up users, not $((token_count + 1))"; }
  lookups_before_timing=$(google_stat lookups)
fi

# --- rounds -------------------------------------------------------------------------------------------------
declare -A target_url target_pids
target_url[haproxy]="http://127.0.0.1:$ha_port"
target_url[nginx]="http://127.0.0.1:$nginx_port"
target_url[upstream]="http://127.0.0.1:$upstream_port"
target_pids[haproxy]=$(bench_tree "$haproxy_pid" | tr '\n' ' ')
target_pids[nginx]=$(bench_tree "$nginx_pid" | tr '\n' ' ')
target_pids[upstream]=$(bench_tree "$upstream_pid" | tr '\n' ' ')
target_url[storygate-revocation]="http://127.0.0.1:$storygate_revocation_port"
target_pids[storygate-revocation]=${storygate_revocation_pid:-}
target_url[storygate-appcheck]="http://127.0.0.1:$storygate_appcheck_port"
target_pids[storygate-appcheck]=${storygate_appcheck_pid:-}
target_path() { if is_storygate "$1"; then printf '%s\n' "$sg_path"; else printf '%s\n' "$proxy_path"; fi; }
# What wrk sends besides the tokens: storygate-appcheck's requests carry App Check tokens too.
target_request() {
  printf '%s\n' "WRK_PATH=$(target_path "$1")" "${wrk_request[@]}"
  [ "$1" = storygate-appcheck ] && printf '%s\n' "WRK_APP_CHECK_FILE=$T/app-check-tokens.txt"
  return 0
}

printf 'mode\tround\ttarget\trps\tp50_us\tp99_us\tcpu_s\tper_cpu_s\terrors\tuser_us\tsystem_us\n' >"$T/rounds.tsv"
runs=0
for m in "${mode_list[@]}"; do runs=$((runs + $(mode_targets "$m" | wc -l))); done
total_seconds=$((runs * (warmup + rounds * duration)))
bench_log "timing: ${#mode_list[@]} mode(s) x $rounds round(s) x ${target_list[*]} x ${duration}s (+ ${warmup}s warm-up each): about $((total_seconds / 60)) min $((total_seconds % 60)) s"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
bad_rounds=0
for m in "${mode_list[@]}"; do
  if [ "$m" = rotating ]; then
    target_url[storygate]="http://127.0.0.1:$storygate_port"; target_pids[storygate]=$storygate_pid
  else
    target_url[storygate]="http://127.0.0.1:$storygate_fresh_port"; target_pids[storygate]=$storygate_fresh_pid
  fi
  mapfile -t timed < <(mode_targets "$m")
  if ((warmup > 0)); then
    for t in "${timed[@]}"; do
      mapfile -t request < <(target_request "$t")
      bench_wrk "${target_url[$t]}" "$warmup" "$connections" "$threads" "$T/tokens.txt" "${request[@]}" >/dev/null
    done
  fi
  for ((r = 1; r <= rounds; r++)); do
    for t in "${timed[@]}"; do
      mapfile -t request < <(target_request "$t")
      # shellcheck disable=SC2086
      read -r user_before system_before < <(bench_cpu_split ${target_pids[$t]})
      line=$(bench_wrk "${target_url[$t]}" "$duration" "$connections" "$threads" "$T/tokens.txt" "${request[@]}")
      # shellcheck disable=SC2086
      read -r user_after system_after < <(bench_cpu_split ${target_pids[$t]})
      requests=$(bench_field "$line" requests)
      errors=$(($(bench_field "$line" non2xx) + $(bench_field "$line" connect) + $(bench_field "$line" read) +
        $(bench_field "$line" write) + $(bench_field "$line" timeout)))
      user_ticks=$((user_after - user_before)) system_ticks=$((system_after - system_before))
      cpu=$(awk -v t=$((user_ticks + system_ticks)) -v hz="$BENCH_CLK_TCK" 'BEGIN { printf "%.2f", t / hz }')
      per_cpu=$(awk -v r="$requests" -v c="$cpu" 'BEGIN { if (c > 0) printf "%.0f", r / c; else print 0 }')
      # CPU microseconds per request, in user space and in the kernel.
      user_us=$(awk -v t="$user_ticks" -v hz="$BENCH_CLK_TCK" -v r="$requests" 'BEGIN { if (r > 0) printf "%.1f", t / hz * 1e6 / r; else print 0 }')
      system_us=$(awk -v t="$system_ticks" -v hz="$BENCH_CLK_TCK" -v r="$requests" 'BEGIN { if (r > 0) printf "%.1f", t / hz * 1e6 / r; else print 0 }')
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$m" "$r" "$t" "$(bench_field "$line" rps)" \
        "$(bench_field "$line" p50_us)" "$(bench_field "$line" p99_us)" "$cpu" "$per_cpu" "$errors" "$user_us" "$system_us" >>"$T/rounds.tsv"
      printf '  %-8s round %d  %-20s %9s req/s  p50 %6s ms  p99 %6s ms  CPU %5s s  %7s req/CPU-s  %5s + %5s us/req  errors %s\n' "$m" "$r" "$t" \
        "$(bench_field "$line" rps)" "$(bench_ms "$(bench_field "$line" p50_us)")" "$(bench_ms "$(bench_field "$line" p99_us)")" \
        "$cpu" "$per_cpu" "$user_us" "$system_us" "$errors" >&2
      ((errors == 0)) || bad_rounds=$((bad_rounds + 1))
    done
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
for pid in "$upstream_pid" "$nginx_pid" "$haproxy_pid" "$storygate_pid" "$storygate_fresh_pid" ${redis_pid:-} ${google_pid:-} \
  ${storygate_revocation_pid:-} ${storygate_appcheck_pid:-}; do
  kill -0 "$pid" 2>/dev/null || bench_die "a target exited during the run (logs in $T)"
done
# Cached states mean no lookup while timing; any is reported beside the figures.
((revocation == 0)) || lookups_while_timing=$(($(google_stat lookups) - lookups_before_timing))

# --- report -------------------------------------------------------------------------------------------------
column_of() { awk -F'\t' -v m="$1" -v t="$2" -v c="$3" 'NR > 1 && $1 == m && $3 == t { print $c }' "$T/rounds.tsv"; }
median_of() { # median_of MODE TARGET COLUMN
  local values
  mapfile -t values < <(column_of "$1" "$2" "$3")
  bench_median "${values[@]}"
}
describe() {
  case $1 in
    storygate)
      if [ "$route" = proxy ]; then printf 'StoryGate: verify + per-user limit + proxy'; else printf 'StoryGate: verify, GET /v1/me (NO PROXY HOP)'; fi
      ((redis)) && printf ', limits in Redis' 
      [ "$2" = fresh ] && printf ', token cache off'
      [ "$2" = rotating ] && printf ', token cache on' ;;
    haproxy)
      if [ "$route" = proxy ]; then printf 'HAProxy %s: jwt_verify + stick table + proxy' "$haproxy_version"; else printf 'HAProxy %s: jwt_verify + stick table, answers itself (NO PROXY HOP)' "$haproxy_version"; fi ;;
    storygate-revocation) describe storygate "$2"; printf ' + REVOCATION_CHECK=on (states cached)' ;;
    storygate-appcheck) describe storygate "$2"; printf ' + APP_CHECK=enforce' ;;
    nginx) printf 'nginx: plain proxy, no auth (ceiling)' ;;
    upstream) printf 'upstream nginx alone (ceiling)' ;;
  esac
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
# rule_summary MODE: each rule target against the plain StoryGate of the same run (the goal: within 10 % on
# requests/s and on requests per CPU-second) and against HAProxy.
rule_summary() {
  local m=$1 t rps cpu p99 verdict versus_haproxy
  printf '\nThe rules'"'"' cost, each rule target over the plain StoryGate row of this run:\n\n'
  printf '| target | requests/s | requests per CPU-second | p99 (lower is better) | goal: both >= 0.90 | requests per CPU-second / HAProxy |\n|---|---|---|---|---|---|\n'
  for t in "${rule_targets[@]}"; do
    rps=$(ratio "$(median_of "$m" "$t" 4)" "$(median_of "$m" storygate 4)")
    cpu=$(ratio "$(median_of "$m" "$t" 8)" "$(median_of "$m" storygate 8)")
    p99=$(ratio "$(median_of "$m" "$t" 6)" "$(median_of "$m" storygate 6)")
    verdict=$(awk -v a="$rps" -v b="$cpu" 'BEGIN { print (a + 0 >= 0.9 && b + 0 >= 0.9) ? "met" : "NOT MET" }')
    versus_haproxy="(not timed)"
    [[ " ${target_list[*]} " == *" haproxy "* ]] && versus_haproxy=$(ratio "$(median_of "$m" "$t" 8)" "$(median_of "$m" haproxy 8)")
    printf '| %s | %s | %s | %s | %s | %s |\n' "$t" "$rps" "$cpu" "$p99" "$verdict" "$versus_haproxy"
  done
  # Round r of a rule target ran right after round r of the plain one; the pairs show how much one round moves.
  printf '\nRequests per CPU-second, round by round, over the same round'"'"'s plain StoryGate:'
  for t in "${rule_targets[@]}"; do
    printf ' %s %s;' "$t" "$(paste <(column_of "$m" "$t" 8) <(column_of "$m" storygate 8) | awk '{ printf "%s%.2f", (NR > 1 ? ", " : ""), ($2 > 0 ? $1 / $2 : 0) }')"
  done
  printf '\n'
}
report() {
  local build
  build=$(bench_build_label "$mode" "$binary")
  printf '## Side by side with HAProxy: %s\n\n' "$(date -u +%Y-%m-%dT%H:%MZ)"
  printf '```\n'
  bench_machine
  printf 'load average before: %s; after: %s\n' "$load_before" "$load_after"
  printf 'storygate: %s; route %s; access log %s\n' "$build" "$([ "$route" = proxy ] && echo "GET /api/bench -> nginx upstream" || echo "GET /v1/me (NO PROXY HOP)")" \
    "$([ "$access_log" = 1 ] && echo on || echo off)"
  printf 'wrk: -t%s -c%s, %s s per target per round, %s interleaved round(s) per mode, %s s warm-up; %s users'"'"' tokens rotating\n' \
    "$threads" "$connections" "$duration" "$rounds" "$warmup" "$token_count"
  printf 'requests: %s\n' "$( ((body_bytes > 0)) && echo "POST with a $body_bytes-byte JSON body" || echo "GET without a body")"
  printf 'rate limits: StoryGate %s; HAProxy a stick table\n' "$( ((redis)) && echo "in a local redis-server (REDIS_URL)" || echo "in process")"
  if ((revocation)); then
    printf 'revocation: REVOCATION_CHECK=on, REVOCATION_MAX_AGE_SECONDS=86400, Google APIs stood in for by bench/google/stand-in.py; %s users looked up before timing, %s lookup(s) while timing\n' \
      "$token_count" "$lookups_while_timing"
  fi
  if ((app_check)); then
    printf 'app check: APP_CHECK=enforce, %s distinct dev App Check tokens rotating in X-Firebase-AppCheck (storygate-appcheck only)\n' "$app_check_token_count"
  fi
  printf 'command: bench/versus-haproxy.sh %s\n' "$command_line"
  printf '```\n\n'
  local m t
  for m in "${mode_list[@]}"; do
    if [ "$m" = rotating ]; then
      printf '### %s users'"'"' tokens rotating (StoryGate'"'"'s verified-token cache on; HAProxy verifies every request)\n\n' "$token_count"
    else
      printf '### Fresh token every request (StoryGate with TOKEN_CACHE_SIZE=0: every request pays for RSA, as in HAProxy)\n\n'
    fi
    printf '| target | requests/s | p50 | p99 | requests per CPU-second | CPU µs per request: user + kernel | CPU-seconds per round |\n|---|---|---|---|---|---|---|\n'
    local timed
    mapfile -t timed < <(mode_targets "$m")
    for t in "${timed[@]}"; do
      printf '| %s | %.0f | %s ms | %s ms | %.0f | %.1f + %.1f | %.2f |\n' "$(describe "$t" "$m")" "$(median_of "$m" "$t" 4)" \
        "$(bench_ms "$(median_of "$m" "$t" 5)")" "$(bench_ms "$(median_of "$m" "$t" 6)")" "$(median_of "$m" "$t" 8)" \
        "$(median_of "$m" "$t" 10)" "$(median_of "$m" "$t" 11)" "$(median_of "$m" "$t" 7)"
    done
    printf '\nMedians of %s round(s). ' "$rounds"
    if [[ ",$targets," == *,storygate,* && ",$targets," == *,haproxy,* ]]; then
      # The goals: 2.0x rotating, 1.2x fresh; 1.5x with the limits in Redis or with a body (rotating).
      local goal=2.0
      [ "$m" = fresh ] && goal=1.2
      if [ "$m" = rotating ] && { ((redis)) || ((body_bytes > 0)); }; then goal=1.5; fi
      local rps_ratio cpu_ratio p99_ratio
      rps_ratio=$(ratio "$(median_of "$m" storygate 4)" "$(median_of "$m" haproxy 4)")
      cpu_ratio=$(ratio "$(median_of "$m" storygate 8)" "$(median_of "$m" haproxy 8)")
      p99_ratio=$(ratio "$(median_of "$m" storygate 6)" "$(median_of "$m" haproxy 6)")
      printf 'StoryGate / HAProxy:\n\n| figure | ratio | goal | |\n|---|---|---|---|\n'
      printf '| requests/s | %s | | |\n' "$rps_ratio"
      printf '| requests per CPU-second | %s | >= %s | %s |\n' "$cpu_ratio" "$goal" \
        "$(awk -v r="$cpu_ratio" -v g="$goal" 'BEGIN { print (r + 0 >= g) ? "met" : "NOT MET" }')"
      printf '| p99 (lower is better) | %s | <= 1.00 | %s |\n' "$p99_ratio" \
        "$(awk -v r="$p99_ratio" 'BEGIN { print (r + 0 <= 1.0) ? "met" : "NOT MET" }')"
      # The goal is judged on the medians above; the pairs show how much one round moves.
      printf '\nRequests per CPU-second, round by round (each StoryGate round over the same round'"'"'s HAProxy): %s\n' \
        "$(paste <(column_of "$m" storygate 8) <(column_of "$m" haproxy 8) | awk '{ printf "%s%.2f", (NR > 1 ? ", " : ""), ($2 > 0 ? $1 / $2 : 0) }')"
    fi
    if [ "$m" = rotating ] && ((${#rule_targets[@]})) && [[ " ${target_list[*]} " == *" storygate "* ]]; then
      rule_summary "$m"
    fi
    printf '\n'
  done
  printf '<details><summary>Every round</summary>\n\n| mode | round | target | requests/s | p50 | p99 | CPU s | req/CPU-s | µs/request user + kernel | errors |\n|---|---|---|---|---|---|---|---|---|---|\n'
  awk -F'\t' 'NR > 1 { printf "| %s | %s | %s | %s | %.2f ms | %.2f ms | %s | %s | %s + %s | %s |\n", $1, $2, $3, $4, $5 / 1000, $6 / 1000, $7, $8, $10, $11, $9 }' "$T/rounds.tsv"
  printf '\n</details>\n'
  ((bad_rounds == 0)) || printf '\n**%s round(s) had errors (responses >= 400 or socket errors): these results are not valid.**\n' "$bad_rounds"
}
printf '\n'
report | tee "${out:-/dev/null}"
[ -n "$out" ] && bench_log "results written to $out"
((bad_rounds == 0)) || { BENCH_KEEP=1; exit 1; }
