/**
 * Reads the settings table against one source of raw values: parses every
 * variable that is set, puts each default in where a variable is unset or
 * invalid, and writes each value at its key of a new Config object.
 * @module
 */
import type { Resolved, Setting } from './setting.js';

export interface SettingsReading {
  /** The Config the table describes; keys of rows whose `when` failed, and rows without a default, may be missing. */
  readonly config: Record<string, unknown>;
  /** Problems of one row, each prefixed with the row's variable name. */
  problemsOf(setting: Setting): readonly string[];
  /** Whether the row's variable was given (and read). */
  isSet(name: string): boolean;
}

type Outcome = { readonly read: false } | { readonly read: true; readonly given: boolean; readonly value: unknown };

/**
 * `raw` returns a row's text, or undefined when it is not given. A derived default or a
 * `when` condition may ask for any other row's value, so rows are settled on first use.
 */
export function readSettings(table: readonly Setting[], raw: (setting: Setting) => string | undefined, cwd: string): SettingsReading {
  const byKey = new Map(table.flatMap((setting) => setting.keys.map((key) => [key, setting] as const)));
  const byName = new Map(table.map((setting) => [setting.name, setting] as const));
  const outcomes = new Map<Setting, Outcome>();
  const problems = new Map<Setting, readonly string[]>();
  const settling = new Set<Setting>();

  const resolved: Resolved = {
    cwd,
    get: (key) => {
      const setting = byKey.get(key);
      const outcome = setting === undefined ? undefined : settle(setting);
      if (outcome === undefined || !outcome.read) throw new Error(`settings table: nothing reads ${key} here`);
      return outcome.value as never;
    },
  };

  function settle(setting: Setting): Outcome {
    const known = outcomes.get(setting);
    if (known !== undefined) return known;
    if (settling.has(setting)) throw new Error(`settings table: ${setting.name} depends on itself`);
    settling.add(setting);
    let outcome: Outcome = { read: false };
    if (setting.when === undefined || setting.when(resolved)) {
      const text = raw(setting);
      const parsed = text === undefined ? undefined : setting.parser.parse(text, { cwd });
      if (parsed !== undefined && !parsed.ok)
        problems.set(
          setting,
          parsed.problems.map((problem) => `${setting.name}: ${problem}`),
        );
      outcome = { read: true, given: text !== undefined, value: parsed?.ok === true ? parsed.value : setting.fallback(resolved) };
    }
    settling.delete(setting);
    outcomes.set(setting, outcome);
    return outcome;
  }

  const config: Record<string, unknown> = {};
  for (const setting of table) {
    const outcome = settle(setting);
    if (!outcome.read || outcome.value === undefined) continue;
    for (const key of setting.keys) writeAt(config, key, outcome.value);
  }

  return {
    config,
    problemsOf: (setting) => problems.get(setting) ?? [],
    isSet: (name) => {
      const setting = byName.get(name);
      if (setting === undefined) throw new Error(`settings table: no row ${name}`);
      const outcome = outcomes.get(setting);
      return outcome?.read === true && outcome.given;
    },
  };
}

function writeAt(target: Record<string, unknown>, key: string, value: unknown): void {
  const path = key.split('.');
  const last = path.pop() as string;
  let node = target;
  for (const part of path) {
    node[part] ??= {};
    node = node[part] as Record<string, unknown>;
  }
  node[last] = value;
}
