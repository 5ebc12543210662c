import { describe, expect, it } from 'vitest';
import { addField } from './form-parts.js';

describe('addField', () => {
  it('keeps a single value as a string and a repeated name as a list in order', () => {
    const fields = Object.create(null) as Record<string, string | string[]>;
    addField(fields, 'h', 'entry');
    addField(fields, 'category[]', 'a');
    addField(fields, 'category[]', 'b');
    addField(fields, 'category[]', 'c');
    expect({ ...fields }).toEqual({ h: 'entry', 'category[]': ['a', 'b', 'c'] });
  });
});
