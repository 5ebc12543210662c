import { describe, expect, it } from 'vitest';
import { logFormatOf, prettyLogLine, prettyLogStream } from './pretty-log.js';

const TIME = new Date(2026, 10, 28, 9, 5, 7, 42).getTime();
const line = (record: Record<string, unknown>) => JSON.stringify({ level: 30, time: TIME, pid: 1, hostname: 'h', ...record });

describe('prettyLogLine', () => {
  it('time, level and message, then the other fields as key=value, nested ones with dots', () => {
    expect(
      prettyLogLine(
        line({ reqId: 'req-1', req: { method: 'GET', url: '/indieweb/?a=1', remoteAddress: '127.0.0.1' }, msg: 'incoming request' }),
        { color: false },
      ),
    ).toBe('09:05:07.042 INFO  incoming request reqId=req-1 req.method=GET req.url="/indieweb/?a=1" req.remoteAddress=127.0.0.1');
    expect(
      prettyLogLine(line({ level: 40, msg: 'a warning', files: ['a', 'b'], count: 2, ok: false, responseTime: 13.562755 }), {
        color: false,
      }),
    ).toBe('09:05:07.042 WARN  a warning files=["a","b"] count=2 ok=false responseTime=13.56');
  });

  it('quotes values with spaces; escapes every control character, so a value can neither forge a line nor drive the terminal', () => {
    const shown = prettyLogLine(
      line({ msg: 'line one\nFAKE 00:00:00.000 INFO  forged', source: 'a b', title: '\u001b[31mred\u001b[0m', c1: '\u009b2J' }),
      { color: false },
    );
    expect(shown).not.toContain('\n');
    expect(shown).not.toContain('\u001b');
    expect(shown).not.toContain('\u009b');
    expect(shown).toBe(
      '09:05:07.042 INFO  line one\\u000aFAKE 00:00:00.000 INFO  forged source="a b" title="\\u001b[31mred\\u001b[0m" c1="\\u009b2J"',
    );
  });

  it('an error: its other fields on the line, its stack indented under it', () => {
    const shown = prettyLogLine(
      line({ level: 50, msg: 'failed', err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at x (y.js:1:1)', code: 'E1' } }),
      { color: false },
    );
    expect(shown.split('\n')).toEqual(['09:05:07.042 ERROR failed err.code=E1', '    Error: boom', '        at x (y.js:1:1)']);
  });

  it('colours the level and dims the time and keys only when asked', () => {
    const shown = prettyLogLine(line({ level: 50, msg: 'm', a: 1 }), { color: true });
    expect(shown).toBe('\u001b[2m09:05:07.042\u001b[0m \u001b[31mERROR\u001b[0m m \u001b[2ma=\u001b[0m1');
    expect(prettyLogLine(line({ msg: 'm' }), { color: false })).not.toContain('\u001b');
  });

  it('a line that is no JSON object is written as it came, escaped', () => {
    expect(prettyLogLine('not json\u001b', { color: false })).toBe('not json\\u001b');
    expect(prettyLogLine('[1,2]', { color: false })).toBe('[1,2]');
  });

  it('the stream writes one text line per JSON line', () => {
    const written: string[] = [];
    const stream = prettyLogStream({ write: (text: string) => written.push(text) }, { color: false });
    stream.write(`${line({ msg: 'one' })}\n${line({ msg: 'two' })}\n`);
    expect(written).toEqual(['09:05:07.042 INFO  one\n', '09:05:07.042 INFO  two\n']);
  });
});

describe('logFormatOf (INDIEWEB_LOG_FORMAT)', () => {
  it('auto: pretty on a terminal, JSON otherwise; json and pretty whatever the output', () => {
    expect(logFormatOf({ logFormat: 'auto' }, { isTTY: true })).toBe('pretty');
    expect(logFormatOf({ logFormat: 'auto' }, {})).toBe('json');
    expect(logFormatOf({ logFormat: 'json' }, { isTTY: true })).toBe('json');
    expect(logFormatOf({ logFormat: 'pretty' }, {})).toBe('pretty');
  });
});
