/**
 * What must hold after every request (docs/fuzzing.md, "What is checked").
 * Each check returns a list of violations `{ kind, detail }`.
 */

/** Text that gives away internals: stack frames, error names, module and machine paths. */
function leakPatterns(serverPaths) {
  return [
    /\bat [^\n]{0,200}\.[cm]?[jt]s:\d+/,
    /\bnode_modules\b/,
    /\b(?:Type|Range|Reference|Syntax|Internal)?Error: [^\n]{0,120}/,
    /\b(?:FST_)?ERR_[A-Z_]{4,}\b/,
    ...serverPaths.filter((p) => p.length > 1).map((p) => new RegExp(p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))),
  ];
}

/**
 * @param result  the exchange (http.mjs)
 * @param testCase the generated case (generators.mjs)
 * @param context `{ serverPaths, deadlineMs, checkKeepAlive }`
 */
export function checkExchange(result, testCase, context) {
  const violations = [];
  for (const response of result.responses) {
    if (response.status >= 500 && !(response.status === 501 && testCase.allow501)) {
      violations.push({ kind: `status ${response.status}`, detail: `${response.status} answered: ${preview(response.body)}` });
    }
  }
  const requestText = testCase.raw.toString('latin1') + testCase.raw.toString('utf8');
  const bodies = result.data.toString('utf8');
  for (const pattern of leakPatterns(context.serverPaths)) {
    const match = pattern.exec(bodies);
    // the server may echo what it was sent (a login form keeps the user name): only what we did not send counts
    if (match !== null && !requestText.includes(match[0]))
      violations.push({ kind: 'leak', detail: `answer contains ${JSON.stringify(match[0].slice(0, 160))}` });
  }
  if (result.timedOut && result.responses.length === 0) {
    violations.push({
      kind: 'no answer',
      group: `no answer within the deadline (${testCase.holds ? 'body stopped, connection held open' : 'request sent'})`,
      detail: `no answer and no close within ${context.deadlineMs} ms of the last byte (${testCase.holds ? 'the body stopped, connection held open' : 'request complete'})`,
    });
  }
  // bytes past the end HTTP framing gives the request (a body without Content-Length, one longer than it says) are, to the
  // server, the start of a second, broken request: it answers or closes that one, and the probe after it cannot be answered
  if (context.checkKeepAlive && result.probe !== null && !hasBytesPastFraming(testCase.raw)) {
    const first = result.responses[0];
    if (result.probe.data.length === 0 && first !== undefined) {
      violations.push({
        kind: 'keep-alive broken',
        group: `keep-alive broken after ${first.status}`,
        detail: `answered ${first.status} without "Connection: close", then the next request on the connection got ${result.probe.error ?? (result.timedOut ? 'no answer' : 'a close')} instead of an answer`,
      });
    }
  }
  return violations;
}

/**
 * True when `raw` holds bytes after the message its head frames: no
 * Transfer-Encoding, and more body than Content-Length (or than none, 0).
 * A chunked body is taken as framed.
 */
export function hasBytesPastFraming(raw) {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const head = raw.subarray(0, end).toString('latin1');
  if (/^transfer-encoding:/im.test(head)) return false;
  const lengths = [...head.matchAll(/^content-length:[ \t]*(\d+)[ \t]*$/gim)].map((match) => Number(match[1]));
  const declared = lengths.length === 1 ? lengths[0] : lengths.length === 0 ? 0 : null;
  // a missing, repeated or malformed Content-Length is refused outright (400 with a close): nothing to tell apart
  if (declared === null || (lengths.length === 0 && /^content-length:/im.test(head))) return false;
  return raw.length - (end + 4) > declared;
}

export function preview(buffer, max = 200) {
  const text = Buffer.isBuffer(buffer) ? buffer.toString('utf8') : String(buffer);
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}
