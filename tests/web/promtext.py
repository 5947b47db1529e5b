#!/usr/bin/env python3
"""Reads Prometheus's text exposition format (version 0.0.4) for
metrics_test.sh, independently of colltuned's code.

  promtext.py get FILE NAME [LABEL=VALUE ...]
      the sum of the samples NAME whose labels include the given ones
      (0 if none does; exit 2 if the file has no sample NAME at all)
  promtext.py delta FILE_A FILE_B NAME [LABEL=VALUE ...]
      how much that sum rose from FILE_A to FILE_B
  promtext.py labels FILE NAME LABEL
      the values of LABEL over the samples NAME, one per line
  promtext.py series FILE NAME
      each sample NAME as one JSON object per line: {"labels": {...}, "value": v}
  promtext.py check FILE...
      the structure promtool does not look at: every sample belongs to a
      family with HELP and TYPE; a counter's name ends in _total; no series
      repeats; each histogram series has cumulative buckets ending in +Inf,
      whose count equals _count
  promtext.py names FILE
      the sample names, one per line
  promtext.py rules JSON
      the dashboard's expressions as a Prometheus rules file (for
      promtool check rules), with $__rate_interval = 5m, $instance = .*
  promtext.py dashboard JSON FILE
      every metric name used in the Grafana dashboard's expressions is a
      sample name in FILE; every panel uses the ${DS_PROMETHEUS} data source
"""
import json
import math
import re
import sys

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)(\s+-?\d+)?$')


def parse_labels(text):
    """{a="x",b="y\\"z"} -> {"a": "x", "b": 'y"z'}"""
    labels = {}
    i = 1
    end = len(text) - 1
    while i < end:
        m = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)="').match(text, i)
        if not m:
            raise ValueError("bad label set: " + text)
        name = m.group(1)
        i = m.end()
        value = []
        while True:
            c = text[i]
            if c == '\\':
                nxt = text[i + 1]
                value.append({'\\': '\\', '"': '"', 'n': '\n'}[nxt])
                i += 2
            elif c == '"':
                i += 1
                break
            else:
                value.append(c)
                i += 1
        if name in labels:
            raise ValueError("label repeated: " + name)
        labels[name] = ''.join(value)
        while i < end and text[i] in ' ,':
            i += 1
    return labels


def parse(path):
    """-> (families {name: {"help", "type"}}, samples [(name, labels, value)])"""
    families = {}
    samples = []
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.rstrip('\n')
            if not line:
                continue
            if line.startswith('# HELP '):
                name, _, help_text = line[7:].partition(' ')
                families.setdefault(name, {})['help'] = help_text
                continue
            if line.startswith('# TYPE '):
                name, _, kind = line[7:].partition(' ')
                families.setdefault(name, {})['type'] = kind
                continue
            if line.startswith('#'):
                continue
            m = SAMPLE.match(line)
            if not m:
                raise ValueError("not a sample: " + line)
            labels = parse_labels(m.group(2)) if m.group(2) else {}
            samples.append((m.group(1), labels, float(m.group(3))))
    return families, samples


def family_of(name, families):
    if name in families:
        return name
    for suffix in ('_bucket', '_count', '_sum'):
        if name.endswith(suffix) and families.get(name[:-len(suffix)], {}).get('type') == 'histogram':
            return name[:-len(suffix)]
    return None


def check(path):
    families, samples = parse(path)
    problems = []
    seen = set()
    histograms = {}
    for name, labels, value in samples:
        fam = family_of(name, families)
        if fam is None:
            problems.append("sample of no family: " + name)
            continue
        info = families[fam]
        if 'help' not in info or not info['help']:
            problems.append("no HELP: " + fam)
        if 'type' not in info:
            problems.append("no TYPE: " + fam)
        if info.get('type') == 'counter' and not fam.endswith('_total'):
            problems.append("counter without _total: " + fam)
        if info.get('type') == 'counter' and value < 0:
            problems.append("negative counter: " + name)
        key = (name, tuple(sorted(labels.items())))
        if key in seen:
            problems.append("series repeated: %s %s" % key)
        seen.add(key)
        if info.get('type') == 'histogram':
            rest = tuple(sorted((k, v) for k, v in labels.items() if k != 'le'))
            h = histograms.setdefault((fam, rest), {'buckets': [], 'count': None, 'sum': None})
            if name.endswith('_bucket'):
                le = labels['le']
                h['buckets'].append((math.inf if le == '+Inf' else float(le), value))
            elif name.endswith('_count'):
                h['count'] = value
            elif name.endswith('_sum'):
                h['sum'] = value
    for (fam, rest), h in histograms.items():
        where = "%s%s" % (fam, dict(rest))
        buckets = sorted(h['buckets'])
        if not buckets or buckets[-1][0] != math.inf:
            problems.append(where + ": no +Inf bucket")
            continue
        for (_, a), (_, b) in zip(buckets, buckets[1:]):
            if b < a:
                problems.append(where + ": buckets not cumulative")
        if h['count'] is None or h['count'] != buckets[-1][1]:
            problems.append(where + ": _count %s != +Inf bucket %s" % (h['count'], buckets[-1][1]))
        if h['sum'] is None or h['sum'] < 0:
            problems.append(where + ": no or negative _sum")
    for p in problems:
        print(p)
    return 1 if problems else 0


def matching(samples, name, want):
    return [(l, v) for n, l, v in samples if n == name and all(l.get(k) == x for k, x in want.items())]


def main(argv):
    cmd = argv[1]
    if cmd == 'check':
        return max(check(path) for path in argv[2:])
    if cmd == 'delta':
        want = dict(a.split('=', 1) for a in argv[5:])
        values = []
        for path in argv[2:4]:
            _, samples = parse(path)
            if not any(n == argv[4] for n, _, _ in samples):
                print("no sample %s in %s" % (argv[4], path), file=sys.stderr)
                return 2
            values.append(sum(v for _, v in matching(samples, argv[4], want)))
        d = values[1] - values[0]
        print(int(d) if d == int(d) else repr(d))
        return 0
    if cmd == 'rules':
        # Each expression of the dashboard as a recording rule, with
        # Grafana's variables given values, for promtool check rules.
        with open(argv[2], encoding='utf-8') as f:
            board = json.load(f)
        rules = []
        stack = list(board.get('panels', []))
        while stack:
            p = stack.pop()
            stack.extend(p.get('panels', []))
            for t in p.get('targets', []):
                expr = t['expr'].replace('$__rate_interval', '5m').replace('$instance', '.*')
                rules.append({'record': 'colltune:dashboard_expr_%d' % len(rules), 'expr': expr})
        json.dump({'groups': [{'name': 'dashboard', 'rules': rules}]}, sys.stdout, indent=1)
        return 0
    if cmd == 'dashboard':
        with open(argv[2], encoding='utf-8') as f:
            board = json.load(f)
        _, samples = parse(argv[3])
        names = {n for n, _, _ in samples}
        problems = []
        panels = []
        stack = list(board.get('panels', []))
        while stack:
            p = stack.pop()
            panels.append(p)
            stack.extend(p.get('panels', []))
        exprs = 0
        for p in panels:
            if p.get('type') == 'row':
                continue
            ds = p.get('datasource', {})
            if not isinstance(ds, dict) or ds.get('uid') != '${DS_PROMETHEUS}':
                problems.append("panel %r: data source %r" % (p.get('title'), ds))
            for t in p.get('targets', []):
                exprs += 1
                # Metric names: identifiers followed by { or [ or ) or a
                # space, that are not PromQL functions or keywords.
                for m in re.finditer(r'\b(colltune_[a-zA-Z0-9_]*)', t.get('expr', '')):
                    if m.group(1) not in names:
                        problems.append("panel %r: %s is in no scrape" % (p.get('title'), m.group(1)))
                if 'colltune_' not in t.get('expr', ''):
                    problems.append("panel %r: an expression with no colltune metric" % p.get('title'))
        if exprs == 0:
            problems.append("no expressions")
        for p in problems:
            print(p)
        print("%d panels, %d expressions" % (len(panels), exprs))
        return 1 if problems else 0
    families, samples = parse(argv[2])
    if cmd == 'names':
        for n in sorted({n for n, _, _ in samples}):
            print(n)
        return 0
    name = argv[3]
    if not any(n == name for n, _, _ in samples):
        print("no sample " + name, file=sys.stderr)
        return 2
    if cmd == 'get':
        want = dict(a.split('=', 1) for a in argv[4:])
        total = sum(v for _, v in matching(samples, name, want))
        print(int(total) if total == int(total) else repr(total))
        return 0
    if cmd == 'labels':
        for l, _ in matching(samples, name, {}):
            print(l.get(argv[4], ''))
        return 0
    if cmd == 'series':
        for l, v in matching(samples, name, {}):
            print(json.dumps({'labels': l, 'value': v}))
        return 0
    print("unknown command " + cmd, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
