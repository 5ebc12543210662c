/**
 * The server's log for a person at a terminal: each JSON line pino writes,
 * turned into one readable line — time, level, message, then the other
 * fields as `key=value` (nested ones as `req.url=…`), an error's stack
 * indented under it. It shows exactly the fields of the JSON line, so what
 * the serializers removed (secrets) is not there either, and every control
 * character of a value (a newline, an escape sequence from a remote page) is
 * written escaped: nothing logged can forge a line or drive the terminal.
 * @module
 */

/** pino's level numbers and the names shown. */
const LEVELS: Readonly<Record<number, string>> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** SGR colours of the levels (grey, blue, green, yellow, red, magenta). */
const LEVEL_COLOURS: Readonly<Record<number, string>> = { 10: '90', 20: '34', 30: '32', 40: '33', 50: '31', 60: '35' };
/** Fields every line has, shown in its head or not at all. */
const HEAD_FIELDS = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'v']);
/** Nested objects deeper than this are shown as JSON. */
const MAX_DEPTH = 3;

export interface PrettyLogOptions {
  /** ANSI colours (a terminal without NO_COLOR). */
  readonly color: boolean;
}

/** C0 and C1 control characters, DEL, and the line and paragraph separators: written as `\uXXXX`. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const escapeControls = (text: string): string => text.replace(CONTROL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
/** A value written without quotes: no space, quote, `=`, backslash or control character. */
const BARE = /^[^\s"'=\\\u0000-\u001f\u007f-\u009f\u2028\u2029]+$/;

function valueText(value: unknown): string {
  if (typeof value === 'string') return BARE.test(value) ? value : escapeControls(JSON.stringify(value));
  // a duration such as Fastify's responseTime: two decimals are enough to read
  if (typeof value === 'number') return String(Number.isInteger(value) ? value : Math.round(value * 100) / 100);
  if (typeof value === 'boolean' || value === null) return String(value);
  return escapeControls(JSON.stringify(value) ?? String(value));
}

/** `key=value` pairs of a record's fields, nested objects flattened with dots. */
function pairs(record: Record<string, unknown>, prefix: string, depth: number, out: string[], paint: (text: string) => string): void {
  for (const [key, value] of Object.entries(record)) {
    const name = `${prefix}${escapeControls(key)}`;
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && depth < MAX_DEPTH)
      pairs(value as Record<string, unknown>, `${name}.`, depth + 1, out, paint);
    else if (value !== undefined) out.push(`${paint(`${name}=`)}${valueText(value)}`);
  }
}

const two = (n: number) => String(n).padStart(2, '0');

/** One JSON log line as text for a person (without the line end); a line that is no JSON object comes back escaped. */
export function prettyLogLine(line: string, options: PrettyLogOptions): string {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    return escapeControls(line);
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return escapeControls(line);
  const fields = record as Record<string, unknown>;
  const paint = (code: string) => (text: string) => (options.color ? `\u001b[${code}m${text}\u001b[0m` : text);
  const dim = paint('2');

  const at = typeof fields.time === 'number' ? new Date(fields.time) : new Date();
  const time = `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}.${String(at.getMilliseconds()).padStart(3, '0')}`;
  const level = typeof fields.level === 'number' ? fields.level : 30;
  const levelName = (LEVELS[level] ?? `L${level}`).padEnd(5);
  const head = [dim(time), paint(LEVEL_COLOURS[level] ?? '0')(levelName)];
  if (typeof fields.msg === 'string' && fields.msg !== '') head.push(escapeControls(fields.msg));

  const rest: Record<string, unknown> = {};
  let stack: string | null = null;
  for (const [key, value] of Object.entries(fields)) {
    if (HEAD_FIELDS.has(key)) continue;
    if (key === 'err' && typeof value === 'object' && value !== null && typeof (value as { stack?: unknown }).stack === 'string') {
      // the stack starts with the type and message: it stands for them, under the line
      const { stack: errorStack, message: _message, type: _type, ...other } = value as Record<string, unknown>;
      stack = errorStack as string;
      if (Object.keys(other).length > 0) rest.err = other;
      continue;
    }
    rest[key] = value;
  }
  const shown: string[] = [];
  pairs(rest, '', 0, shown, dim);
  const text = [...head, ...shown].join(' ');
  if (stack === null) return text;
  return [text, ...stack.split('\n').map((stackLine) => `    ${escapeControls(stackLine)}`)].join('\n');
}

/** The format of the log (`INDIEWEB_LOG_FORMAT`): `auto` is `pretty` for a person at a terminal, `json` for everything else. */
export function logFormatOf(
  config: { readonly logFormat: 'auto' | 'json' | 'pretty' },
  output: { readonly isTTY?: boolean },
): 'json' | 'pretty' {
  if (config.logFormat !== 'auto') return config.logFormat;
  return output.isTTY === true ? 'pretty' : 'json';
}

/** A stream for pino (`pino(options, stream)`): every line it writes goes to `out` as {@link prettyLogLine}. */
export function prettyLogStream(out: { write(text: string): unknown }, options: PrettyLogOptions): { write(chunk: string): void } {
  return {
    write(chunk: string) {
      for (const line of chunk.split('\n')) if (line !== '') out.write(`${prettyLogLine(line, options)}\n`);
    },
  };
}
