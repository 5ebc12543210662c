import { describe, expect, it } from 'vitest';
import { SETTINGS, SETTINGS_TABLE } from './settings.js';

describe('the settings table', () => {
  it('declares each variable once', () => {
    const names = SETTINGS_TABLE.map((setting) => setting.name);
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
  });

  it('fills each key of Config from one row only', () => {
    const keys = SETTINGS_TABLE.flatMap((setting) => setting.keys);
    expect(keys.filter((key, index) => keys.indexOf(key) !== index)).toEqual([]);
    // a row writing a key inside another row's key would be overwritten by it, or overwrite it
    expect(keys.filter((key) => keys.some((other) => key.startsWith(`${other}.`)))).toEqual([]);
  });

  it('gives every row a default and a meaning for the README', () => {
    for (const doc of SETTINGS) {
      expect(doc.description, doc.name).not.toBe('');
      expect(doc.defaultValue, doc.name).not.toBe('');
    }
  });
});
