# Sourced by the fleet scripts: start_redis_cluster starts three redis-server primaries on free ports (each cluster
# bus port chosen free too: the default, port + 10000, may not be), joins them into one cluster and waits for
# cluster_state:ok. It uses the caller's $work, pids, free_port and fail_start, and sets cluster_ports and
# cluster_url (redis://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3).
start_redis_cluster() {
  local index port attempt
  cluster_ports=()
  for index in 0 1 2; do
    port="$(free_port)"
    cluster_ports+=("$port")
    mkdir -p "$work/cluster-$index"
    redis-server --port "$port" --cluster-port "$(free_port)" --bind 127.0.0.1 --cluster-enabled yes \
      --cluster-config-file nodes.conf --cluster-node-timeout 5000 --save "" --appendonly no --dir "$work/cluster-$index" \
      >"$work/cluster-$index.log" 2>&1 &
    pids+=($!)
  done
  for port in "${cluster_ports[@]}"; do
    for attempt in $(seq 1 101); do
      redis-cli -p "$port" ping >/dev/null 2>&1 && break
      [ "$attempt" -le 100 ] || fail_start "cluster node on $port did not start"
      sleep 0.05
    done
  done
  redis-cli --cluster create "${cluster_ports[@]/#/127.0.0.1:}" --cluster-replicas 0 --cluster-yes >"$work/cluster-create.log" 2>&1 ||
    fail_start "redis-cli --cluster create failed"
  for port in "${cluster_ports[@]}"; do
    for attempt in $(seq 1 201); do
      redis-cli -p "$port" cluster info 2>/dev/null | grep -q '^cluster_state:ok' && break
      [ "$attempt" -le 200 ] || fail_start "cluster node on $port did not reach cluster_state:ok within 10 s"
      sleep 0.05
    done
  done
  cluster_url="redis://$(IFS=,; echo "${cluster_ports[*]/#/127.0.0.1:}")"
}
