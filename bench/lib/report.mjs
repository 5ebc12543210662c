/**
 * Rounds → one row per workload, the targets of issue 8 with pass/fail,
 * and the Markdown that is printed and kept in docs/performance.md.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const MiB = 1024 * 1024;
/** Cores kept busy by other processes above which a row is marked. */
const OTHER_LOAD_WARNING = 0.2;
const mean = (values) => values.reduce((sum, value) => sum + value, 0) / values.length;
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/**
 * Several rounds of one workload: mean requests/s, mean p50 and mean
 * latency, the worst p99, all errors, the highest memory.
 */
export function aggregate(rounds) {
  if (rounds === undefined || rounds.length === 0) return null;
  return {
    rps: mean(rounds.map((r) => r.rps)),
    rpsPerRound: rounds.map((r) => Math.round(r.rps)),
    p50: mean(rounds.map((r) => r.p50)),
    p99: Math.max(...rounds.map((r) => r.p99)),
    mean: mean(rounds.map((r) => r.mean)),
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
    non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
    completed: rounds.reduce((sum, r) => sum + r.completed, 0),
    peakRss: Math.max(...rounds.map((r) => r.peakRss)),
    otherLoad: mean(rounds.map((r) => r.otherLoad ?? 0)),
  };
}

const int = (value) => (value === undefined || value === null || Number.isNaN(value) ? '—' : Math.round(value).toLocaleString('en-US'));
const ms = (value) =>
  value === undefined || value === null || Number.isNaN(value) ? '—' : value >= 100 ? int(value) : String(Math.round(value * 10) / 10);
const mib = (bytes) => (bytes === undefined || bytes === null || Number.isNaN(bytes) ? '—' : String(Math.round(bytes / MiB)));
const percent = (ratio) => `${Math.round(ratio * 100)} %`;

function summary(run) {
  const rows = {};
  for (const [id, rounds] of Object.entries(run.rounds))
    if (id !== 'media-20x10mib' && id !== 'webmention-process' && id !== 'healthz-under-parse') rows[id] = aggregate(rounds);
  const mentions = run.rounds['webmention-process'];
  if (mentions !== undefined) {
    rows['webmention-process'] = {
      rate: mean(mentions.map((m) => m.rate)),
      seconds: mean(mentions.map((m) => m.seconds)),
      count: mentions[0].count,
      verified: mentions.reduce((sum, m) => sum + m.verified, 0),
      failed: mentions.reduce((sum, m) => sum + m.failed, 0),
      missing: mentions.reduce((sum, m) => sum + (m.count - m.done), 0),
      peakRss: Math.max(...mentions.map((m) => m.peakRss)),
      otherLoad: mean(mentions.map((m) => m.otherLoad ?? 0)),
    };
  }
  const parsing = run.rounds['healthz-under-parse'];
  if (parsing !== undefined) {
    rows['healthz-under-parse'] = {
      idleMedian: mean(parsing.map((p) => p.idleMedian)),
      busyMedian: mean(parsing.map((p) => p.busyMedian)),
      busyMax: Math.max(...parsing.map((p) => p.busyMax)),
      samples: parsing.reduce((sum, p) => sum + p.samples, 0),
      count: parsing[0].count,
      failed: parsing.reduce((sum, p) => sum + p.failed, 0),
      verified: parsing.reduce((sum, p) => sum + p.verified, 0),
      seconds: mean(parsing.map((p) => p.seconds)),
      otherLoad: mean(parsing.map((p) => p.otherLoad ?? 0)),
    };
  }
  const uploads = run.rounds['media-20x10mib'];
  if (uploads !== undefined) {
    rows['media-20x10mib'] = {
      wallMs: mean(uploads.map((u) => u.wallMs)),
      p50: mean(uploads.map((u) => u.p50)),
      p99: Math.max(...uploads.map((u) => u.p99)),
      failed: uploads.flatMap((u) => u.failed),
      rssBefore: Math.min(...uploads.map((u) => u.rssBefore)),
      peakRss: Math.max(...uploads.map((u) => u.peakRss)),
      count: uploads[0].count,
      otherLoad: mean(uploads.map((u) => u.otherLoad ?? 0)),
    };
  }
  return rows;
}

/**
 * Mean latency of a closed-loop run from Little's law: connections ÷ req/s.
 * Exact where autocannon's whole-millisecond histogram is too coarse;
 * Infinity when nothing completed in the window.
 */
const littleLatency = (row, connections) => (row ? (row.rps > 0 ? (connections / row.rps) * 1000 : Infinity) : null);
const ratioOf = (large, small, connections) => {
  const l = littleLatency(large, connections);
  const s = littleLatency(small, connections);
  return l === null || s === null ? null : l / s;
};
const latencyText = (row, connections) => {
  const value = littleLatency(row, connections);
  return value === Infinity ? `no answer within ${'the window'}` : `${ms(value)} ms`;
};

export function evaluateTargets(run) {
  const rows = summary(run);
  const base = rows.baseline;
  const targets = [];
  const add = (target, measured, pass) => targets.push({ target, measured, pass });
  const ofBaseline = (row) => (row && base ? row.rps / base.rps : null);

  const config = rows.config;
  const configRatio = ofBaseline(config);
  add(
    '`q=config` ≥ 60 % of baseline',
    configRatio === null ? 'not run' : `${percent(configRatio)} (${int(config.rps)} vs ${int(base.rps)}/s)`,
    configRatio === null ? null : configRatio >= 0.6,
  );
  add('`q=config` p99 ≤ 10 ms', config ? `${ms(config.p99)} ms` : 'not run', config ? config.p99 <= 10 : null);
  const create = rows['json-create'];
  const createRatio = ofBaseline(create);
  add(
    'JSON create ≥ 50 % of baseline',
    createRatio === null ? 'not run' : `${percent(createRatio)} (${int(create.rps)} vs ${int(base.rps)}/s)`,
    createRatio === null ? null : createRatio >= 0.5,
  );
  add('JSON create p99 ≤ 10 ms', create ? `${ms(create.p99)} ms` : 'not run', create ? create.p99 <= 10 : null);
  for (const [id, what] of [
    ['config', '`q=config`'],
    ['json-create', 'JSON create'],
  ]) {
    const sqlite = rows[id];
    const postgres = rows[`${id}-pg`];
    const ratio = sqlite && postgres ? postgres.rps / sqlite.rps : null;
    add(
      `${what} on PostgreSQL ≥ 50 % of SQLite (issue 18)`,
      ratio === null ? 'not run' : `${percent(ratio)} (${int(postgres.rps)} vs ${int(sqlite.rps)}/s)`,
      ratio === null ? null : ratio >= 0.5,
    );
  }
  const exchange = rows['token-exchange'];
  add(
    'Token exchange ≥ 2,000/s (SQLite)',
    exchange ? `${int(exchange.rps)}/s` : 'not run',
    exchange ? exchange.rps >= 2000 && exchange.non2xx === 0 : null,
  );
  const uploads = rows['media-20x10mib'];
  add(
    '20 concurrent 10 MiB uploads: server RSS < 300 MiB',
    uploads ? `${mib(uploads.peakRss)} MiB` : 'not run',
    uploads ? uploads.peakRss < 300 * MiB && uploads.failed.length === 0 : null,
  );
  const mentions = rows['webmention-process'];
  add(
    'Webmention processing ≥ 200 mentions/s against the local source',
    mentions ? `${int(mentions.rate)}/s (${mentions.failed} failed, ${mentions.missing} unfinished)` : 'not run',
    mentions ? mentions.rate >= 200 && mentions.failed === 0 && mentions.missing === 0 : null,
  );
  const parsing = rows['healthz-under-parse'];
  const parseRatio = parsing ? parsing.busyMedian / parsing.idleMedian : null;
  add(
    '`/healthz` median while 20 pathological pages are parsed ≤ 3× idle (issue 28)',
    parsing
      ? `${parseRatio.toFixed(1)}× (${ms(parsing.busyMedian)} vs ${ms(parsing.idleMedian)} ms idle; worst ${ms(parsing.busyMax)} ms)`
      : 'not run',
    parsing ? parseRatio <= 3 && parsing.failed === parsing.count * (run.rounds['healthz-under-parse']?.length ?? 1) : null,
  );
  const c = run.settings.connections;
  for (const [group, what, unit] of [
    ['growth-source', '`q=source` list page', 'entries'],
    ['growth-token', 'Bearer-token lookup', 'tokens'],
  ]) {
    const large = rows[`${group}-large`];
    const small = rows[`${group}-small`];
    const ratio = ratioOf(large, small, c);
    add(
      `${what} with ${int(run.settings.growth)} stored ${unit}: latency ≤ 1.5× that with ${run.settings.small}`,
      ratio === null
        ? 'not run'
        : `${ratio === Infinity ? '∞' : `${ratio.toFixed(2)}×`} (mean ${latencyText(large, c)} vs ${latencyText(small, c)})`,
      ratio === null ? null : ratio <= 1.5,
    );
  }
  // issue 31: the database handler
  const dbCreate = rows['db-create'];
  const memCreate = rows['json-create'];
  add(
    'Database handler (SQLite): JSON create ≥ 5,000/s and ≥ 40 % of the in-memory handler (issue 31)',
    dbCreate
      ? `${int(dbCreate.rps)}/s${memCreate ? ` = ${percent(dbCreate.rps / memCreate.rps)} of ${int(memCreate.rps)}/s` : ''}`
      : 'not run',
    dbCreate
      ? dbCreate.rps >= 5000 &&
          dbCreate.non2xx === 0 &&
          (memCreate === null || memCreate === undefined || dbCreate.rps >= 0.4 * memCreate.rps)
      : null,
  );
  const dbCreatePg = rows['db-create-pg'];
  add(
    'Database handler: JSON create on PostgreSQL ≥ 50 % of SQLite (issue 31)',
    dbCreatePg && dbCreate ? `${percent(dbCreatePg.rps / dbCreate.rps)} (${int(dbCreatePg.rps)} vs ${int(dbCreate.rps)}/s)` : 'not run',
    dbCreatePg && dbCreate ? dbCreatePg.rps >= 0.5 * dbCreate.rps && dbCreatePg.non2xx === 0 : null,
  );
  add(
    'Database handler (SQLite): server peak RSS during the create run ≤ 150 MiB (issue 31)',
    dbCreate ? `${mib(dbCreate.peakRss)} MiB` : 'not run',
    dbCreate ? dbCreate.peakRss <= 150 * MiB : null,
  );
  const bad = rows['db-token-bad-code'] ?? rows['token-bad-code'];
  add(
    '`POST /token/` with a bad code ≥ 5,000/s (issue 31)',
    bad ? `${int(bad.rps)}/s (all answered 400 invalid_grant: ${int(bad.non2xx)} non-2xx)` : 'not run',
    bad ? bad.rps >= 5000 && bad.errors === 0 : null,
  );
  for (const suffix of ['', '-pg']) {
    const large = rows[`db-source-large${suffix}`];
    const small = rows[`db-source-small${suffix}`];
    const ratio = ratioOf(large, small, c);
    add(
      `Database handler${suffix === '' ? ' (SQLite)' : ' (PostgreSQL)'}: \`q=source\` page of 20 with ${int(run.settings.growth)} entries ≤ 1.5× the latency with ${run.settings.small}`,
      ratio === null
        ? 'not run'
        : `${ratio === Infinity ? '∞' : `${ratio.toFixed(2)}×`} (mean ${latencyText(large, c)} vs ${latencyText(small, c)})`,
      ratio === null ? null : ratio <= 1.5,
    );
  }
  const cold = run.extra.coldStart;
  add(
    'Cold start of `indiestack serve` to a healthy `/healthz` < 1 s',
    cold ? `median ${int(median(cold.fresh))} ms, worst ${int(Math.max(...cold.fresh))} ms (fresh data dir)` : 'not run',
    cold ? Math.max(...cold.fresh) < 1000 : null,
  );
  return targets;
}

export function formatReport(run, targets) {
  const rows = summary(run);
  const base = rows.baseline;
  const c = run.settings.connections;
  const lines = [];
  const m = run.machine;
  lines.push(
    `Measured ${run.date.slice(0, 16).replace('T', ' ')} UTC at commit \`${run.commit}\`${run.dirty ? ' (with uncommitted changes)' : ''} on ${m.nproc} × ${m.cpu}, ${m.memoryGiB} GiB, Node ${m.node}. ` +
      `${c} connections, ${run.settings.warmup} s warm-up + ${run.settings.duration} s per workload, ${run.settings.rounds} interleaved round(s); ` +
      "req/s and p50 are the mean over rounds, p99 and RSS the worst; growth latencies are connections ÷ req/s (Little's law).",
  );
  lines.push('');
  lines.push('| Workload | req/s | p50 ms | p99 ms | errors / non-2xx | server peak RSS MiB | notes |');
  lines.push('|---|--:|--:|--:|--:|--:|---|');
  const loaded = (r) => (r.otherLoad >= OTHER_LOAD_WARNING ? `; ⚠ other processes busy (${r.otherLoad.toFixed(1)} cores)` : '');
  const row = (label, r, notes = '') => {
    if (!r) return;
    const none = r.completed === 0;
    lines.push(
      `| ${label} | ${int(r.rps)} | ${none ? '—' : ms(r.p50)} | ${none ? '—' : ms(r.p99)} | ${int(r.errors)} / ${int(r.non2xx)} | ${mib(r.peakRss)} | ${notes}${loaded(r)} |`,
    );
  };
  const vs = (r) => (r && base ? `${percent(r.rps / base.rps)} of baseline` : '');
  row(
    'baseline: bare Fastify route',
    base,
    run.extra.baselineBytes ? `${run.extra.baselineBytes}-byte JSON, same size as \`q=config\`` : '',
  );
  row('`GET /micropub/?q=config`', rows.config, vs(rows.config));
  row('`POST /micropub/` JSON create', rows['json-create'], vs(rows['json-create']));
  const ofSqlite = (id) =>
    rows[id] && rows[`${id}-pg`]
      ? `${percent(rows[`${id}-pg`].rps / rows[id].rps)} of SQLite; embedded PostgreSQL on the same machine`
      : '';
  row('`GET /micropub/?q=config`, PostgreSQL', rows['config-pg'], ofSqlite('config'));
  row('`POST /micropub/` JSON create, PostgreSQL', rows['json-create-pg'], ofSqlite('json-create'));
  row('`POST /micropub/` form create', rows['form-create'], vs(rows['form-create']));
  row('`POST /token/` code exchange', rows['token-exchange'], 'one prepared code per request');
  row('`POST /media/` 1 MiB PNG', rows['media-1mib'], rows['media-1mib'] ? `${rows['media-1mib'].rps.toFixed(0)} MiB/s stored` : '');
  const uploads = rows['media-20x10mib'];
  if (uploads) {
    lines.push(
      `| \`POST /media/\` ${uploads.count} concurrent 10 MiB PNGs | — | ${ms(uploads.p50)} | ${ms(uploads.p99)} | ${uploads.failed.length} / ${uploads.failed.filter((s) => s !== 0).length} | ${mib(uploads.peakRss)} | all ${uploads.count} in ${ms(uploads.wallMs)} ms; idle RSS before ${mib(uploads.rssBefore)} MiB; own server |`,
    );
  }
  if (rows['webmention-receive'])
    row(
      '`POST /webmention/` receive (enqueue)',
      rows['webmention-receive'],
      'distinct sources; the worker verifies meanwhile; own server per round',
    );
  else lines.push('| `POST /webmention/` receive (enqueue) | — | — | — | — | — | not run |');
  const mentions = rows['webmention-process'];
  if (mentions) {
    lines.push(
      `| Webmention: verify ${int(mentions.count)} queued mentions (parsing in the worker pool, off the event loop) | ${int(mentions.rate)} mentions/s | — | — | ${mentions.failed} failed / ${mentions.missing} unfinished | ${mib(mentions.peakRss)} | ${ms(mentions.seconds * 1000)} ms for ${int(mentions.count)} against the local source server; own server per round${loaded(mentions)} |`,
    );
  }
  const parsingRow = rows['healthz-under-parse'];
  if (parsingRow) {
    lines.push(
      `| \`GET /healthz\` while ${parsingRow.count} pathological source pages are parsed | — | ${ms(parsingRow.busyMedian)} | ${ms(parsingRow.busyMax)} (worst) | ${parsingRow.failed} failed as over budget | — | idle median ${ms(parsingRow.idleMedian)} ms; ${int(parsingRow.samples)} sequential requests over ${ms(parsingRow.seconds * 1000)} ms; parse pool off the event loop; own server per round${loaded(parsingRow)} |`,
    );
  }
  const small = run.settings.small;
  const large = int(run.settings.growth);
  for (const [group, what, unit] of [
    ['growth-source', '`q=source` list page (20 items)', 'entries'],
    ['growth-token', 'bearer lookup (`GET /token/`)', 'tokens'],
  ]) {
    const smallRow = rows[`${group}-small`];
    const largeRow = rows[`${group}-large`];
    row(`${what}, ${small} ${unit}`, smallRow, smallRow ? `mean latency ${latencyText(smallRow, c)}` : '');
    const ratio = ratioOf(largeRow, smallRow, c);
    row(
      `${what}, ${large} ${unit}`,
      largeRow,
      ratio === null
        ? ''
        : `mean latency ${latencyText(largeRow, c)} = ${ratio === Infinity ? '∞' : `${ratio.toFixed(2)}×`} that with ${small}`,
    );
  }
  // issue 31: the database handler, each row against what it should be compared with in this run
  row(
    '`POST /token/` with a bad code',
    rows['token-bad-code'],
    'in-memory handler server; 400 `invalid_grant` expected (counted as non-2xx)',
  );
  const ofRow = (r, other, what) => (r && other ? `${percent(r.rps / other.rps)} of ${what}` : '');
  for (const [suffix, label] of [
    ['', 'SQLite'],
    ['-pg', 'PostgreSQL'],
  ]) {
    const against = (id, memoryId) =>
      suffix === '' ? ofRow(rows[id], rows[memoryId], 'the in-memory handler') : ofRow(rows[`${id}-pg`], rows[id], 'SQLite');
    const r = (id) => rows[`${id}${suffix}`];
    row(
      `database handler, ${label}: \`q=config\``,
      r('db-config'),
      suffix === '' ? ofRow(r('db-config'), rows.config, 'the in-memory handler') : against('db-config'),
    );
    // the seconds the entry search index took, after each round of creates, to take what the round wrote
    const caughtUp = (run.rounds[`db-create${suffix}`] ?? []).map((round) => round.searchIndexSeconds).filter((s) => s !== undefined);
    row(
      `database handler, ${label}: JSON create`,
      r('db-create'),
      [
        suffix === '' ? ofRow(r('db-create'), rows['json-create'], 'the in-memory handler') : against('db-create'),
        caughtUp.length > 0 ? `search index caught up ${caughtUp.map((s) => s.toFixed(1)).join(', ')} s after the rounds` : '',
      ]
        .filter((note) => note !== '')
        .join('; '),
    );
    row(`database handler, ${label}: update (replace)`, r('db-update'), suffix === '' ? vs(r('db-update')) : against('db-update'));
    row(
      `database handler, ${label}: \`POST /token/\` bad code`,
      r('db-token-bad-code'),
      suffix === '' ? vs(r('db-token-bad-code')) : against('db-token-bad-code'),
    );
    const smallRow = r('db-source-small');
    const largeRow = r('db-source-large');
    row(
      `database handler, ${label}: \`q=source\` page of 20, ${small} entries`,
      smallRow,
      smallRow ? `mean latency ${latencyText(smallRow, c)}` : '',
    );
    const ratio = ratioOf(largeRow, smallRow, c);
    row(
      `database handler, ${label}: \`q=source\` page of 20, ${large} entries`,
      largeRow,
      ratio === null
        ? ''
        : `mean latency ${latencyText(largeRow, c)} = ${ratio === Infinity ? '∞' : `${ratio.toFixed(2)}×`} that with ${small}`,
    );
    row(
      `database handler, ${label}: \`q=source\` with a filter nothing matches, ${large} entries`,
      r('db-source-filter-large'),
      r('db-source-filter-large')
        ? `${suffix === '' ? 'from the entry search index (migration 0021), caught up' : 'from the trigram index (migrations 0020, 0022), caught up, once PostgreSQL has analysed the table (else every entry of the user)'}; mean latency ${latencyText(r('db-source-filter-large'), c)}`
        : '',
    );
    row(`database handler, ${label}: entry page, ${large} entries`, r('db-page-large'), vs(r('db-page-large')));
    row(`database handler, ${label}: \`feed.atom\`, ${large} entries`, r('db-feed-large'), vs(r('db-feed-large')));
    row(`database handler, ${label}: the author's home page, ${large} entries`, r('db-home-large'), vs(r('db-home-large')));
  }
  const cold = run.extra.coldStart;
  if (cold) {
    lines.push(
      `| cold start: \`indiestack serve\` → healthy \`/healthz\` | — | ${int(median(cold.fresh))} | ${int(Math.max(...cold.fresh))} | — | — | ${cold.fresh.length} starts on a fresh data dir (median, worst); restart on a migrated dir: median ${int(median(cold.migrated))} ms${loaded({ otherLoad: cold.otherLoad ?? 0 })} |`,
    );
  }
  const loads = Object.values(rows).map((r) => r.otherLoad ?? 0);
  if (loads.length > 0) {
    const worst = Math.max(...loads);
    lines.push('');
    lines.push(
      `Other processes on the machine kept ${mean(loads).toFixed(2)} cores busy on average during the workloads (worst ${worst.toFixed(2)}).` +
        (worst >= OTHER_LOAD_WARNING ? ' Rows marked ⚠ were measured on a busy machine and understate what indiestack can do.' : ''),
    );
  }
  lines.push('');
  lines.push('| Target (issues 8, 18 and 31) | Measured | Result |');
  lines.push('|---|---|---|');
  for (const target of targets)
    lines.push(
      `| ${target.target} | ${target.measured} | ${target.pass === null ? 'TODO / not measured' : target.pass ? 'pass' : '**FAIL**'} |`,
    );
  return lines.join('\n');
}

const START = '<!-- bench:start (generated by `npm run bench -- --update-docs`; edit outside this block) -->';
const END = '<!-- bench:end -->';

/** Replaces the generated block of docs/performance.md with this run. */
export function updateDocs(file, run, report) {
  const text = readFileSync(file, 'utf8');
  const from = text.indexOf(START);
  const to = text.indexOf(END);
  if (from === -1 || to === -1 || to < from) throw new Error(`${file} has no generated block (${START} … ${END})`);
  const block = `${START}\n\n${report}\n\nRaw numbers: \`bench/results/${run.date.slice(0, 10)}-${run.commit}.json\`.\n\n`;
  writeFileSync(file, text.slice(0, from) + block + text.slice(to));
}
