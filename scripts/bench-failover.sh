#!/usr/bin/env bash
# ZooKeeper-mode failover benchmark: ZooKeeper + three slotkv nodes, K SIGKILLs of the master
# under a redis-py Sentinel-client writer (every other round with WAIT 1 after each write).
#
#   scripts/bench-failover.sh [--kills K] [--session-ms T] [--down-after-ms D]
#
# Defaults: 20 kills, session timeout 2000 ms, failover-down-after-ms 1000. Per round: the time
# from the kill until the record names a new master (detect), until it answers ROLE master
# (promote) and until the writer's first acknowledged write (clients), and the acknowledged
# writes missing from the new master. Ends with
#   RESULT kills=K ... detect_p50_s= promote_p50_s= clients_p50_s= clients_max_s=
#          lost_per_failover_wait_max= lost_per_failover_nowait_mean= lost_per_failover_nowait_max=
# Target (issue 22): clients_max_s <= D/1000 + 5.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
build_release slotkv-server
exec /usr/bin/python3 scripts/failover-probe.py --binary build/release/net/slotkv-server "$@"
