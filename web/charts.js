// colltune web view: the latency charts (Chart.js) and how algorithms are
// told apart in them (view.js says how the files fit together).
(() => {
  const {
    el, num, fmtBytes, fmtX, api, table
  } = window.colltuneView;

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
  // The catalogue's native names, once the page has them.
  const setNativeNames = (names) => { nativeNames = names; };
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
            title: { display: true, text: points.some((p) => p.problem && !p.problem.startsWith('@')) ? 'average block size' : 'message size' },
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

  Object.assign(window.colltuneView, {
    setNativeNames, isNative, nativeBadge, destroyCharts, ruleFor, drawChart,
  });
})();
