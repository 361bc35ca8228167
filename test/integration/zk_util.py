"""A ZooKeeper server for the ZooKeeper-mode suites (test_zookeeper*.py): the Debian `zookeeper`
package's standalone server (ZooKeeperServerMain) in a temp dir on a free port, started and
stopped by its PID. tickTime 250 ms lets the servers ask for session timeouts from 500 ms
(ZooKeeper grants 2 to 20 ticks)."""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import pytest

from conftest import free_port

ZK_JAR = "/usr/share/java/zookeeper.jar"
ZK_CONF = "/etc/zookeeper/conf"
TICK_MS = 250


def available():
    return os.path.exists(ZK_JAR) and shutil.which("java") is not None


class ZooKeeper:
    def __init__(self):
        self.base = tempfile.mkdtemp(prefix="slotkv-zk-")
        self.data = os.path.join(self.base, "data")
        os.makedirs(self.data)
        self.port = free_port()
        self.proc = None
        self.log_path = os.path.join(self.base, "zk.log")

    @property
    def connect(self):
        return "127.0.0.1:%d" % self.port

    def start(self, timeout=30.0):
        if not available():
            pytest.skip("the zookeeper package (java) is not installed")
        cmd = ["java", "-Xmx256m", "-Dzookeeper.admin.enableServer=false",
               "-Dzookeeper.4lw.commands.whitelist=ruok,srvr",
               "-cp", ZK_CONF + ":" + ZK_JAR,
               "org.apache.zookeeper.server.ZooKeeperServerMain",
               str(self.port), self.data, str(TICK_MS)]
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=self.base)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            if self.ruok():
                return self
            time.sleep(0.1)
        log = open(self.log_path, "rb").read().decode(errors="replace")[-3000:]
        self.kill()
        raise RuntimeError("ZooKeeper did not start on %d:\n%s" % (self.port, log))

    def ruok(self):
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1.0) as s:
                s.sendall(b"ruok")
                return s.recv(16) == b"imok"
        except OSError:
            return False

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def restart(self, down_s=0.0):
        """Kills the server (its data stays: sessions and znodes survive) and starts it again
        after down_s seconds on the same port."""
        self.kill()
        time.sleep(down_s)
        return self.start()

    def cleanup(self):
        self.kill()
        shutil.rmtree(self.base, ignore_errors=True)
