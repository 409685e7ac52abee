#!/usr/bin/env python3
"""A map tile server for the browser tests: every GET /<z>/<x>/<y>.png is answered with one
256x256 PNG of a single colour, so a test can tell in a screenshot where tiles were drawn.

    tile_server.py [--color ff00ff]

Listens on a free loopback port and prints `port N` on its first line, then one line per tile
request (`tile /z/x/y.png`). Runs until killed.
"""

import argparse
import http.server
import struct
import sys
import zlib


def png(rgb, size=256):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    row = b"\x00" + bytes(rgb) * size  # filter type 0 for each scanline
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(row * size, 9)) + chunk(b"IEND", b""))


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--color", default="ff00ff")
    args = p.parse_args(argv)
    body = png(bytes.fromhex(args.color))

    class Tiles(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            parts = self.path.split("?")[0].strip("/").split("/")
            if len(parts) != 3 or not parts[2].endswith(".png"):
                self.send_error(404)
                return
            print("tile", self.path, flush=True)
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Tiles)
    print("port", server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
