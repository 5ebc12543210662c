/** The end-of-run report: totals, per-route counts, memory, and how to replay each failure. */
import { mb } from './campaign.mjs';

export function formatSummary(stats) {
  const lines = [];
  const seconds = (stats.durationMs / 1000).toFixed(0);
  const handler = stats.handler === undefined || stats.handler === 'database' ? '' : ` --handler ${stats.handler}`;
  lines.push('', `fuzz summary (seed ${stats.seed}${stats.skipKnown ? ', --skip-known' : ''}${handler}, ${seconds} s)`);
  lines.push(
    `  requests sent:      ${stats.sent} (${(stats.sent / Math.max(1, stats.durationMs / 1000)).toFixed(0)}/s), health checks ${stats.healthChecks}`,
  );
  const healthMs = [...(stats.healthMs ?? [])].sort((a, b) => a - b);
  if (healthMs.length > 0)
    lines.push(
      `  /healthz latency:   median ${Math.round(healthMs[Math.floor(healthMs.length / 2)])} ms, worst ${Math.round(healthMs.at(-1))} ms (${healthMs.length} answered checks)`,
    );
  lines.push(`  crashes:            ${stats.crashes}`);
  lines.push(`  unexpected 5xx:     ${stats.unexpected5xx}`);
  lines.push(`  failures:           ${[...stats.signatures.values()].reduce((a, b) => a + b, 0)} in ${stats.signatures.size} kinds`);
  lines.push(`  worst latency:      ${stats.worst.ms} ms (case ${stats.worst.index}, ${stats.worst.route})`);
  lines.push(
    `  server RSS:         start ${mb(stats.rss.start)}, peak ${mb(stats.rss.peak)}, end ${mb(stats.rss.end)}, growth ${mb((stats.rss.end ?? 0) - (stats.rss.start ?? 0))}`,
  );
  lines.push(`  connection resets:  ${stats.resets}`);
  if (stats.credentialsLost !== null)
    lines.push(
      `  note: fixture credentials stopped working during the run (${JSON.stringify(stats.credentialsLost)}): later authenticated cases were answered 401/redirects`,
    );
  lines.push('', '  per route (requests: first status of the answer -> count)');
  for (const [route, { sent, statuses }] of Object.entries(stats.perRoute).sort()) {
    const spread = Object.entries(statuses)
      .sort((a, b) => b[1] - a[1])
      .map(([status, count]) => `${status}:${count}`)
      .join(' ');
    lines.push(`    ${route.padEnd(26)} ${String(sent).padStart(6)}  ${spread}`);
  }
  if (stats.signatures.size > 0) {
    lines.push('', '  failure kinds (count)');
    for (const [signature, count] of stats.signatures) lines.push(`    ${String(count).padStart(5)}  ${signature}`);
    lines.push('', '  failures (first of each kind) and how to replay them');
    for (const failure of stats.failures) {
      lines.push(`    - case ${failure.index ?? '?'} ${failure.signature}`);
      lines.push(`      ${failure.detail.split('\n')[0]}`);
      if (failure.notes?.length) lines.push(`      case: ${failure.notes.join('; ')}`);
      if (failure.index !== null) {
        lines.push(`      replay: npm run fuzz -- --replay ${failure.file}`);
        lines.push(
          `          or: npm run fuzz -- --seed ${stats.seed} --index ${failure.index}${stats.skipKnown ? ' --skip-known' : ''}${handler}   (raw bytes: ${failure.file.replace(/\.json$/, '.http')})`,
        );
      }
    }
  }
  lines.push('');
  return lines.join('\n');
}
