#!/usr/bin/env python3
"""Load a page in a real headless Chromium and report what it drew, for end-to-end tests.

    browser_check.py --url URL --screenshot PNG [--phone-screenshot PNG] [--min-fences N]
                     [--min-events N] [--wait S] [--width W --height H] [--pixels]

Starts Debian's chromium headless with a DevTools port, opens URL, and through the DevTools
Protocol (a WebSocket, python3-websockets) waits until the page says it is ready
(body[data-ready="1"]) and has drawn at least N fences and N event-log lines, then takes a
screenshot (and one at a phone's size). Prints a JSON summary of the DOM: fences with their
state, tracks, positions, visits, log lines, the status badge. Exit status 1 if the page never
got there within --wait seconds (the summary says how far it got). Live event streams stay
open, so this waits in real time; Chromium's --dump-dom with a virtual time budget would not
finish.

The summary also gives each track's drawn pieces (`trackSegments`: points per unbroken line)
and the tile images (`tiles`: how many, how many hidden after a load error). With --pixels it
samples the screenshot: `pixels.edge` (8 px below the map's top edge, mid-width: outside the
data, which the page fits with a margin) and `pixels.fences` (each fence's centre), as RGB.
"""

import argparse
import asyncio
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

import websockets

SUMMARY_JS = """
(() => {
  const q = (s) => Array.from(document.querySelectorAll(s));
  return JSON.stringify({
    ready: document.body.dataset.ready || "",
    fences: q('.fence').map(e => ({region: e.dataset.region, monitor: e.dataset.monitor, state: e.dataset.state})),
    tracks: q('.track').map(e => e.dataset.source),
    positions: q('.position').length,
    accuracy: q('.accuracy').length,
    visits: q('.visit').length,
    events: q('#log .event').length,
    eventTypes: Array.from(new Set(q('#log .event').map(e => e.dataset.type))).sort(),
    trackSegments: Object.fromEntries(q('.track').map(e => {
      // <path d="M x y L x y M ..."> since the page breaks tracks; a <polyline> is one piece.
      const d = e.getAttribute('d');
      const pieces = d != null ? d.split('M').slice(1).map(p => p.split('L').length)
        : [(e.getAttribute('points') || '').trim().split(/\s+/).filter(Boolean).length];
      return [e.dataset.source, pieces];
    })),
    tiles: {count: q('#tiles image').length, hidden: q('#tiles image[visibility="hidden"]').length,
            hrefs: q('#tiles image').slice(0, 3).map(e => e.getAttribute('href'))},
    status: (document.getElementById('status') || {}).textContent || "",
    title: document.title,
    width: window.innerWidth
  });
})()
"""


# Reads the screenshot back through a canvas (a data: URL does not taint it) at the points named.
PIXELS_JS = """
(async (png) => {
  const img = new Image();
  img.src = 'data:image/png;base64,' + png;
  await img.decode();
  const c = document.createElement('canvas');
  c.width = img.width; c.height = img.height;
  const g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  const at = (x, y) => Array.from(g.getImageData(Math.round(x), Math.round(y), 1, 1).data.slice(0, 3));
  const m = document.getElementById('map').getBoundingClientRect();
  const fences = {};
  for (const f of document.querySelectorAll('.fence')) {
    const r = f.getBoundingClientRect();
    fences[f.dataset.region] = at(r.left + r.width / 2, r.top + r.height / 2);
  }
  return JSON.stringify({edge: at(m.left + m.width / 2, m.top + 8), fences});
})
"""


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("no chromium found (Debian package: chromium)")


class DevTools:
    def __init__(self, socket_):
        self.socket = socket_
        self.next_id = 0

    async def call(self, method, **params):
        self.next_id += 1
        my_id = self.next_id
        await self.socket.send(json.dumps({"id": my_id, "method": method, "params": params}))
        while True:
            message = json.loads(await self.socket.recv())
            if message.get("id") == my_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})


async def check(args, port):
    targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=10))
    page = next(t for t in targets if t.get("type") == "page")
    async with websockets.connect(page["webSocketDebuggerUrl"], max_size=None) as socket_:
        dt = DevTools(socket_)
        await dt.call("Emulation.setDeviceMetricsOverride", width=args.width, height=args.height,
                      deviceScaleFactor=1, mobile=False)
        await dt.call("Page.navigate", url=args.url)
        deadline = time.time() + args.wait
        summary = {}
        while time.time() < deadline:
            try:
                result = await dt.call("Runtime.evaluate", expression=SUMMARY_JS, returnByValue=True)
                summary = json.loads(result["result"]["value"])
            except (RuntimeError, KeyError, ValueError):
                summary = {}
            if (summary.get("ready") == "1" and len(summary.get("fences", [])) >= args.min_fences
                    and summary.get("events", 0) >= args.min_events):
                break
            await asyncio.sleep(0.5)
        # Let the last frame paint.
        await asyncio.sleep(1)
        shot = await dt.call("Page.captureScreenshot", format="png")
        with open(args.screenshot, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        if args.pixels:
            result = await dt.call("Runtime.evaluate", expression=PIXELS_JS + "(" + json.dumps(shot["data"]) + ")",
                                   awaitPromise=True, returnByValue=True)
            summary["pixels"] = json.loads(result["result"]["value"])
        if args.phone_screenshot:
            await dt.call("Emulation.setDeviceMetricsOverride", width=390, height=844, deviceScaleFactor=2, mobile=True)
            await asyncio.sleep(1.5)
            result = await dt.call("Runtime.evaluate", expression=SUMMARY_JS, returnByValue=True)
            summary["phone"] = json.loads(result["result"]["value"])
            shot = await dt.call("Page.captureScreenshot", format="png")
            with open(args.phone_screenshot, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
        return summary


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--url", required=True)
    p.add_argument("--screenshot", required=True)
    p.add_argument("--phone-screenshot")
    p.add_argument("--min-fences", type=int, default=1)
    p.add_argument("--min-events", type=int, default=1)
    p.add_argument("--wait", type=float, default=40)
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=800)
    p.add_argument("--pixels", action="store_true", help="sample the screenshot's colours (see above)")
    args = p.parse_args(argv)
    profile = tempfile.mkdtemp(prefix="locus-chromium-")
    browser = subprocess.Popen(
        [chromium(), "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--remote-debugging-port=0", f"--user-data-dir={profile}", f"--window-size={args.width},{args.height}", "about:blank"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = os.path.join(profile, "DevToolsActivePort")
        deadline = time.time() + 30
        while not (os.path.exists(port_file) and open(port_file).read().strip()) and time.time() < deadline:
            time.sleep(0.1)
        port = int(open(port_file).read().split()[0])
        summary = asyncio.run(check(args, port))
    finally:
        browser.kill()
        browser.wait()
        shutil.rmtree(profile, ignore_errors=True)
    ok = (summary.get("ready") == "1" and len(summary.get("fences", [])) >= args.min_fences
          and summary.get("events", 0) >= args.min_events)
    print(json.dumps(summary))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
