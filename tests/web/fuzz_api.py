#!/usr/bin/env python3
"""Throws malformed requests at colltuned's web API and checks every answer.

Random paths (odd characters, long segments, encoded bytes, huge numbers),
random query strings and random JSON-ish bodies, with and without the admin
token, on every route. Each answer must be a status below 500 with a JSON
body, except the page's own static files; exits 1 naming the first request
that broke that. The caller checks the daemon is still alive afterwards.

usage: fuzz_api.py BASE_URL TOKEN PROFILE_ID [N [SEED]]
"""
import http.client
import json
import random
import sys
import urllib.parse

base, token, profile = sys.argv[1], sys.argv[2], sys.argv[3]
count = int(sys.argv[4]) if len(sys.argv) > 4 else 300
host = urllib.parse.urlparse(base).netloc
rng = random.Random(int(sys.argv[5]) if len(sys.argv) > 5 else 20261121)

SEGMENTS = [profile, "0", "-1", "abc", "1e3", "99999999999999999999", "%00", "..",
            "%2e%2e", "history", "violations", "pins", "jobs", "tables", "rollback",
            "unpin", "<script>", "x" * 300, "\u00e9".encode().decode("latin-1"), ""]
ROUTES = ["/api/v1/profiles", f"/api/v1/profiles/{profile}",
          f"/api/v1/profiles/{profile}/jobs", f"/api/v1/profiles/{profile}/tables/0",
          f"/api/v1/profiles/{profile}/rollback", f"/api/v1/profiles/{profile}/pins",
          f"/api/v1/profiles/{profile}/pins/1/unpin", "/api/v1/algorithms"]
BODIES = ['', '{', '[]', 'null', '{"version": "x"}', '{"version": 1e400}',
          '{"version": -5}', '{"version": 9223372036854775808}',
          '{"collective": "bcast", "min_bytes": "-1", "max_bytes": 5, "algorithm": "default"}',
          '{"collective": "' + 'a' * 5000 + '", "algorithm": "default"}',
          '{"collective": "bcast", "algorithm": "bcast_as_allgatherv", "note": "' + '\\u0000' * 10 + '"}',
          '{"pin": {}}', '{"version": 1, "version": 2}', '\xff\xfe garbage', '{"a":' * 200]
STATIC = {"/", "/index.html", "/view.js", "/charts.js", "/sections.js", "/app.js", "/style.css",
          "/vendor/chart.umd.js"}


def random_path():
    if rng.random() < 0.5:
        path = rng.choice(ROUTES)
    else:
        path = "/api/v1/" + "/".join(rng.choice(SEGMENTS) for _ in range(rng.randint(0, 5)))
    if rng.random() < 0.4:
        params = [(rng.choice(["limit", "cluster", "library", "x", "limit[]", ""]),
                   rng.choice(["5", "0", "-3", "abc", "%FF", "9" * 30, "<b>"]))
                  for _ in range(rng.randint(1, 3))]
        path += "?" + "&".join(f"{k}={v}" for k, v in params)
    # Bytes beyond ASCII travel percent-encoded, as any client sends them.
    return urllib.parse.quote(path, safe="/?&=%:[]<>\"'*+,;!$()@")


for i in range(count):
    method = rng.choice(["GET", "POST", "POST", "PUT", "DELETE"])
    path = random_path()
    body = rng.choice(BODIES).encode("utf-8", "surrogatepass") if method != "GET" else b""
    headers = {"Content-Type": rng.choice(["application/json", "text/plain",
                                           "application/x-www-form-urlencoded"])}
    if rng.random() < 0.6:
        headers["x-colltune-admin-token"] = token if rng.random() < 0.7 else "wrong" * 5
    conn = http.client.HTTPConnection(host, timeout=10)
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        data = response.read()
    except Exception as e:  # a dropped connection is a failure too
        print(f"request {i}: {method} {path!r}: {e}")
        sys.exit(1)
    finally:
        conn.close()
    if response.status >= 500:
        print(f"request {i}: {method} {path!r} body {body[:80]!r}: HTTP {response.status} {data[:200]!r}")
        sys.exit(1)
    if urllib.parse.urlparse(path).path in STATIC and response.status == 200:
        continue
    try:
        json.loads(data)
    except ValueError:
        print(f"request {i}: {method} {path!r}: HTTP {response.status}, not JSON: {data[:200]!r}")
        sys.exit(1)
print(f"{count} malformed requests, every answer a JSON body below 500")
