// colltune web view: a single page over colltuned's JSON API (/api/v1/,
// docs/web-api.md). Everything taken from the API reaches the page as text
// nodes (el() below never parses markup), so a cluster, library, job or
// campaign name cannot inject markup or script; the server's
// Content-Security-Policy would refuse inline script as well.
'use strict';

//
// app.js: the overview, a context's page and routing (view.js says how the
// files fit together).
(() => {
  const {
    app, el, num, fmtDate, fmtCount, api, table, setCrumbs, showError, done,
    setNativeNames, isNative, destroyCharts, drawChart, decisionsSection,
    violationsSection, onlineSection, historySection, pinsSection, jobsSection,
    REGIMES, REGIME_TITLES,
  } = window.colltuneView;

  // How a context's ranks sit on nodes (common/layout.h, LayoutText):
  // "2 × 2", "3+1 on 2 nodes", with the placement unless by node blocks.
  function layoutText(c) {
    let text = c.node_sizes ? `${c.node_sizes} on ${c.nodes} nodes` : `${c.nodes} × ${c.ppn}`;
    if (c.placement === 'round_robin') text += ', round robin';
    if (c.placement === 'scattered') text += ', scattered';
    return text;
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
        el('td', { class: 'num' }, layoutText(c)),
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
          'Cluster', 'MPI library', { label: 'Procs', num: true }, { label: 'Layout', num: true },
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
  let chartRegime = 'sync';

  async function context(id) {
    setCrumbs(el('a', { href: '#/' }, 'Contexts'), el('span', {}, `context ${id}`));
    performance.mark('colltune-fetch');
    const [profile, history, violations, jobs, pins, catalog] = await Promise.all([
      api(`/profiles/${id}`), api(`/profiles/${id}/history`), api(`/profiles/${id}/violations`),
      api(`/profiles/${id}/jobs?limit=1000`), api(`/profiles/${id}/pins`), algorithms(),
    ]);
    performance.mark('colltune-data');
    setNativeNames(new Set(catalog.filter((a) => a.native).map((a) => a.name)));
    const s = profile.profile;
    const c = s.context;
    const title = `${c.cluster} · ${c.library} ${c.library_version} · ${c.comm_size} processes on ${layoutText(c)}`;
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
        // Held-out validation points check the table; the charts show the
        // campaigns' measurements the table was decided from.
        if (regimeOf(p) !== chartRegime || p.held_out) continue;
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
          ? el('select', { 'aria-label': 'block-size distribution or datatype layout', onchange: (e) => { problemChoice.set(collective, e.target.value); renderCharts(); } },
            names.map((n) => el('option', { value: n, selected: n === problem }, n === '' ? 'contiguous' : n)))
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
        // Points of a datatype layout ("@tiled/8B") are decided by that
        // layout's rules, the others by the plain ones.
        const layout = problem.startsWith('@') ? problem.slice(1) : '';
        const ruling = rules.filter((r) => (r.layout || '') === layout);
        window.colltune.charts.push(drawChart(canvas, collective, problems.get(problem), ruling, chartMode));
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

  window.colltuneView.route = route;
})();
