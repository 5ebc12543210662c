/** Many large uploads at once, each on its own connection, while the server's memory is sampled. */
import http from 'node:http';
import { memoryOf, sampleRss } from './proc.mjs';

function upload(url, token, body, contentType) {
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const request = http.request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { authorization: `Bearer ${token}`, 'content-type': contentType, 'content-length': body.length },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
      },
    );
    request.on('error', (error) => resolve({ status: 0, error: error.message, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
    request.end(body);
  });
}

export async function concurrentUploads({ server, token, body, contentType, count }) {
  const before = memoryOf(server.pid);
  const sampler = sampleRss(server.pid, 10);
  const started = process.hrtime.bigint();
  const results = await Promise.all(Array.from({ length: count }, () => upload(`${server.url}/indieweb/media/`, token, body, contentType)));
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  const peakRss = sampler.stop();
  const after = memoryOf(server.pid);
  const times = results.map((result) => result.ms).sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)];
  return {
    count,
    wallMs,
    p50: at(0.5),
    p99: at(0.99),
    ok: results.filter((result) => result.status === 201).length,
    failed: results.filter((result) => result.status !== 201).map((result) => result.status),
    rssBefore: before.rss,
    peakRss: Math.max(peakRss, after.hwm),
  };
}
