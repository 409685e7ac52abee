#!/usr/bin/env python3
"""Tries to connect to each Unix socket path given and prints one JSON object {path: result},
result "ok" or the errno name (EACCES, ENOENT, …). For PermissionsTests, run as another user."""
import errno
import json
import socket
import sys

results = {}
for path in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
        results[path] = "ok"
    except OSError as e:
        results[path] = errno.errorcode.get(e.errno, str(e.errno))
    finally:
        s.close()
print(json.dumps(results))
