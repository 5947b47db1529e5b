// Browser test of colltune's web view: Debian's Chromium, headless, driven by
// playwright-core. colltuned runs on a database seeded by seed_web (started
// by browser_test.sh). Every expectation is read from the JSON API the page
// itself uses, never copied from the page's code.
//
// Prints one line per check, "PASS: name" or "FAIL: name :: why", which the
// shell wrapper turns into JUnit test cases; "MEASURE: ..." lines report
// timings. Environment: BASE_URL, PLAYWRIGHT_CORE (module path), ARTIFACTS
// (screenshot directory), ADMIN_TOKEN, CHROMIUM (executable).
'use strict';

const path = require('path');
const { chromium } = require(process.env.PLAYWRIGHT_CORE);

const BASE = process.env.BASE_URL;
const ARTIFACTS = process.env.ARTIFACTS;
const HOSTILE_CLUSTER = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';

let failures = 0;
function check(name, ok, why) {
  if (ok) {
    console.log(`PASS: ${name}`);
  } else {
    failures++;
    console.log(`FAIL: ${name} :: ${why === undefined ? '' : String(why).replace(/\n/g, ' ')}`);
  }
}

async function api(p) {
  const r = await fetch(`${BASE}/api/v1${p}`);
  if (!r.ok) throw new Error(`${p}: HTTP ${r.status}`);
  return r.json();
}

async function noHorizontalScroll(page) {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}

async function main() {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  // A laptop screen.
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // The failed requests this test provokes on purpose (a wrong token, an
  // unknown context) log "Failed to load resource"; anything else logged as
  // an error (a script error, a Content-Security-Policy refusal) fails.
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`console: ${m.text()}`);
  });

  const { profiles } = await api('/profiles');
  const main = profiles.find((p) => p.context.cluster === 'hpc-a');
  const hostile = profiles.find((p) => p.context.cluster === HOSTILE_CLUSTER);
  check('seeded profiles are there', main && hostile, JSON.stringify(profiles.map((p) => p.context.cluster)));

  // ---- overview ----
  await page.goto(`${BASE}/#/`);
  await page.waitForSelector('body[data-rendered="overview"]', { timeout: 15000 });
  const rows = await page.locator('table.contexts tbody tr').count();
  check('overview lists every context', rows === profiles.length, `${rows} rows, API has ${profiles.length}`);
  const mainRow = page.locator(`tr[data-profile="${main.id}"] td`);
  const cells = await mainRow.allTextContents();
  check('overview row shows the counts of the API',
    cells[0] === 'hpc-a' && cells[4] === String(main.campaigns) && cells[5] === String(main.job_reports) &&
      cells[6].startsWith(String(main.rules_not_default)) && cells[7].startsWith(String(main.violations)),
    JSON.stringify(cells));
  const hostileText = await page.locator(`tr[data-profile="${hostile.id}"] td a`).textContent();
  check('a hostile cluster name appears as text', hostileText === HOSTILE_CLUSTER, hostileText);
  check('a hostile name injects no element',
    (await page.locator('#injected').count()) === 0 && (await page.locator('main img').count()) === 0 &&
      (await page.locator('main script').count()) === 0);
  check('a hostile name runs no script', (await page.evaluate(() => window.__xss)) === undefined);
  check('overview fits a laptop screen without horizontal scrolling', await noHorizontalScroll(page));
  await page.screenshot({ path: path.join(ARTIFACTS, 'overview.png'), fullPage: true });

  // ---- navigation to a context ----
  await page.click(`tr[data-profile="${main.id}"] td a`);
  await page.waitForSelector('body[data-rendered="context"]', { timeout: 15000 });
  check('clicking a context opens its page', page.url().endsWith(`#/context/${main.id}`), page.url());

  const profile = await api(`/profiles/${main.id}`);
  const expectedSeries = new Map();  // collective -> algorithms measured
  for (const p of profile.points) {
    if (!expectedSeries.has(p.collective)) expectedSeries.set(p.collective, new Set());
    expectedSeries.get(p.collective).add(p.algorithm);
  }
  const charts = await page.evaluate(() => window.colltune.charts.map((c) => ({
    id: c.canvas.id,
    series: c.data.datasets.length,
    labels: c.data.datasets.map((d) => d.label),
    points: c.data.datasets.map((d) => d.data.length),
    drawn: c.canvas.width > 0 && c.canvas.height > 0,
    yTitle: c.options.scales.y.title.text,
  })));
  check('one chart per measured collective', charts.length === expectedSeries.size,
    `${charts.length} charts, ${expectedSeries.size} collectives`);
  for (const [collective, algorithms] of expectedSeries) {
    const c = charts.find((x) => x.id === `chart-${collective}`);
    check(`${collective}: one series per algorithm plus the tuned choice`,
      c && c.series === algorithms.size + 1 && algorithms.size > 1 &&
        [...algorithms].every((a) => c.labels.includes(a)) && c.labels.includes('tuned choice'),
      c ? `${c.series} series: ${c.labels.join(',')}; API: ${[...algorithms].join(',')}` : 'no chart');
    const sizes = new Set(profile.points.filter((p) => p.collective === collective).map((p) => p.msg_bytes)).size;
    check(`${collective}: every series has every measured size`, c && c.drawn && c.points.every((n) => n === sizes),
      c ? `${c.points.join(',')} vs ${sizes}` : 'no chart');
  }

  // The library's own algorithms (native:<name>, as the catalogue marks
  // them) are drawn apart from the mock-ups: dashed, in colours no mock-up
  // has, after them in the legend, and counted in the chart's header.
  const nativeNames = new Set((await api('/algorithms')).algorithms.filter((a) => a.native).map((a) => a.name));
  const styles = await page.evaluate(() => window.colltune.charts.map((c) => ({
    id: c.canvas.id,
    series: c.data.datasets.filter((d) => d.label !== 'tuned choice').map((d) => ({
      label: d.label, native: d.native, dash: d.borderDash || null, colour: d.borderColor,
    })),
  })));
  let nativeCharts = 0;
  for (const [collective, algorithms] of expectedSeries) {
    const natives = [...algorithms].filter((a) => nativeNames.has(a));
    const st = styles.find((x) => x.id === `chart-${collective}`);
    const mockups = st ? st.series.filter((x) => x.label !== 'default' && !nativeNames.has(x.label)) : [];
    const drawn = st ? st.series.filter((x) => nativeNames.has(x.label)) : [];
    const mockupColours = new Set(mockups.map((x) => x.colour));
    const labels = st ? st.series.map((x) => x.label) : [];
    const lastMockup = Math.max(-1, ...mockups.map((x) => labels.indexOf(x.label)));
    check(`${collective}: the library's own algorithms are dashed lines marked native, mock-ups solid`,
      st && drawn.length === natives.length &&
        drawn.every((x) => x.native === true && Array.isArray(x.dash) && x.dash.length > 0 &&
          !mockupColours.has(x.colour) && labels.indexOf(x.label) > lastMockup) &&
        mockups.every((x) => x.native === false && x.dash === null),
      st ? JSON.stringify(st.series) : 'no chart');
    const badge = page.locator(`[data-collective="${collective}"] h3 .badge.native`);
    const counted = (await badge.count()) ? await badge.getAttribute('data-natives') : null;
    check(`${collective}: the chart's header counts its native algorithms`,
      natives.length ? counted === String(natives.length) : counted === null,
      `badge ${counted}, API ${natives.length}`);
    if (natives.length) nativeCharts++;
  }
  check('the seeded profile has native algorithms in its charts', nativeCharts > 0);

  // The decision table shows the seeded decisions.
  const rules = profile.table.rules;
  const ruleRows = await page.locator('table.decisions tbody tr').allTextContents();
  check('decision table has every rule', ruleRows.length === rules.length && rules.length > 0,
    `${ruleRows.length} rows, ${rules.length} rules`);
  const tuned = rules.filter((r) => r.algorithm !== 'default');
  check('the seeded profile has decisions that differ from default', tuned.length > 0);
  const tunedRows = await page.locator('table.decisions tbody tr.tuned').allTextContents();
  check('every non-default decision is shown and highlighted',
    tunedRows.length === tuned.length &&
      tuned.every((r) => tunedRows.some((t) => t.startsWith(r.collective) && t.includes(r.algorithm) &&
        t.includes(`${Number(r.speedup).toFixed(2)}×`))),
    JSON.stringify(tunedRows.slice(0, 3)));

  const nativeRules = tuned.filter((r) => nativeNames.has(r.algorithm));
  const nativeRows = await page.locator('table.decisions tbody tr.tuned').filter({ has: page.locator('.badge.native') }).allTextContents();
  check('decisions that run a native algorithm carry the native badge',
    nativeRules.length > 0 && nativeRows.length === nativeRules.length &&
      nativeRules.every((r) => nativeRows.some((t) => t.startsWith(r.collective) && t.includes(r.algorithm))),
    `${nativeRows.length} rows with the badge, ${nativeRules.length} native rules`);

  // Regimes: the main context's campaign timed every point synchronized,
  // back to back and after uneven work. Each campaign decision shows its
  // evidence per regime, the regimes a decision won marked.
  const campaignRules = rules.filter((r) => r.source === 'campaign' && !r.pinned);
  check('every campaign decision carries its evidence in the three regimes',
    campaignRules.length > 0 && campaignRules.every((r) => (r.regimes || []).map((e) => e.regime).join() === 'sync,loop,imbalance'),
    JSON.stringify(campaignRules.slice(0, 2)));
  const chips = await page.locator('table.decisions tbody tr.tuned td.regimes .badge[data-regime]').count();
  const wonChips = await page.locator('table.decisions tbody tr.tuned td.regimes .badge[data-won="true"]').count();
  const wonApi = tuned.reduce((n, r) => n + (r.regimes || []).filter((e) => e.won).length, 0);
  check('each tuned decision shows a chip per regime, marked where it won',
    chips === 3 * tuned.filter((r) => r.source === 'campaign').length && wonChips === wonApi && wonApi >= tuned.length,
    `${chips} chips, ${wonChips} won (API ${wonApi}), ${tuned.length} tuned`);
  // A regime switch: reduce_as_reducescatter_gatherv is slower from a
  // barrier and twice as fast in the other regimes; the table names it for
  // them, and the decisions table shows it under the rule's algorithm.
  const switching = rules.filter((r) => r.collective === 'reduce' && r.loop_algorithm === 'reduce_as_reducescatter_gatherv');
  check('the API names a regime switch where a candidate wins back to back only',
    switching.length > 0 && switching.every((r) => r.algorithm !== 'reduce_as_reducescatter_gatherv' && Number(r.loop_speedup) > 1.3),
    JSON.stringify(rules.filter((r) => r.collective === 'reduce').slice(0, 3)));
  const switchCells = await page.locator('table.decisions tbody [data-switch="loop"]').allTextContents();
  check('the decisions table shows each switch with its speedup there',
    switchCells.length === rules.filter((r) => r.loop_algorithm).length &&
      switchCells.some((t) => /^loop: reduce_as_reducescatter_gatherv \d/.test(t)),
    JSON.stringify(switchCells.slice(0, 3)));
  check('no decision of this campaign is marked as synchronized only',
    (await page.locator('#decisions [data-sync-only]').count()) === 0);
  check('an algorithm faster from a barrier but twice as slow back to back is never chosen',
    !rules.some((r) => r.collective === 'allreduce' && r.algorithm === 'native:recursive_doubling') &&
      profile.points.some((p) => p.algorithm === 'native:recursive_doubling' && p.regime === 'loop'));
  // The charts show one regime at a time: the same algorithm's relative
  // latency at 1 byte is below default's in sync and above it back to back.
  const firstRelative = () => page.evaluate(() => {
    const c = window.colltune.charts.find((x) => x.canvas.id === 'chart-allreduce');
    const d = c && c.data.datasets.find((x) => x.label === 'native:recursive_doubling');
    return d && d.data.length ? d.data[0].y : null;
  });
  const inSync = await firstRelative();
  await page.click('.seg.regimes button[data-regime="loop"]');
  const inLoop = await firstRelative();
  check('the regime buttons switch the charts to the loop regime\'s series',
    inSync !== null && inLoop !== null && inSync < 1 && inLoop > 1.2, `sync ${inSync}, loop ${inLoop}`);
  await page.locator('[data-collective="allreduce"]').screenshot({ path: path.join(ARTIFACTS, 'chart-loop.png') });
  await page.click('.seg.regimes button[data-regime="sync"]');

  const violations = (await api(`/profiles/${main.id}/violations`)).violations;
  const vRows = await page.locator('table.violations tbody tr').count();
  check('violations table lists every violation', vRows === violations.length && vRows > 0, `${vRows} vs ${violations.length}`);
  // Selection violations (a native algorithm beats the library's default)
  // are their own kind, apart from guideline violations, naming the native.
  for (const kind of ['guideline', 'selection', 'monotony']) {
    const want = violations.filter((v) => v.kind === kind);
    const got = await page.locator(`table.violations tbody tr[data-kind="${kind}"]`).allTextContents();
    check(`violations of kind ${kind} are listed as that kind`,
      want.length > 0 && got.length === want.length &&
        got.every((t) => t.startsWith(kind)) &&
        want.every((v) => got.some((t) => t.includes(v.collective) && (kind === 'monotony' || t.includes(v.algorithm)))),
      `${got.length} rows, API ${want.length}: ${JSON.stringify(got.slice(0, 2))}`);
  }
  // Library defects (colltune's quirks table for the profile's library):
  // each row names the algorithm, the forms it is wrong for and the evidence.
  const defects = violations.filter((v) => v.kind === 'defect');
  const defectRows = await page.locator('table.violations tbody tr[data-kind="defect"]').allTextContents();
  check('library defects are listed with their forms and evidence',
    defects.length > 0 && defectRows.length === defects.length &&
      defects.every((v) => defectRows.some((t) => t.startsWith('library defect') && t.includes(v.algorithm) &&
        t.includes(v.forms) && t.includes(v.evidence))),
    `${defectRows.length} rows, API ${defects.length}: ${JSON.stringify(defectRows.slice(0, 1))}`);
  const selectionRow = await page.locator('table.violations tbody tr[data-kind="selection"]').first().textContent();
  check('a selection violation says the library\'s own algorithm is faster than its choice',
    /slower than the library's own native:/.test(selectionRow) && selectionRow.includes('selection rules'), selectionRow);
  // Each guideline and selection violation shows what the table runs there,
  // and why the faster algorithm is not chosen where the engine keeps it out.
  const judged = violations.filter((v) => v.kind === 'guideline' || v.kind === 'selection');
  const runsCells = await page.locator('table.violations tbody tr:is([data-kind="guideline"], [data-kind="selection"]) td.table-runs').allTextContents();
  check('violations show what the table runs and why a faster algorithm is not chosen',
    judged.length > 0 && runsCells.length === judged.length &&
      judged.every((v) => runsCells.some((t) => t.startsWith(v.table_algorithm) && (!v.not_chosen || t.includes(v.not_chosen)))) &&
      judged.some((v) => v.not_chosen !== ''),
    `${runsCells.length} cells, API ${judged.length}: ${JSON.stringify(runsCells.slice(0, 3))}`);
  const counts = await page.locator('#violations p.counts').textContent();
  check('the violations section counts each kind',
    ['guideline', 'selection', 'monotony', 'defect'].every((k) => counts.includes(`${violations.filter((v) => v.kind === k).length} ${k}`)), counts);
  const oRows = await page.locator('table.online tbody tr').count();
  check('online evidence lists every bucket and algorithm jobs timed',
    oRows === profile.online.length && oRows > 0, `${oRows} vs ${profile.online.length}`);
  const history = (await api(`/profiles/${main.id}/history`)).versions;
  const hRows = await page.locator('table.history tbody tr').count();
  check('version history lists every version', hRows === history.length && hRows > 1, `${hRows} vs ${history.length}`);
  const jobs = await api(`/profiles/${main.id}/jobs?limit=50`);
  const jRows = await page.locator('table.jobs tbody tr').count();
  const jHeading = await page.locator('#jobs h2').textContent();
  check('recent job reports: newest 50 shown, total stated',
    jRows === 50 && jHeading.includes(`${jobs.total} in all`) && jobs.total === Number(main.job_reports),
    `${jRows} rows, heading ${jHeading}`);
  const firstJob = await page.locator('table.jobs tbody tr').first().textContent();
  check('newest job report first', firstJob.includes(jobs.reports[0].job_id), firstJob);
  // Counted (not tuned) collectives: each row shows the report's calls per
  // collective, summed over its size buckets, exactly as the API has them.
  const countedWanted = (r) => {
    const by = new Map();
    for (const c of r.counted || []) by.set(c.collective, (by.get(c.collective) || 0) + Number(c.calls));
    return [...by].sort((a, b) => a[0].localeCompare(b[0])).map(([n, k]) => `${n} ${k}`);
  };
  const countedCells = await page.locator('table.jobs tbody tr td.counted').evaluateAll(
    (tds) => tds.map((td) => [...td.querySelectorAll('span')].map((s) => s.textContent)));
  const withCounts = jobs.reports.filter((r) => (r.counted || []).length > 0).length;
  const countedMismatch = jobs.reports.findIndex((r, i) =>
    JSON.stringify(countedWanted(r)) !== JSON.stringify(r.counted && r.counted.length ? countedCells[i] : countedWanted(r)));
  check('job reports show their counted non-blocking, persistent and neighbourhood calls',
    countedCells.length === jobs.reports.length && withCounts > 0 && countedMismatch === -1 &&
      countedCells.some((c) => c.includes('ibarrier 8') && c.includes('allreduce_init 4')),
    `${withCounts} reports with counts; first mismatch at ${countedMismatch}: ${JSON.stringify(countedCells[Math.max(0, countedMismatch)])}`);
  const countedTitle = await page.locator('table.jobs tbody tr td.counted span[title]').first().getAttribute('title');
  check('a counted chip names its kind and size buckets',
    /^(nonblocking|persistent|neighborhood), calls summed over ranks per message size: /.test(countedTitle || ''), countedTitle);
  check('context page fits a laptop screen without horizontal scrolling', await noHorizontalScroll(page));
  await page.screenshot({ path: path.join(ARTIFACTS, 'context.png'), fullPage: true });
  await page.locator('.chart').first().screenshot({ path: path.join(ARTIFACTS, 'chart-relative.png') });
  await page.locator('[data-collective="allreduce"]').screenshot({ path: path.join(ARTIFACTS, 'chart-natives.png') });
  await page.locator('#violations').screenshot({ path: path.join(ARTIFACTS, 'violations.png') });

  // Toggle to absolute latency.
  await page.click('button[data-mode="absolute"]');
  const titles = await page.evaluate(() => window.colltune.charts.map((c) => c.options.scales.y.title.text));
  check('the toggle switches every chart to absolute latency',
    titles.length === expectedSeries.size && titles.every((t) => t === 'latency (µs)'), titles.join(','));
  await page.locator('.chart').first().screenshot({ path: path.join(ARTIFACTS, 'chart-absolute.png') });
  await page.click('button[data-mode="relative"]');

  // Admin: a rollback from the page needs the token.
  const before = history.length;
  const oldest = history[history.length - 1].version;
  await page.click('.admin summary');
  await page.fill('#token', 'not-the-token-at-all');
  await page.click(`tr[data-version="${oldest}"] button`);
  await page.waitForSelector('#history .error', { timeout: 5000 });
  const denied = await page.locator('#history .error').textContent();
  check('a rollback with a wrong token is refused and says why', /PERMISSION_DENIED/.test(denied), denied);
  check('a refused rollback changes nothing', (await api(`/profiles/${main.id}/history`)).versions.length === before);
  await page.fill('#token', process.env.ADMIN_TOKEN);
  await page.click(`tr[data-version="${oldest}"] button`);
  await page.waitForSelector('#history .notice', { timeout: 5000 });
  await page.waitForFunction((n) => document.querySelectorAll('table.history tbody tr').length === n, before + 1, { timeout: 10000 });
  const after = (await api(`/profiles/${main.id}/history`)).versions;
  check('a rollback with the token makes a new version', after.length === before + 1, `${after.length} versions`);

  // Breadcrumb back to the overview, then the hostile context's own page.
  await page.click('#crumbs a');
  await page.waitForSelector('body[data-rendered="overview"]', { timeout: 15000 });
  check('the breadcrumb leads back to the overview', page.url().endsWith('#/'), page.url());
  await page.click(`tr[data-profile="${hostile.id}"] td a`);
  await page.waitForSelector('body[data-rendered="context"]', { timeout: 15000 });
  const h1 = await page.locator('h1').textContent();
  check('a hostile context page shows its names as text', h1.startsWith(HOSTILE_CLUSTER) && h1.includes('<b id=injected>'), h1);
  const hostileJob = await page.locator('table.jobs tbody tr').first().textContent();
  check('a hostile job and run id appear as text',
    hostileJob.includes('<script>window.__xss=3</script>') && hostileJob.includes('<img src=x onerror="window.__xss=4">'), hostileJob);
  check('a hostile context page injects nothing',
    (await page.locator('#injected').count()) === 0 && (await page.locator('main img, main script').count()) === 0 && (await page.evaluate(() => window.__xss)) === undefined);
  await page.screenshot({ path: path.join(ARTIFACTS, 'hostile.png'), fullPage: true });

  // Irregular collectives: one chart, a selector for the distribution.
  const other = profiles.find((p) => p.context.cluster === 'hpc-b');
  await page.click('#crumbs a');
  await page.waitForSelector('body[data-rendered="overview"]', { timeout: 15000 });
  await page.click(`tr[data-profile="${other.id}"] td a`);
  await page.waitForSelector('body[data-rendered="context"]', { timeout: 15000 });
  const otherPoints = (await api(`/profiles/${other.id}`)).points.filter((p) => p.collective === 'gatherv');
  const distributions = [...new Set(otherPoints.map((p) => p.problem))].sort();
  const gathervAlgorithms = new Set(otherPoints.map((p) => p.algorithm));
  const options = await page.locator('[data-collective="gatherv"] select option').allTextContents();
  check('gatherv: a selector lists every measured distribution',
    distributions.length === 6 && JSON.stringify(options) === JSON.stringify(distributions), `${options} vs ${distributions}`);
  for (const problem of ['same', 'spikes']) {
    await page.selectOption('[data-collective="gatherv"] select', problem);
    const g = await page.evaluate(() => {
      const c = window.colltune.charts.find((x) => x.canvas.id === 'chart-gatherv');
      return c && { series: c.data.datasets.length, points: c.data.datasets.map((d) => d.data.length) };
    });
    const sizes = new Set(otherPoints.filter((p) => p.problem === problem).map((p) => p.msg_bytes)).size;
    check(`gatherv (${problem}): one series per algorithm plus the tuned choice, every size`,
      g && g.series === gathervAlgorithms.size + 1 && gathervAlgorithms.size > 1 && g.points.every((n) => n === sizes),
      JSON.stringify(g));
  }
  await page.locator('[data-collective="gatherv"]').screenshot({ path: path.join(ARTIFACTS, 'chart-gatherv.png') });
  // A campaign timed synchronized only (as every campaign before regimes):
  // its decisions still load and are marked.
  const otherRules = (await api(`/profiles/${other.id}`)).table.rules.filter((r) => r.source === 'campaign' && !r.pinned);
  const syncOnly = await page.locator('#decisions [data-sync-only]').count();
  check('decisions of a campaign timed synchronized only are marked "sync only"',
    otherRules.length > 0 && otherRules.every((r) => !(r.regimes || []).length) && syncOnly === otherRules.length,
    `${syncOnly} marked, ${otherRules.length} rules`);
  check('... and that context offers no regime buttons', (await page.locator('.seg.regimes').count()) === 0);

  // Unknown routes and contexts say so.
  await page.goto(`${BASE}/#/context/999999`);
  await page.waitForSelector('body[data-rendered="error"]', { timeout: 15000 });
  const err = await page.locator('.error').textContent();
  check('an unknown context shows the API\'s error', /NOT_FOUND/.test(err), err);

  check('no script errors or policy violations in the console', problems.length === 0, problems.join(' | '));

  // First render of the big context, fresh page each time: from navigation
  // start to every chart and table drawn (window.colltune.firstRenderMs).
  const times = [];
  for (let i = 0; i < 5; i++) {
    const fresh = await context.newPage();
    const t0 = Date.now();
    await fresh.goto(`${BASE}/#/context/${main.id}`);
    await fresh.waitForSelector('body[data-rendered="context"]', { timeout: 15000 });
    const wall = Date.now() - t0;
    const ms = await fresh.evaluate(() => window.colltune.firstRenderMs);
    times.push(ms);
    console.log(`MEASURE: first render of context ${main.id} (${profile.points.length} points, ${main.job_reports} job reports): ${ms.toFixed(0)} ms after navigation start (${wall} ms wall clock in the test)`);
    await fresh.close();
  }
  times.sort((a, b) => a - b);
  console.log(`MEASURE: first render median ${times[2].toFixed(0)} ms, min ${times[0].toFixed(0)} ms, max ${times[4].toFixed(0)} ms`);
  check('the context page renders (timing reported above)', times.every((t) => t > 0));

  await browser.close();
  return failures;
}

main().then((f) => process.exit(f ? 1 : 0), (e) => {
  console.log(`FAIL: browser test crashed :: ${e.stack || e}`);
  process.exit(1);
});
