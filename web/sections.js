// colltune web view: the sections of a context's page (decisions,
// violations, online evidence, history, pins, jobs).
(() => {
  const {
    el, num, fmtBytes, fmtRange, fmtTime, fmtX, fmtP, fmtDate, fmtCount, adminPost,
    table, showError, nativeBadge, ruleFor,
    REGIME_TITLES,
  } = window.colltuneView;

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

  // A rule's regime switch (proto Rule.loop_algorithm, imbalance_algorithm):
  // what the shim runs instead where it finds a job's calls back to back or
  // after uneven work, with its speedup over the rule's algorithm there.
  function switchesOf(r) {
    const items = [['loop', r.loop_algorithm, r.loop_speedup],
      ['imbalance', r.imbalance_algorithm, r.imbalance_speedup]].filter((x) => x[1]);
    if (items.length === 0) return null;
    return el('div', { class: 'switches' }, items.map(([regime, alg, speedup]) => el('div', {
      class: 'muted', 'data-switch': regime,
      title: `Regime switch: where the shim finds a job's calls ${regime === 'loop' ? 'back to back' : 'after uneven work'}, ${alg} runs instead of ${r.algorithm} (${fmtX(speedup)} faster there)`,
    }, `${regime}: ${alg} ${fmtX(speedup)}`)));
  }

  function decisionsSection(profile, rules) {
    const t = profile.table || {};
    // A datatype layout's rule reads as in table files: bcast@tiled/8B.
    const rows = rules.map((r) => el('tr', { class: r.algorithm !== 'default' ? 'tuned' : undefined },
      el('td', {}, r.layout ? `${r.collective}@${r.layout}` : r.collective),
      el('td', {}, fmtRange(r.min_bytes, r.max_bytes)),
      el('td', {}, r.algorithm, nativeBadge(r.algorithm), r.pinned ? el('span', { class: 'badge' }, 'pinned') : null,
        switchesOf(r)),
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
      if (v.layout) {
        return `data of a ${v.layout} datatype moves ${fmtX(v.factor)} faster with ${v.algorithm} than through the type at ${fmtBytes(v.msg_bytes)}`;
      }
      return `default is ${fmtX(v.factor)} slower than ${v.algorithm} at ${fmtBytes(v.msg_bytes)}`;
    };
    // What the current table runs at the point, and why the faster one
    // cannot replace default where the engine's tests keep it out.
    const tableRuns = (v) => {
      if (v.kind === 'monotony' || v.kind === 'defect' || !v.table_algorithm) return '';
      return [v.table_algorithm === 'default' ? 'default' : el('strong', {}, v.table_algorithm),
        v.not_chosen ? el('span', { class: 'muted' }, ` (${v.algorithm} not chosen: ${v.not_chosen})`) : ''];
    };
    const rows = sorted.map((v) => el('tr', { 'data-kind': v.kind, class: v.kind === 'selection' ? 'selection' : undefined },
      el('td', {}, kindCell(v)),
      el('td', {}, v.layout ? `${v.collective}@${v.layout}` : v.collective),
      el('td', {}, what(v)),
      el('td', { class: 'num' }, v.kind === 'defect' ? '' : fmtP(v.p_value)),
      el('td', { class: 'num' }, v.kind === 'defect' ? '' : v.launches),
      el('td', { class: 'table-runs' }, tableRuns(v))));
    const counts = VIOLATION_KINDS.map((k) => `${violations.filter((v) => v.kind === k).length} ${k}`).join(' · ');
    return el('section', { id: 'violations' },
      el('h2', {}, `Violations (${violations.length})`),
      el('p', { class: 'muted' }, 'Where the MPI library\'s own collective is significantly slower than a composition of other collectives (guideline), than another of its own algorithms, which its selection rules should have picked (selection), or slower for a smaller message than for a larger one (monotony); and where one of its own algorithms is wrong for some calls (library defect).'),
      violations.length === 0 ? el('p', { class: 'muted' }, 'None found.')
        : [el('p', { class: 'counts' }, counts),
          table(['Kind', 'Collective', 'What', { label: 'p-value', num: true }, { label: 'Launches', num: true }, 'Table runs'], rows, { class: 'violations' })]);
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
            setTimeout(() => window.colltuneView.route(), 600);
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
            window.colltuneView.route();
          } catch (e) { showError(status, e); }
        },
      }, 'Unpin'))));
    const collectives = [...new Set(catalog.filter((a) => a.collective).map((a) => a.collective))].sort();
    const collective = el('select', { name: 'collective' }, collectives.map((c) => el('option', { value: c }, c)));
    const algorithm = el('select', { name: 'algorithm' });
    const fillAlgorithms = () => {
      // A whole-job choice (coll/han) cannot be pinned: no table runs it per call.
      const mine = catalog.filter((a) => a.collective === collective.value && !a.whole_job);
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
          window.colltuneView.route();
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

  Object.assign(window.colltuneView, {
    decisionsSection, violationsSection, onlineSection, historySection, pinsSection,
    jobsSection,
  });
})();
