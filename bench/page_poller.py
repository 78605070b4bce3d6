#!/usr/bin/env python3
"""Asks a flysim service what its live page asks, at the page's rates (page.js):
GET /spikes and /rates every 250 ms (the raster again from position 0 whenever the
leading neurons change, as the page does), GET /status and /top every 500 ms, each loop
waiting for its answers before the next round. Runs until the service stops answering,
then prints one line: requests made, failures, median and slowest latency.

Usage: page_poller.py PORT
"""
import sys
import threading
import time
import json
import urllib.error
import urllib.request

RASTER_ROWS, TOP_NEURONS = 64, 10
FAST_S, SLOW_S = 0.25, 0.5

port = sys.argv[1]
latencies, failures = [], []
gone = threading.Event()
lock = threading.Lock()


def get(path):
    started = time.perf_counter()
    try:
        with urllib.request.urlopen("http://127.0.0.1:%s%s" % (port, path), timeout=10) as response:
            body = json.loads(response.read())
    except urllib.error.HTTPError as e:
        with lock:
            failures.append("%s: %d" % (path, e.code))
        return None
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        gone.set()  # nothing listens any more: the run is over
        return None
    with lock:
        latencies.append(time.perf_counter() - started)
    return body


def fast_loop():
    rows, since, rates_since = None, 0, 0
    while not gone.is_set():
        started = time.perf_counter()
        raster = get("/spikes?since=%d&neurons=%d" % (since if rows is not None else 0, RASTER_ROWS))
        if raster is not None:
            key = [r["id"] for r in raster["rows"]]
            if rows is not None and key != rows:
                raster = get("/spikes?since=0&neurons=%d" % RASTER_ROWS) or raster
            rows, since = [r["id"] for r in raster["rows"]], raster["next"]
        rates = get("/rates?since=%d" % rates_since)
        if rates is not None:
            rates_since = rates["next"]
        time.sleep(max(0.0, FAST_S - (time.perf_counter() - started)))


def slow_loop():
    while not gone.is_set():
        started = time.perf_counter()
        get("/status")
        get("/top?neurons=%d" % TOP_NEURONS)
        time.sleep(max(0.0, SLOW_S - (time.perf_counter() - started)))


threads = [threading.Thread(target=fast_loop), threading.Thread(target=slow_loop)]
for t in threads:
    t.start()
for t in threads:
    t.join()
ordered = sorted(latencies)
median = ordered[len(ordered) // 2] * 1e3 if ordered else 0.0
slowest = ordered[-1] * 1e3 if ordered else 0.0
print("page poller: %d requests answered, %d refused, median %.2f ms, slowest %.2f ms%s" %
      (len(latencies), len(failures), median, slowest, (" (" + failures[0] + ")") if failures else ""))
