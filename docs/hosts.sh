#!/usr/bin/env bash
# Hosts on one Linux machine: network namespaces joined by a bridge, each with an address of its
# own, for running gnnstream's cluster across "hosts" and injecting network faults. Run as root
# (CAP_NET_ADMIN). The cluster fault suite (ClusterFaultsITCase) drives the same script.
#
#   docs/hosts.sh up [N]          create hosts h1..hN (default 5): namespace gns-hI, address
#                                 10.77.0.I/24; this machine reaches them as 10.77.0.254
#   docs/hosts.sh down            remove every host and the bridge (also after a failed run)
#   docs/hosts.sh exec I CMD...   run CMD on host I (in its namespace)
#   docs/hosts.sh link I up|down  connect or cut host I's link (a network partition)
#   docs/hosts.sh address I       print host I's address
#
# Example, a highly available cluster on five hosts (see README, "Several hosts"):
#   docs/hosts.sh up 5
#   docs/hosts.sh exec 5 bin/gnnstream kafka --bind 10.77.0.5 --dir work/h5/kafka &
#   docs/hosts.sh exec 1 bin/gnnstream cluster start --dir work/h1 --bind 10.77.0.1 --ha \
#       --jobmanagers 1 --taskmanagers 0 --ha-storage-dir file://$PWD/work/ha
#   docs/hosts.sh exec 2 bin/gnnstream cluster start --dir work/h2 --bind 10.77.0.2 --ha \
#       --zookeeper 10.77.0.1:2181 --jobmanagers 1 --taskmanagers 0 --ha-storage-dir file://$PWD/work/ha
#   docs/hosts.sh exec 3 bin/gnnstream cluster start --dir work/h3 --bind 10.77.0.3 --ha \
#       --zookeeper 10.77.0.1:2181 --jobmanagers 0 --taskmanagers 1
#   (and host 4 like host 3), then from this machine:
#   bin/gnnstream submit --zookeeper 10.77.0.1:2181 --bootstrap-servers 10.77.0.5:9092 ...
set -euo pipefail

PREFIX=gns
BRIDGE=${PREFIX}-br0
SUBNET=10.77.0
HOST_ADDRESS=254

ns() { echo "${PREFIX}-h$1"; }
veth() { echo "${PREFIX}-v$1"; }

up() {
  local n=${1:-5}
  ip link add "$BRIDGE" type bridge
  ip addr add "$SUBNET.$HOST_ADDRESS/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  for i in $(seq 1 "$n"); do
    ip netns add "$(ns "$i")"
    ip link add "$(veth "$i")" type veth peer name eth0 netns "$(ns "$i")"
    ip link set "$(veth "$i")" master "$BRIDGE"
    ip link set "$(veth "$i")" up
    ip -n "$(ns "$i")" addr add "$SUBNET.$i/24" dev eth0
    ip -n "$(ns "$i")" link set eth0 up
    ip -n "$(ns "$i")" link set lo up
  done
}

down() {
  local name
  for name in $(ip netns list | awk '{print $1}' | grep "^${PREFIX}-h" || true); do
    ip netns pids "$name" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
    ip netns del "$name"
  done
  for name in $(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | grep "^${PREFIX}-" || true); do
    ip link del "$name" 2>/dev/null || true
  done
}

case "${1:-}" in
  up) up "${2:-5}" ;;
  down) down ;;
  exec) i=$2; shift 2; exec ip netns exec "$(ns "$i")" "$@" ;;
  link) ip link set "$(veth "$2")" "$3" ;;
  address) echo "$SUBNET.$2" ;;
  *) sed -n '2,22p' "$0"; exit 2 ;;
esac
