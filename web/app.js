// colltune web view: a single page over colltuned's JSON API (/api/v1/,
// docs/web-api.md). Everything taken from the API reaches the page as text
// nodes (el() below never parses markup), so a cluster, library, job or
// campaign name cannot inject markup or script; the server's
// Content-Security-Policy would refuse inline script as well.
'use strict';

(() => {
  const app = document.getElementById('app');
  const crumbs = document.getElementById('crumbs');
  const tokenInput = document.getElementById('token');
  const TOKEN_KEY = 'colltune-admin-token';
  const TOKEN_HEADER = 'x-colltune-admin-token';

  // Test and measurement hooks: the time the first page was fully drawn.
  window.colltune = { firstRenderMs: null, charts: [] };

  tokenInput.value = sessionStorage.getItem(TOKEN_KEY) || '';
  tokenInput.addEventListener('input', () => {
    sessionStorage.setItem(TOKEN_KEY, tokenInput.value);
  });

  // ---- DOM and formatting helpers -------------------------------------

  function el(tag, props, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : String(v));
    }
    for (const c of children.flat(Infinity)) {
      if (c === undefined || c === null || c === false) continue;
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return e;
  }

  const num = (x) => Number(x);

  function fmtBytes(b) {
    b = num(b);
    if (b < 0) return '∞';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let u = 0;
    while (b >= 1024 && u < units.length - 1) { b /= 1024; u++; }
    const s = Number.isInteger(b) ? String(b) : b.toPrecision(3).replace(/\.?0+$/, '');
    return `${s} ${units[u]}`;
  }
  const fmtRange = (lo, hi) => `${fmtBytes(lo)} – ${num(hi) < 0 ? '∞' : fmtBytes(hi)}`;

  function fmtTime(s) {
    const us = num(s) * 1e6;
    if (us < 1000) return `${us.toPrecision(3)} µs`;
    if (us < 1e6) return `${(us / 1000).toPrecision(3)} ms`;
    return `${(us / 1e6).toPrecision(3)} s`;
  }
  const fmtX = (x, digits = 2) => `${num(x).toFixed(digits)}×`;
  const fmtP = (p) => (num(p) < 0.001 ? num(p).toExponential(1) : num(p).toFixed(3));
  const fmtDate = (iso) => (iso ? String(iso).replace('T', ' ').replace(/\.\d+/, '').replace('Z', ' UTC') : '—');
  function fmtCount(n) {
    n = num(n);
    if (n >= 1e9) return `${(n / 1e9).toPrecision(3)}G`;
    if (n >= 1e6) return `${(n / 1e6).toPrecision(3)}M`;
    if (n >= 1e4) return `${(n / 1e3).toPrecision(3)}k`;
    return String(n);
  }

  async function api(path, options) {
    let response;
    try {
      response = await fetch(`/api/v1${path}`, options);
    } catch (e) {
      throw new Error(`cannot reach colltuned: ${e.message}`);
    }
    let body = null;
    try { body = await response.json(); } catch (e) { /* not JSON */ }
    if (!response.ok) {
      const why = body && body.error ? `${body.error.code}: ${body.error.message}` : `HTTP ${response.status}`;
      throw new Error(why);
    }
    if (body === null) throw new Error(`colltuned answered ${path} with something that is not JSON`);
    return body;
  }

  function adminPost(path, body) {
    return api(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [TOKEN_HEADER]: tokenInput.value },
      body: body === undefined ? '' : JSON.stringify(body),
    });
  }

  function table(headers, rows, opts = {}) {
    return el('table', { class: opts.class },
      el('thead', {}, el('tr', {}, headers.map((h) =>
        el('th', { class: h.num ? 'num' : undefined, scope: 'col' }, h.label || h)))),
      el('tbody', {}, rows));
  }

  function setCrumbs(...parts) {
    crumbs.replaceChildren(...parts.flatMap((p, i) => (i ? [' / ', p] : [p])));
  }

  function showError(where, e) {
    where.replaceChildren(el('p', { class: 'error', role: 'alert' }, e.message));
  }

  function done(name) {
    document.body.dataset.rendered = name;
    if (window.colltune.firstRenderMs === null) {
      window.colltune.firstRenderMs = performance.now();
    }
  }

  // ---- charts ----------------------------------------------------------

  // Error bars: each point may carry lo/hi (the per-launch spread); drawn
  // after the lines, in the line's colour.
  const errorBars = {
    id: 'colltuneErrorBars',
    afterDatasetsDraw(chart) {
      const ctx = chart.ctx;
      const y = chart.scales.y;
      chart.data.datasets.forEach((ds, i) => {
        if (!ds.errorBars || !chart.isDatasetVisible(i)) return;
        const meta = chart.getDatasetMeta(i);
        ctx.save();
        ctx.strokeStyle = ds.borderColor;
        ctx.lineWidth = 1;
        meta.data.forEach((point, k) => {
          const d = ds.data[k];
          if (!d || d.lo === undefined || d.hi === undefined) return;
          const top = y.getPixelForValue(d.hi);
          const bottom = y.getPixelForValue(d.lo);
          if (!Number.isFinite(top) || !Number.isFinite(bottom)) return;
          ctx.beginPath();
          ctx.moveTo(point.x, top); ctx.lineTo(point.x, bottom);
          ctx.moveTo(point.x - 3, top); ctx.lineTo(point.x + 3, top);
          ctx.moveTo(point.x - 3, bottom); ctx.lineTo(point.x + 3, bottom);
          ctx.stroke();
        });
        ctx.restore();
      });
    },
  };

  // Absolute latency ticks: 1, 2 and 5 times a power of ten, plainly written.
  function logTick(v) {
    const n = Number(v);
    if (!(n > 0)) return '';
    const mantissa = n / 10 ** Math.floor(Math.log10(n) + 1e-9);
    if (![1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-6)) return '';
    return n >= 1 ? String(Math.round(n)) : String(Number(n.toPrecision(1)));
  }

  const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#17becf',
    '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22'];
  // The libraries' own algorithms (native:<name>): dashed, in colours of
  // their own, so that they never pass for mock-ups (default is black and
  // dashed more widely).
  const NATIVE_PALETTE = ['#6a3d9a', '#b15928', '#008080', '#c51b7d', '#4d7c0f', '#a16207'];
  const NATIVE_DASH = [3, 3];
  const NATIVE_PREFIX = 'native:';

  // Whether `name` is one of a library's own algorithms, by the catalogue
  // (/api/v1/algorithms says so), else by the contract's name prefix.
  let nativeNames = null;
  const isNative = (name) => (nativeNames ? nativeNames.has(name) : String(name).startsWith(NATIVE_PREFIX));
  const nativeBadge = (name) => (isNative(name)
    ? el('span', { class: 'badge native', title: 'the MPI library\'s own algorithm, forced by colltune' }, 'native')
    : null);

  function destroyCharts() {
    for (const c of window.colltune.charts) c.destroy();
    window.colltune.charts = [];
  }

  // The rule of `table` covering (collective, bytes), if any.
  function ruleFor(rules, collective, bytes) {
    return rules.find((r) => r.collective === collective && bytes >= num(r.min_bytes) &&
      (num(r.max_bytes) < 0 || bytes <= num(r.max_bytes)));
  }

  // Legend and series order: default, the mock-ups, then the library's own
  // algorithms, each group by name.
  function seriesRank(name) {
    if (name === 'default') return 0;
    return isNative(name) ? 2 : 1;
  }

  // One chart: latency of every algorithm against message size (log2 axis),
  // relative to default or absolute, with the tuned choice as a wide band
  // under the lines (seed 004, Figure 4). Mock-ups are solid lines, the
  // library's own algorithms dashed lines in a palette of their own.
  function drawChart(canvas, collective, points, rules, mode) {
    const sizes = [...new Set(points.map((p) => num(p.msg_bytes)))].sort((a, b) => a - b);
    const algorithms = [...new Set(points.map((p) => p.algorithm))]
      .sort((a, b) => seriesRank(a) - seriesRank(b) || a.localeCompare(b));
    const at = new Map(points.map((p) => [`${p.algorithm}@${num(p.msg_bytes)}`, p]));
    const base = (bytes) => at.get(`default@${bytes}`);
    const relative = mode === 'relative';
    const value = (p, field) => {
      const v = num(p[field]);
      if (!relative) return v * 1e6;
      const d = base(num(p.msg_bytes));
      return d && num(d.median_seconds) > 0 ? v / num(d.median_seconds) : undefined;
    };
    const xOf = (bytes) => (bytes > 0 ? Math.log2(bytes) : -1);
    let mockups = 0;
    let natives = 0;
    const datasets = algorithms.map((a) => {
      const data = [];
      for (const s of sizes) {
        const p = at.get(`${a}@${s}`);
        if (!p) continue;
        const y = value(p, 'median_seconds');
        if (y === undefined) continue;
        data.push({ x: xOf(s), y, lo: value(p, 'launch_min_seconds'), hi: value(p, 'launch_max_seconds'), bytes: s });
      }
      const isDefault = a === 'default';
      const native = !isDefault && isNative(a);
      const colour = isDefault ? '#000'
        : native ? NATIVE_PALETTE[natives++ % NATIVE_PALETTE.length]
          : PALETTE[mockups++ % PALETTE.length];
      return {
        label: a,
        native,
        data,
        errorBars: true,
        borderColor: colour,
        backgroundColor: colour,
        borderDash: isDefault ? [6, 4] : native ? NATIVE_DASH : undefined,
        borderWidth: isDefault ? 2 : 1.5,
        pointRadius: 2,
        pointStyle: native ? 'triangle' : 'circle',
        order: 1,
      };
    });
    const tuned = [];
    for (const s of sizes) {
      const rule = ruleFor(rules, collective, s);
      const chosen = rule ? rule.algorithm : 'default';
      const p = at.get(`${chosen}@${s}`);
      const y = p ? value(p, 'median_seconds') : undefined;
      if (y !== undefined) tuned.push({ x: xOf(s), y, bytes: s, algorithm: chosen });
    }
    datasets.push({
      label: 'tuned choice',
      data: tuned,
      borderColor: 'rgba(255, 190, 0, 0.55)',
      backgroundColor: 'rgba(255, 190, 0, 0.55)',
      borderWidth: 10,
      pointRadius: 0,
      order: 100,
    });
    return new Chart(canvas, {
      type: 'line',
      data: { datasets },
      plugins: [errorBars],
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        parsing: false,
        normalized: true,
        interaction: { mode: 'nearest', intersect: false },
        scales: {
          x: {
            type: 'linear',
            min: sizes.length ? xOf(sizes[0]) : undefined,
            max: sizes.length ? xOf(sizes[sizes.length - 1]) : undefined,
            title: { display: true, text: points.some((p) => p.problem) ? 'average block size' : 'message size' },
            ticks: { stepSize: 2, callback: (v) => (Number.isInteger(v) && v >= 0 ? fmtBytes(2 ** v) : '') },
          },
          y: {
            type: 'logarithmic',
            title: { display: true, text: relative ? 'latency / default' : 'latency (µs)' },
            min: relative ? 0.25 : undefined,
            max: relative ? 8 : undefined,
            ticks: { callback: (v) => (relative ? `${v}` : logTick(v)) },
            // Relative: the powers of two, so that 1 (default) and 2x either
            // way are easy to find.
            afterBuildTicks: relative
              ? (scale) => { scale.ticks = [0.25, 0.5, 1, 2, 4, 8].map((value) => ({ value })); }
              : undefined,
          },
        },
        plugins: {
          legend: { position: 'bottom', labels: { boxWidth: 12, font: { size: 11 } } },
          tooltip: {
            callbacks: {
              title: (items) => (items.length ? fmtBytes(items[0].raw.bytes) : ''),
              label: (item) => `${item.dataset.label}${item.raw.algorithm ? ` (${item.raw.algorithm})` : ''}${item.dataset.native ? ' [the library\'s own]' : ''}: ${relative ? fmtX(item.raw.y) : `${item.raw.y.toPrecision(3)} µs`}`,
            },
          },
        },
      },
    });
  }

  // ---- overview --------------------------------------------------------

  async function overview() {
    setCrumbs(el('span', {}, 'Contexts'));
    const { profiles } = await api('/profiles');
    profiles.sort((a, b) => a.context.cluster.localeCompare(b.context.cluster) ||
      a.context.library.localeCompare(b.context.library) ||
      a.context.library_version.localeCompare(b.context.library_version) ||
      a.context.comm_size - b.context.comm_size);
    const sum = (f) => profiles.reduce((t, p) => t + num(p[f]), 0);
    const clusters = new Set(profiles.map((p) => p.context.cluster));
    const rows = profiles.map((p) => {
      const c = p.context;
      const last = [p.updated_at, p.last_report_at].filter(Boolean).sort().pop();
      return el('tr', { 'data-profile': p.id },
        el('td', {}, el('a', { href: `#/context/${p.id}` }, c.cluster)),
        el('td', {}, `${c.library} ${c.library_version}`),
        el('td', { class: 'num' }, c.comm_size),
        el('td', { class: 'num' }, `${c.nodes} × ${c.ppn}`),
        el('td', { class: 'num' }, p.campaigns),
        el('td', { class: 'num' }, p.job_reports),
        el('td', { class: 'num' }, p.rules_not_default,
          num(p.rules_not_default) > 0 ? el('span', { class: 'badge good' }, 'tuned') : null),
        el('td', { class: 'num' }, p.violations,
          num(p.violations) > 0 ? el('span', { class: 'badge bad' }, 'slow library') : null),
        el('td', { class: 'num' }, num(p.table_version) > 0 ? `v${p.table_version}` : '—'),
        el('td', {}, fmtDate(last)));
    });
    app.replaceChildren(
      el('h1', {}, 'Contexts'),
      el('p', { class: 'muted' }, 'Each context is one cluster, MPI library and version, communicator size and layout. colltune measures it, decides which algorithm runs each collective at each message size, and checks the decisions against what jobs observe.'),
      el('div', { class: 'cards' },
        card(profiles.length, 'contexts'),
        card(clusters.size, 'clusters'),
        card(sum('campaigns'), 'campaigns'),
        card(sum('job_reports'), 'jobs reported'),
        card(sum('rules_not_default'), 'decisions that differ from default'),
        card(sum('violations'), 'violations found')),
      profiles.length === 0
        ? el('p', { class: 'muted' }, 'No profiles yet: run a campaign (colltune campaign) or a job under the shim.')
        : table([
          'Cluster', 'MPI library', { label: 'Procs', num: true }, { label: 'Nodes × ppn', num: true },
          { label: 'Campaigns', num: true }, { label: 'Jobs reported', num: true },
          { label: 'Decisions ≠ default', num: true }, { label: 'Violations', num: true },
          { label: 'Table', num: true }, 'Last update'], rows, { class: 'contexts' }));
    done('overview');
  }

  function card(n, label) {
    return el('div', { class: 'card' }, el('div', { class: 'n' }, fmtCount(n)), el('div', { class: 'l' }, label));
  }

  // ---- a context -------------------------------------------------------

  let chartMode = 'relative';
  // The regimes campaigns time (common/regime.h); the charts show one.
  const REGIMES = ['sync', 'loop', 'imbalance'];
  const REGIME_TITLES = {
    sync: 'synchronized: a barrier before each call (latency)',
    loop: 'back to back: calls in a loop, per call',
    imbalance: 'after uneven work: per call, beyond the work',
  };
  let chartRegime = 'sync';

  async function context(id) {
    setCrumbs(el('a', { href: '#/' }, 'Contexts'), el('span', {}, `context ${id}`));
    performance.mark('colltune-fetch');
    const [profile, history, violations, jobs, pins, catalog] = await Promise.all([
      api(`/profiles/${id}`), api(`/profiles/${id}/history`), api(`/profiles/${id}/violations`),
      api(`/profiles/${id}/jobs?limit=1000`), api(`/profiles/${id}/pins`), algorithms(),
    ]);
    performance.mark('colltune-data');
    nativeNames = new Set(catalog.filter((a) => a.native).map((a) => a.name));
    const s = profile.profile;
    const c = s.context;
    const title = `${c.cluster} · ${c.library} ${c.library_version} · ${c.comm_size} processes on ${c.nodes} × ${c.ppn}`;
    setCrumbs(el('a', { href: '#/' }, 'Contexts'), el('span', {}, c.cluster));
    document.title = `colltune: ${c.cluster}`;
    const rules = (profile.table && profile.table.rules) || [];

    const chartsBox = el('div', { class: 'charts' });
    const modeButtons = ['relative', 'absolute'].map((m) => el('button', {
      type: 'button', 'aria-pressed': String(m === chartMode), 'data-mode': m,
      onclick: () => { chartMode = m; modeButtons.forEach((b) => b.setAttribute('aria-pressed', String(b.dataset.mode === m))); renderCharts(); },
    }, m === 'relative' ? 'Relative to default' : 'Absolute latency'));

    // The regimes the points were timed in (proto PointSummary.regime; empty
    // in answers of older daemons: sync). The charts show one at a time.
    const regimeOf = (p) => p.regime || 'sync';
    const regimes = REGIMES.filter((r) => profile.points.some((p) => regimeOf(p) === r));
    if (!regimes.includes(chartRegime)) chartRegime = regimes[0] || 'sync';
    const regimeButtons = regimes.map((r) => el('button', {
      type: 'button', 'aria-pressed': String(r === chartRegime), 'data-regime': r, title: REGIME_TITLES[r],
      onclick: () => { chartRegime = r; regimeButtons.forEach((b) => b.setAttribute('aria-pressed', String(b.dataset.regime === r))); renderCharts(); },
    }, r));

    // collective -> problem -> points of the regime shown (renderCharts)
    const byCollective = new Map();
    const problemChoice = new Map();
    function renderCharts() {
      destroyCharts();
      chartsBox.replaceChildren();
      byCollective.clear();
      for (const p of profile.points) {
        if (regimeOf(p) !== chartRegime) continue;
        if (!byCollective.has(p.collective)) byCollective.set(p.collective, new Map());
        const m = byCollective.get(p.collective);
        if (!m.has(p.problem)) m.set(p.problem, []);
        m.get(p.problem).push(p);
      }
      for (const [collective, problems] of [...byCollective].sort((a, b) => a[0].localeCompare(b[0]))) {
        const names = [...problems.keys()].sort();
        const problem = problemChoice.get(collective) ?? (names.includes('same') ? 'same' : names[0]);
        const canvas = el('canvas', { id: `chart-${collective}`, role: 'img', 'aria-label': `${collective}: latency by message size and algorithm` });
        const picker = names.length > 1 || names[0] !== ''
          ? el('select', { 'aria-label': 'block-size distribution', onchange: (e) => { problemChoice.set(collective, e.target.value); renderCharts(); } },
            names.map((n) => el('option', { value: n, selected: n === problem }, n)))
          : null;
        const natives = new Set(problems.get(problem).map((p) => p.algorithm).filter(isNative)).size;
        chartsBox.append(el('div', { class: 'chart', 'data-collective': collective },
          el('h3', {}, collective,
            natives ? el('span', {
              class: 'badge native', 'data-natives': natives,
              title: 'dashed lines: the MPI library\'s own algorithms (native:…), forced by colltune',
            }, `${natives} native`) : null,
            picker ? ' ' : null, picker),
          el('div', { class: 'canvas' }, canvas)));
        window.colltune.charts.push(drawChart(canvas, collective, problems.get(problem), rules, chartMode));
      }
    }

    const tableVersion = num(profile.table && profile.table.version);
    app.replaceChildren(
      el('h1', {}, title),
      el('div', { class: 'cards' },
        card(s.campaigns, 'campaigns'), card(s.launches, 'launches'), card(s.measurements, 'points measured'),
        card(s.job_reports, 'jobs reported'), card(s.rules_not_default, 'decisions ≠ default'),
        card(s.violations, 'violations'), card(tableVersion, 'table version')),
      el('nav', { class: 'sections', 'aria-label': 'sections' },
        ['charts', 'decisions', 'violations', 'online', 'history', 'pins', 'jobs'].map((a) =>
          el('a', { href: `#/context/${id}`, 'data-section': a, onclick: (e) => { e.preventDefault(); document.getElementById(a).scrollIntoView(); } }, a))),
      el('h2', { id: 'charts' }, 'Latency by message size'),
      el('div', { class: 'toolbar' }, el('span', { class: 'seg' }, modeButtons),
        regimes.length > 1 ? el('span', { class: 'seg regimes', 'aria-label': 'regime' }, el('span', { class: 'muted' }, 'Regime '), regimeButtons) : null,
        el('span', { class: 'muted' }, 'Lines: median over launches; error bars: smallest to largest per-launch median; wide yellow band: the algorithm the current table runs.'),
        el('span', { class: 'key' },
          el('span', { class: 'swatch default' }), 'default ',
          el('span', { class: 'swatch mockup' }), 'mock-ups (compositions of other collectives) ',
          el('span', { class: 'swatch native' }), 'the library\'s own algorithms (native)')),
      chartsBox,
      decisionsSection(profile, rules),
      violationsSection(violations.violations),
      onlineSection(profile.online || [], rules),
      historySection(id, history.versions, tableVersion),
      pinsSection(id, pins.pins, catalog),
      jobsSection(jobs));
    performance.mark('colltune-dom');
    renderCharts();
    performance.mark('colltune-charts');
    done('context');
  }

  // A rule's evidence per regime (proto RegimeEvidence): each regime's
  // speedup over default, marked where the algorithm won it; "sync only" for
  // campaign ranges decided before regimes were timed.
  function regimesCell(r) {
    const list = r.regimes || [];
    if (list.length === 0) {
      return (r.source || 'campaign') === 'campaign' && !r.pinned
        ? el('span', { class: 'badge warn', 'data-sync-only': 'true', title: 'Decided on synchronized timings only: a campaign (or table version) from before colltune timed loops and uneven arrival. Run a new campaign to judge it in every regime.' }, 'sync only')
        : '—';
    }
    if (r.algorithm === 'default') {
      return el('span', { class: 'muted' }, list.map((e) => e.regime).join(', '));
    }
    return el('span', { class: 'chips' }, list.map((e) => el('span', {
      class: e.won ? 'badge good' : num(e.speedup) < 1 ? 'badge bad' : 'badge',
      'data-regime': e.regime, 'data-won': String(!!e.won),
      title: `${REGIME_TITLES[e.regime] || e.regime}: default / ${r.algorithm} = ${fmtX(e.speedup)}, p = ${fmtP(e.p_value)}${e.won ? ' (won)' : ''}`,
    }, `${e.regime} ${fmtX(e.speedup)}${e.won ? ' ✓' : ''}`)));
  }

  function decisionsSection(profile, rules) {
    const t = profile.table || {};
    const rows = rules.map((r) => el('tr', { class: r.algorithm !== 'default' ? 'tuned' : undefined },
      el('td', {}, r.collective),
      el('td', {}, fmtRange(r.min_bytes, r.max_bytes)),
      el('td', {}, r.algorithm, nativeBadge(r.algorithm), r.pinned ? el('span', { class: 'badge' }, 'pinned') : null),
      el('td', { class: 'num' }, r.algorithm === 'default' ? '—' : fmtX(r.speedup)),
      el('td', { class: 'num' }, r.algorithm === 'default' ? '—' : fmtP(r.p_value)),
      el('td', { class: 'num' }, `${r.launches_default} / ${r.launches_algorithm}`),
      el('td', { class: 'regimes' }, regimesCell(r)),
      el('td', {}, r.source, r.campaigns && r.campaigns.length ? el('div', { class: 'muted' }, r.campaigns.join(', ')) : null),
      el('td', { class: 'num' }, `v${t.version}`)));
    return el('section', { id: 'decisions' },
      el('h2', {}, `Decision table v${num(t.version) || '—'}`),
      t.reason ? el('p', { class: 'muted' }, `${fmtDate(t.created_at)}: ${t.reason}`) : null,
      rules.length === 0 ? el('p', { class: 'muted' }, 'No decisions yet: every collective runs default.')
        : table(['Collective', 'Message sizes', 'Algorithm', { label: 'Speedup', num: true },
          { label: 'p-value', num: true }, { label: 'Launches (default / alg.)', num: true }, 'Regimes', 'Evidence', { label: 'Version', num: true }],
        rows, { class: 'decisions' }));
  }

  // Three kinds (proto Violation): guideline (a mock-up beats default: the
  // library lacks a better implementation), selection (one of the library's
  // own algorithms beats default: its decision rules pick the slower one) and
  // monotony (a larger message is faster).
  // A fourth, defect, is colltune's quirks table for the profile's library:
  // one of its own algorithms is wrong for some calls (no timings).
  const VIOLATION_KINDS = ['guideline', 'selection', 'monotony', 'defect'];

  function violationsSection(violations) {
    const rank = (k) => (VIOLATION_KINDS.includes(k) ? VIOLATION_KINDS.indexOf(k) : 0);
    const sorted = violations.map((v, i) => [v, i])
      .sort((a, b) => rank(a[0].kind) - rank(b[0].kind) || a[1] - b[1]).map(([v]) => v);
    const kindCell = (v) => {
      if (v.kind === 'selection') {
        return el('span', { class: 'badge native', title: 'the library\'s algorithm selection picks a slower algorithm than one it has' }, 'selection');
      }
      if (v.kind === 'monotony') return 'monotony';
      if (v.kind === 'defect') {
        return el('span', { class: 'badge bad', title: 'the library\'s own algorithm, forced, is wrong for these calls' }, 'library defect');
      }
      return v.guideline ? `guideline ${v.guideline}` : 'guideline';
    };
    const what = (v) => {
      if (v.kind === 'selection') {
        return [`default is ${fmtX(v.factor)} slower than the library's own `, el('strong', {}, v.algorithm),
          ` at ${fmtBytes(v.msg_bytes)}: its selection rules pick the slower one`];
      }
      if (v.kind === 'defect') {
        return [el('strong', {}, v.algorithm), ` is wrong for some calls (${v.forms}): ${v.evidence}. `,
          v.in_table ? el('strong', {}, 'The current table names it; jobs run the default for those calls.')
            : 'colltune never runs it for those calls.'];
      }
      if (v.kind === 'monotony') {
        return `${fmtBytes(v.msg_bytes)} takes ${fmtX(v.factor)} as long as ${fmtBytes(v.larger_bytes)}`;
      }
      return `default is ${fmtX(v.factor)} slower than ${v.algorithm} at ${fmtBytes(v.msg_bytes)}`;
    };
    const rows = sorted.map((v) => el('tr', { 'data-kind': v.kind, class: v.kind === 'selection' ? 'selection' : undefined },
      el('td', {}, kindCell(v)),
      el('td', {}, v.collective),
      el('td', {}, what(v)),
      el('td', { class: 'num' }, v.kind === 'defect' ? '' : fmtP(v.p_value)),
      el('td', { class: 'num' }, v.kind === 'defect' ? '' : v.launches)));
    const counts = VIOLATION_KINDS.map((k) => `${violations.filter((v) => v.kind === k).length} ${k}`).join(' · ');
    return el('section', { id: 'violations' },
      el('h2', {}, `Violations (${violations.length})`),
      el('p', { class: 'muted' }, 'Where the MPI library\'s own collective is significantly slower than a composition of other collectives (guideline), than another of its own algorithms, which its selection rules should have picked (selection), or slower for a smaller message than for a larger one (monotony); and where one of its own algorithms is wrong for some calls (library defect).'),
      violations.length === 0 ? el('p', { class: 'muted' }, 'None found.')
        : [el('p', { class: 'counts' }, counts),
          table(['Kind', 'Collective', 'What', { label: 'p-value', num: true }, { label: 'Launches', num: true }], rows, { class: 'violations' })]);
  }

  // What production jobs measured, per size bucket: each algorithm's median
  // over jobs (one sample per job), next to what the table runs there.
  function onlineSection(online, rules) {
    const rows = online.map((o) => {
      const rule = ruleFor(rules, o.collective, num(o.min_bytes));
      const current = (rule ? rule.algorithm : 'default') === o.algorithm;
      return el('tr', { class: current ? 'tuned' : undefined },
        el('td', {}, o.collective),
        el('td', {}, fmtRange(o.min_bytes, o.max_bytes)),
        el('td', {}, o.algorithm, nativeBadge(o.algorithm), current ? el('span', { class: 'badge' }, 'table\'s choice') : null),
        el('td', { class: 'num' }, o.jobs),
        el('td', { class: 'num' }, fmtCount(o.timed_calls)),
        el('td', { class: 'num' }, fmtCount(o.explored_calls)),
        el('td', { class: 'num' }, fmtTime(o.median_seconds)));
    });
    return el('section', { id: 'online' },
      el('h2', {}, `Online evidence (${online.length})`),
      el('p', { class: 'muted' }, 'What jobs under the shim timed, per message-size bucket: the median over jobs of each job\'s median latency, from the newest jobs. A bucket is decided from these once the table\'s choice has reports from enough distinct jobs.'),
      online.length === 0 ? el('p', { class: 'muted' }, 'No job has reported timings for this context yet.')
        : el('details', {}, el('summary', {}, `Show the ${online.length} cells`),
          table(['Collective', 'Message sizes', 'Algorithm', { label: 'Jobs', num: true }, { label: 'Timed calls', num: true },
            { label: 'Explored', num: true }, { label: 'Median latency', num: true }], rows, { class: 'online' })));
  }

  function historySection(id, versions, current) {
    const status = el('div');
    const rows = versions.map((v) => el('tr', { 'data-version': v.version },
      el('td', { class: 'num' }, `v${v.version}`, num(v.version) === current ? el('span', { class: 'badge good' }, 'current') : null),
      el('td', {}, fmtDate(v.created_at)),
      el('td', {}, v.reason),
      el('td', {}, v.changes ? v.changes.split('; ').map((ch) => el('div', {}, ch)) : el('span', { class: 'muted' }, 'first table')),
      el('td', { class: 'num' }, v.rules_not_default),
      el('td', {}, num(v.version) === current ? null : el('button', {
        type: 'button', class: 'small', onclick: async () => {
          try {
            const r = await adminPost(`/profiles/${id}/rollback`, { version: num(v.version) });
            status.replaceChildren(el('p', { class: 'notice' }, `Rolled back: v${r.table_version} has the rules of v${v.version}.`));
            setTimeout(route, 600);
          } catch (e) { showError(status, e); }
        },
      }, 'Roll back to this'))));
    return el('section', { id: 'history' },
      el('h2', {}, `Table versions (${versions.length})`),
      status,
      table([{ label: 'Version', num: true }, 'When', 'Why', 'What changed', { label: '≠ default', num: true }, ''], rows, { class: 'history' }));
  }

  function pinsSection(id, pins, catalog) {
    const status = el('div');
    const rows = pins.map((p) => el('tr', {},
      el('td', {}, p.collective), el('td', {}, fmtRange(p.min_bytes, p.max_bytes)), el('td', {}, p.algorithm),
      el('td', {}, p.note), el('td', {}, fmtDate(p.created_at)),
      el('td', {}, el('button', {
        type: 'button', class: 'small', onclick: async () => {
          try {
            await adminPost(`/profiles/${id}/pins/${p.id}/unpin`);
            route();
          } catch (e) { showError(status, e); }
        },
      }, 'Unpin'))));
    const collectives = [...new Set(catalog.filter((a) => a.collective).map((a) => a.collective))].sort();
    const collective = el('select', { name: 'collective' }, collectives.map((c) => el('option', { value: c }, c)));
    const algorithm = el('select', { name: 'algorithm' });
    const fillAlgorithms = () => {
      const mine = catalog.filter((a) => a.collective === collective.value);
      const natives = mine.filter((a) => a.native);
      algorithm.replaceChildren(
        el('option', { value: 'default' }, 'default'),
        mine.filter((a) => !a.native).map((a) => el('option', { value: a.name }, a.name)),
        natives.length ? el('optgroup', { label: 'the library\'s own (native)' },
          natives.map((a) => el('option', { value: a.name }, a.name))) : null);
    };
    collective.addEventListener('change', fillAlgorithms);
    fillAlgorithms();
    const min = el('input', { name: 'min', value: '0', size: 10 });
    const max = el('input', { name: 'max', value: '-1', size: 10 });
    const note = el('input', { name: 'note', size: 24, maxlength: 128 });
    const form = el('form', {
      class: 'pin', onsubmit: async (e) => {
        e.preventDefault();
        try {
          await adminPost(`/profiles/${id}/pins`, {
            collective: collective.value, algorithm: algorithm.value,
            min_bytes: min.value.trim(), max_bytes: max.value.trim(), note: note.value,
          });
          route();
        } catch (err) { showError(status, err); }
      },
    },
    el('label', {}, 'collective', collective), el('label', {}, 'algorithm', algorithm),
    el('label', {}, 'from bytes', min), el('label', {}, 'to bytes (-1: no limit)', max),
    el('label', {}, 'note', note), el('button', { type: 'submit' }, 'Pin'));
    return el('section', { id: 'pins' },
      el('h2', {}, `Pins (${pins.length})`),
      status,
      pins.length ? table(['Collective', 'Message sizes', 'Algorithm', 'Note', 'Since', ''], rows, { class: 'pins' })
        : el('p', { class: 'muted' }, 'No pins: the engine decides every range.'),
      el('details', {}, el('summary', {}, 'Pin an algorithm (admin token needed)'), form));
  }

  // Non-blocking, persistent and neighbourhood collectives the job called
  // (counted, not tuned): one chip per collective with its calls summed over
  // ranks; the size buckets in its title.
  function countedChips(counted) {
    const by = new Map();
    for (const c of counted) {
      if (!by.has(c.collective)) by.set(c.collective, { kind: c.kind, calls: 0, buckets: [] });
      const t = by.get(c.collective);
      t.calls += num(c.calls);
      t.buckets.push(`${num(c.max_bytes) === 0 ? '0 B' : fmtRange(c.min_bytes, c.max_bytes)}: ${num(c.calls)}`);
    }
    if (by.size === 0) return el('span', { class: 'muted' }, '—');
    return [...by].sort((a, b) => a[0].localeCompare(b[0])).map(([name, t]) => el('span', {
      title: `${t.kind}, calls summed over ranks per message size: ${t.buckets.join('; ')}`,
    }, `${name} ${t.calls}`));
  }

  function jobsSection(jobs) {
    const reports = jobs.reports;
    const body = el('tbody');
    const shown = 50;
    const row = (r) => el('tr', {},
      el('td', {}, fmtDate(r.received_at)),
      el('td', {}, r.job_id, r.run_id ? el('div', { class: 'muted' }, r.run_id) : null),
      el('td', { class: 'num' }, `v${r.table_version}`),
      el('td', { class: 'num' }, r.ranks),
      el('td', {}, r.final ? 'final' : 'snapshot'),
      el('td', { class: 'chips' }, r.collectives.map((o) => el('span', {
        title: `${o.calls} calls, ${o.tuned_calls} sent to a mock-up, ${o.compared_calls} compared with default in this job`,
      }, `${o.collective} `, num(o.tuned_calls) === 0 ? el('span', { class: 'muted' }, 'default')
        : num(o.speedup) > 0 ? el('span', { class: num(o.speedup) >= 1 ? 'badge good' : 'badge bad' }, fmtX(o.speedup))
          : el('span', { class: 'muted' }, 'not compared')))),
      el('td', { class: 'chips counted' }, countedChips(r.counted || [])));
    body.append(...reports.slice(0, shown).map(row));
    const more = reports.length > shown ? el('button', {
      type: 'button', class: 'small', onclick: (e) => { body.replaceChildren(...reports.map(row)); e.target.remove(); },
    }, `Show all ${reports.length}`) : null;
    // The call-weighted observed speedup over all listed jobs, per collective.
    // Call-weighted observed speedup per collective over a set of reports:
    // the compared calls' total time with default over their time as run.
    const observedBadges = (rs) => {
      const totals = new Map();
      for (const r of rs) {
        for (const o of r.collectives) {
          if (num(o.compared_calls) === 0 || num(o.speedup) <= 0) continue;
          const t = totals.get(o.collective) || { calls: 0, sum: 0 };
          t.calls += num(o.compared_calls);
          t.sum += num(o.compared_calls) / num(o.speedup);
          totals.set(o.collective, t);
        }
      }
      return [...totals].sort((a, b) => a[0].localeCompare(b[0])).map(([coll, t]) => {
        const x = t.calls / t.sum;
        return el('span', { class: x >= 1 ? 'badge good' : 'badge bad' }, `${coll} ${fmtX(x)}`);
      });
    };
    const summary = observedBadges(reports);
    // The same per table version: did each version's choices pay off?
    const byVersion = new Map();
    for (const r of reports) {
      const v = num(r.table_version);
      if (!byVersion.has(v)) byVersion.set(v, []);
      byVersion.get(v).push(r);
    }
    const versionRows = [...byVersion].sort((a, b) => b[0] - a[0]).map(([v, rs]) => {
      const badges = observedBadges(rs);
      return el('tr', {},
        el('td', { class: 'num' }, `v${v}`), el('td', { class: 'num' }, rs.length),
        el('td', { class: 'chips' }, badges.length ? badges : el('span', { class: 'muted' }, 'nothing compared')));
    });
    return el('section', { id: 'jobs' },
      el('h2', {}, `Job reports (${jobs.total} in all, newest ${reports.length} loaded)`),
      el('p', { class: 'muted' }, 'Observed speedup: within each job, the time default took on the calls the shim explored it with, against the time the table\'s choice took, weighted by calls. Counted, not tuned: the job\'s calls of non-blocking, persistent and neighbourhood collectives, which the shim passes to the library unchanged (summed over ranks; sizes in each entry\'s tooltip).'),
      summary.length ? el('p', {}, 'Over these jobs: ', summary) : null,
      versionRows.length ? table([{ label: 'Table', num: true }, { label: 'Jobs', num: true }, 'Observed speedup per collective'],
        versionRows, { class: 'by-version' }) : null,
      el('h3', { class: 'spaced' }, 'Newest reports'),
      reports.length === 0 ? el('p', { class: 'muted' }, 'No job has reported yet.')
        : el('table', { class: 'jobs' },
          el('thead', {}, el('tr', {}, ['When', 'Job', { label: 'Table', num: true }, { label: 'Ranks', num: true }, 'Report', 'Observed per collective', 'Counted, not tuned (calls)']
            .map((h) => el('th', { class: h.num ? 'num' : undefined }, h.label || h)))),
          body),
      more);
  }

  let catalogCache = null;
  async function algorithms() {
    if (!catalogCache) catalogCache = (await api('/algorithms')).algorithms;
    return catalogCache;
  }

  // ---- routing ---------------------------------------------------------

  function notFound() {
    setCrumbs(el('a', { href: '#/' }, 'Contexts'));
    app.replaceChildren(el('p', { class: 'error' }, `No such page: ${location.hash}`));
    done('missing');
  }

  async function route() {
    destroyCharts();
    document.title = 'colltune';
    const m = location.hash.match(/^#\/context\/(\d+)$/);
    try {
      if (!location.hash || location.hash === '#/' || location.hash === '#') await overview();
      else if (m) await context(Number(m[1]));
      else notFound();
    } catch (e) {
      showError(app, e);
      done('error');
    }
  }

  window.addEventListener('hashchange', route);
  route();
})();
