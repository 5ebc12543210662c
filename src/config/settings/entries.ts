/**
 * Rows of the settings table: the entry pages (the database handler's
 * entries served as IndieWeb pages, docs/entry-pages.md).
 * @module
 */
import { moduleSpecifier } from '../parsers.js';
import { defineSetting, type Setting } from '../setting.js';

export const ENTRY_PAGE_SETTINGS: readonly Setting[] = [
  defineSetting({
    name: 'INDIEWEB_ENTRY_TEMPLATES',
    key: 'entryTemplates',
    parser: moduleSpecifier(),
    default: null,
    shownDefault: '(built in)',
    description:
      'Entry pages (on with the `database` and the in-memory handler): templates replacing the built-in ones, as `./module.js#export` naming an object with any of `document`, `entry`, `home`, `gone` (functions returning HTML) and `stylesheet` (CSS) ([docs/entry-pages.md](docs/entry-pages.md)).',
  }),
];
