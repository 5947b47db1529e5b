// colltune web view: a single page over colltuned's JSON API (/api/v1/,
// docs/web-api.md). Everything taken from the API reaches the page as text
// nodes (el() below never parses markup), so a cluster, library, job or
// campaign name cannot inject markup or script; the server's
// Content-Security-Policy would refuse inline script as well.
'use strict';

//
// view.js: the page's elements, formatting, the API and errors; charts.js,
// sections.js and app.js (overview, context page, routing) build on it, in
// that order (index.html), through window.colltuneView.
window.colltuneView = {};
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

  // The regimes campaigns time (common/regime.h); a context's charts show one.
  const REGIMES = ['sync', 'loop', 'imbalance'];
  const REGIME_TITLES = {
    sync: 'synchronized: a barrier before each call (latency)',
    loop: 'back to back: calls in a loop, per call',
    imbalance: 'after uneven work: per call, beyond the work',
  };

  Object.assign(window.colltuneView, {
    REGIMES, REGIME_TITLES, app, crumbs, el, num, fmtBytes, fmtRange, fmtTime, fmtX,
    fmtP, fmtDate, fmtCount, api, adminPost, table, setCrumbs, showError, done,
  });
})();
