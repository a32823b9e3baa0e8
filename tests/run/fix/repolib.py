"""A local copy of AMD's rpm repositories for the fix round trips: real
repositories made with createrepo_c, served over https with a throw-away
certificate for repo.radeon.com, reached through a local CONNECT proxy, so
that dnf fetches the very URLs the fix writes (nothing is rewritten)."""

import http.server
import os
import select
import shutil
import socket
import ssl
import subprocess
import threading

HOST = "repo.radeon.com"


def have_tools():
    return all(shutil.which(t) for t in ("createrepo_c", "openssl"))


def make_repo(top, path, rpms):
    """A repository at top/path holding these .rpm files."""
    d = os.path.join(top, path.strip("/"))
    os.makedirs(d, exist_ok=True)
    for f in rpms:
        shutil.copy(f, d)
    subprocess.run(["createrepo_c", "-q", d], check=True, capture_output=True)


class Server:
    """https://repo.radeon.com/ served from top, through a proxy at
    http://127.0.0.1:proxy_port that tunnels CONNECT repo.radeon.com:443
    to it (and refuses any other host). cert: the CA file to trust."""

    def __init__(self, top, workdir):
        self.cert = os.path.join(workdir, "repo.radeon.com.pem")
        key = os.path.join(workdir, "repo.radeon.com.key")
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out",
                        self.cert, "-days", "1", "-subj", "/CN=" + HOST, "-addext", "subjectAltName=DNS:" + HOST],
                       capture_output=True, check=True)
        self.requests = []
        outer = self

        class Files(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *a, **kw):
                super().__init__(*a, directory=top, **kw)

            def log_message(self, fmt, *args):
                outer.requests.append(self.path)

        self.https = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Files)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(self.cert, key)
        self.https.socket = ctx.wrap_socket(self.https.socket, server_side=True)
        target = self.https.server_address

        class Proxy(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_CONNECT(self):
                if self.path != HOST + ":443":
                    self.send_error(403, "only " + HOST)
                    return
                up = socket.create_connection(target)
                self.send_response(200, "Connection established")
                self.end_headers()
                socks = [self.connection, up]
                try:
                    while True:
                        ready, _, _ = select.select(socks, [], [], 30)
                        if not ready:
                            break
                        for s in ready:
                            data = s.recv(65536)
                            if not data:
                                return
                            (up if s is self.connection else self.connection).sendall(data)
                except OSError:
                    pass  # a client that hangs up mid-tunnel
                finally:
                    up.close()

        self.proxy = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
        self.proxy_url = "http://127.0.0.1:%d" % self.proxy.server_address[1]
        for srv in (self.https, self.proxy):
            threading.Thread(target=srv.serve_forever, daemon=True).start()

    def close(self):
        for srv in (self.https, self.proxy):
            srv.shutdown()
            srv.server_close()
