#!/usr/bin/env bash
# GET /media/<key> through the file store and through the S3 store (MEDIA_STORE=s3, proxy delivery, on moto_server):
# requests per second and the gateway's CPU per MB served for a 1 MB object, then the gateway's peak RSS while 100
# clients download at once, with 1 MB and with 5 MB objects: it must stay flat (a download holds a bounded buffer,
# never the object), not grow with object size x clients.
#
#   bench/media.sh                                 # release build; about 2 minutes
#   bench/media.sh --binary PATH --seconds 30
#   bench/media.sh --debug --seconds 5             # smoke run
#
# Objects are put straight into each store the way the store lays them out (FileMediaStore: <key>.bin and
# <key>.json under MEDIA_DIR; S3MediaStore: <prefix>story-illustrations/<uid hash>/<key>.png and the index entry
# <prefix>keys/<key>). Only the gateway's process is measured (/proc/<pid>/stat and status); moto_server's CPU is
# reported apart. moto runs without signature checking here (the gateway signs every request all the same): it is a
# Python server, so the S3 store's requests/s are bounded by moto, and the gateway's CPU per MB is the figure to
# compare. Needs moto_server (scripts/moto/install.sh); installs wrk and curl when missing.
set -euo pipefail
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
  cat <<'EOF'
usage: bench/media.sh [options]

  --binary PATH         use this storygate binary (default: build one)
  --debug               build and use a debug binary (smoke runs only)
  --seconds N           length of each wrk run (default 20)
  --connections N       wrk connections (default 16)
  --threads N           wrk threads (default 1)
  --clients N           simultaneous downloads of the memory step (default 100)
  --client-rate R       each download's pace, curl --limit-rate (default 2M: slow readers, so the gateway must not
                        read ahead of them)
  --base-port N         ports N (file store), N+1 (S3 store), N+2 (moto) (default 18280)
  --keep                keep the temporary directory
EOF
}

mode=release binary="" seconds=20 connections=16 threads=1 clients=100 client_rate=2M base_port=18280
while (($#)); do
  case $1 in
    --binary) mode=path binary=$2; shift ;;
    --debug) mode=debug ;;
    --seconds) seconds=$2; shift ;;
    --connections) connections=$2; shift ;;
    --threads) threads=$2; shift ;;
    --clients) clients=$2; shift ;;
    --client-rate) client_rate=$2; shift ;;
    --base-port) base_port=$2; shift ;;
    --keep) BENCH_KEEP=1 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; bench_die "unknown option $1" ;;
  esac
  shift
done

moto_server="${MOTO_SERVER:-$BENCH_REPO/.build/moto-venv/bin/moto_server}"
[ -x "$moto_server" ] || moto_server="$(command -v moto_server || true)"
[ -n "$moto_server" ] || bench_die "moto_server not found: run scripts/moto/install.sh (or set MOTO_SERVER)"
bench_install wrk curl python3
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
bench_init media
binary=$(bench_storygate_binary "$mode" "$binary")
file_port=$base_port s3_port=$((base_port + 1)) moto_port=$((base_port + 2))
bench_require_ports "$file_port" "$s3_port" "$moto_port"
# /media/ reads no credentials; requests.lua wants a token file all the same.
echo unused >"$BENCH_TMP/tokens.txt"

# --- the object store ---------------------------------------------------------------------------------------------
moto="http://127.0.0.1:$moto_port"
bucket=storygate-bench
bench_spawn moto "$BENCH_TMP/moto.log" env MOTO_ALLOW_NONEXISTENT_REGION=true "$moto_server" -H 127.0.0.1 -p "$moto_port"
moto_pid=$BENCH_LAST_PID
bench_wait_http "$moto/moto-api/" "$moto_pid" 60 || bench_die "moto_server did not start (see $BENCH_TMP/moto.log)"
curl -sf -X PUT "$moto/$bucket" >/dev/null || bench_die "moto did not create the bucket"

# --- objects: one of 1 MB and ten of 5 MB, the same bytes in both stores ---------------------------------------------
owner=0123456789abcdef   # a uid hash, as S3MediaStore writes owners
mkdir -p "$BENCH_TMP/media"
put_object() { # put_object KEY FILE
  local key=$1 file=$2 size name
  size=$(stat -c %s "$file")
  cp "$file" "$BENCH_TMP/media/$key.bin"
  printf '{"content_type":"image/png","byte_count":%s,"etag":"\\"%s\\"","owner":"%s"}' "$size" "$key" "$owner" \
    >"$BENCH_TMP/media/$key.json"
  name="bench/story-illustrations/$owner/$key.png"
  curl -sf -X PUT -H 'Content-Type: image/png' -H "x-amz-meta-owner: $owner" --data-binary "@$file" "$moto/$bucket/$name" \
    >/dev/null || bench_die "could not put $name"
  curl -sf -X PUT -H 'Content-Type: image/png' -H "x-amz-meta-name: $name" -H "x-amz-meta-byte-count: $size" \
    -H "x-amz-meta-owner: $owner" --data-binary '' "$moto/$bucket/bench/keys/$key" >/dev/null || bench_die "could not put keys/$key"
}
new_key() { od -An -N16 -tx1 /dev/urandom | tr -d ' \n'; }
head -c 1048576 /dev/urandom >"$BENCH_TMP/one.bin"
one_key=$(new_key)
put_object "$one_key" "$BENCH_TMP/one.bin"
big_keys=()
for _ in $(seq 1 10); do
  head -c 5242880 /dev/urandom >"$BENCH_TMP/big.bin"
  big_keys+=("$(new_key)")
  put_object "${big_keys[-1]}" "$BENCH_TMP/big.bin"
done
# The memory step's 1 MB round reads ten 1 MB objects too.
one_keys=()
for _ in $(seq 1 10); do
  head -c 1048576 /dev/urandom >"$BENCH_TMP/small.bin"
  one_keys+=("$(new_key)")
  put_object "${one_keys[-1]}" "$BENCH_TMP/small.bin"
done

# --- the two gateways ---------------------------------------------------------------------------------------------
environment=()
mapfile -t environment < <(bench_storygate_env)
environment+=(ACCESS_LOG=false LOG_LEVEL=warning)
bench_spawn storygate-file "$BENCH_TMP/file.log" env -u OPENAI_API_KEY -u OPENAI_API_KEY_FILE -u OPENAI_BASE_URL \
  -u STORYGATE_CONFIG "${environment[@]}" MEDIA_STORE=file "$binary" serve --host 127.0.0.1 --port "$file_port"
file_pid=$BENCH_LAST_PID
bench_spawn storygate-s3 "$BENCH_TMP/s3.log" env -u OPENAI_API_KEY -u OPENAI_API_KEY_FILE -u OPENAI_BASE_URL \
  -u STORYGATE_CONFIG "${environment[@]}" MEDIA_STORE=s3 MEDIA_DELIVERY=proxy S3_ENDPOINT="$moto" S3_BUCKET="$bucket" \
  S3_REGION=us-east-1 S3_ADDRESSING=path S3_PREFIX=bench/ AWS_ACCESS_KEY_ID=AKIABENCH AWS_SECRET_ACCESS_KEY=bench-secret \
  "$binary" serve --host 127.0.0.1 --port "$s3_port"
s3_pid=$BENCH_LAST_PID
for port_pid in "$file_port:$file_pid" "$s3_port:$s3_pid"; do
  bench_wait_http "http://127.0.0.1:${port_pid%:*}/readyz" "${port_pid#*:}" 60 ||
    { cat "$BENCH_TMP"/*.log >&2; bench_die "the gateway on ${port_pid%:*} did not become ready"; }
done
for port in "$file_port" "$s3_port"; do
  got=$(curl -sf "http://127.0.0.1:$port/media/$one_key" | sha256sum)
  [ "$got" = "$(sha256sum <"$BENCH_TMP/one.bin")" ] || bench_die "/media/$one_key on $port is not the object's bytes"
done

mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

# --- requests/s and CPU per MB, 1 MB object -------------------------------------------------------------------------
declare -A rps cpu_per_mb moto_cpu errors
for store in file s3; do
  if [ "$store" = file ]; then port=$file_port pid=$file_pid; else port=$s3_port pid=$s3_pid; fi
  url="http://127.0.0.1:$port"
  bench_wrk "$url" 3 "$connections" "$threads" "$BENCH_TMP/tokens.txt" "WRK_PATH=/media/$one_key" >/dev/null
  ticks=$(bench_cpu_ticks "$pid")
  moto_ticks=$(bench_cpu_ticks "$moto_pid")
  line=$(bench_wrk "$url" "$seconds" "$connections" "$threads" "$BENCH_TMP/tokens.txt" "WRK_PATH=/media/$one_key")
  ticks=$(($(bench_cpu_ticks "$pid") - ticks))
  moto_ticks=$(($(bench_cpu_ticks "$moto_pid") - moto_ticks))
  requests=$(bench_field "$line" requests)
  rps[$store]=$(bench_field "$line" rps)
  errors[$store]=$(($(bench_field "$line" non2xx) + $(bench_field "$line" connect) + $(bench_field "$line" read) +
    $(bench_field "$line" write) + $(bench_field "$line" timeout)))
  # CPU milliseconds per MB (1 MB = 2^20 bytes, one request).
  cpu_per_mb[$store]=$(awk -v t="$ticks" -v hz="$BENCH_CLK_TCK" -v n="$requests" 'BEGIN { printf "%.2f", n ? t * 1000 / hz / n : 0 }')
  moto_cpu[$store]=$(awk -v t="$moto_ticks" -v hz="$BENCH_CLK_TCK" 'BEGIN { printf "%.1f", t / hz }')
  bench_log "$store store: ${rps[$store]} requests/s, gateway ${cpu_per_mb[$store]} ms CPU per MB, errors ${errors[$store]}"
done

# --- peak RSS while N clients download at once ----------------------------------------------------------------------
# peak_during PID KEY...: the gateway's highest VmRSS (KiB, sampled every 20 ms) while $clients paced curl downloads
# of the keys (round robin) run; checks every download's size. Prints "peak status".
peak_during() {
  local pid=$1 port
  shift
  if [ "$pid" = "$file_pid" ]; then port=$file_port; else port=$s3_port; fi
  local keys=("$@") i peak=0 value out="$BENCH_TMP/downloads.txt"
  : >"$out"
  local started=()
  for ((i = 0; i < clients; i++)); do
    curl -s -o /dev/null --limit-rate "$client_rate" --max-time 120 -w '%{http_code} %{size_download}\n' \
      "http://127.0.0.1:$port/media/${keys[i % ${#keys[@]}]}" >>"$out" &
    started+=("$!")
  done
  while :; do
    value=$(bench_rss_kib "$pid")
    ((value > peak)) && peak=$value
    local running=0
    for i in "${started[@]}"; do kill -0 "$i" 2>/dev/null && { running=1; break; }; done
    ((running)) || break
    sleep 0.02
  done
  wait "${started[@]}" 2>/dev/null || true
  printf '%s %s\n' "$peak" "$(sort "$out" | uniq -c | awk '{ printf "%s%s x %s %s", (NR > 1 ? ", " : ""), $1, $2, $3 }')"
}
declare -A rss_before peak_one peak_big status_one status_big
for store in file s3; do
  if [ "$store" = file ]; then pid=$file_pid; else pid=$s3_pid; fi
  rss_before[$store]=$(bench_rss_kib "$pid")
  read -r peak_one[$store] status_one[$store] < <(peak_during "$pid" "${one_keys[@]}")
  read -r peak_big[$store] status_big[$store] < <(peak_during "$pid" "${big_keys[@]}")
  bench_log "$store store: RSS $(mib "${rss_before[$store]}") MiB before; peak $(mib "${peak_one[$store]}") MiB with $clients x 1 MB" \
    "(${status_one[$store]}), $(mib "${peak_big[$store]}") MiB with $clients x 5 MB (${status_big[$store]})"
done

# Flat: the 5 MB round's peak is within a tenth of the extra bytes in flight (clients x 4 MB) of the 1 MB round's.
flat_all=1
declare -A flat
for store in file s3; do
  growth=$((peak_big[$store] - peak_one[$store]))
  if ((growth * 10 <= clients * 4096)); then flat[$store]="flat (+$(mib "$growth") MiB)"
  else flat[$store]="NOT FLAT (+$(mib "$growth") MiB)"; flat_all=0; fi
done

build=$(bench_build_label "$mode" "$binary")
printf '\n## Media: %s\n\n```\n' "$(date -u +%Y-%m-%dT%H:%MZ)"
bench_machine
printf 'storygate: %s; access log off; moto_server %s (no signature checks)\n' "$build" \
  "$("$(dirname "$moto_server")/python" -c 'import importlib.metadata as m; print(m.version("moto"))' 2>/dev/null || echo '?')"
printf 'wrk: %s s, %s connections, %s thread(s); memory step: %s clients at %s/s each\n```\n\n' "$seconds" "$connections" \
  "$threads" "$clients" "$client_rate"
printf '| GET /media/<key>, 1 MB | file store | S3 store (proxy, moto) |\n|---|---|---|\n'
printf '| requests/s | %s | %s |\n' "${rps[file]}" "${rps[s3]}"
printf '| gateway CPU per MB | %s ms | %s ms |\n' "${cpu_per_mb[file]}" "${cpu_per_mb[s3]}"
printf '| errors | %s | %s |\n' "${errors[file]}" "${errors[s3]}"
printf '| moto_server CPU during the run (not the gateway'"'"'s) | %s s | %s s |\n' "${moto_cpu[file]}" "${moto_cpu[s3]}"
printf '| gateway RSS before the downloads | %s MiB | %s MiB |\n' "$(mib "${rss_before[file]}")" "$(mib "${rss_before[s3]}")"
printf '| peak RSS, %s clients x 1 MB at once | %s MiB | %s MiB |\n' "$clients" "$(mib "${peak_one[file]}")" "$(mib "${peak_one[s3]}")"
printf '| peak RSS, %s clients x 5 MB at once | %s MiB | %s MiB |\n' "$clients" "$(mib "${peak_big[file]}")" "$(mib "${peak_big[s3]}")"
printf '| 5 MB vs 1 MB | %s | %s |\n' "${flat[file]}" "${flat[s3]}"
printf '\nDownloads (status, bytes): file %s / %s; S3 %s / %s\n' "${status_one[file]}" "${status_big[file]}" \
  "${status_one[s3]}" "${status_big[s3]}"
complete=1
for store in file s3; do
  [ "${status_one[$store]}" = "$clients x 200 1048576" ] && [ "${status_big[$store]}" = "$clients x 200 5242880" ] || complete=0
done
if ((!flat_all)) || ((!complete)) || ((errors[file] + errors[s3] != 0)); then
  BENCH_KEEP=1
  exit 1
fi
