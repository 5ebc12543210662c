/**
 * Rows of the settings table: the size and shape limits every request body
 * meets before a route sees it.
 * @module
 */
import { DEFAULT_REQUEST_LIMITS } from '../../core/request-limits.js';
import { DEFAULT_MAX_BODY_BYTES } from '../config.js';
import { integer } from '../parsers.js';
import { defineSetting, type Setting } from '../setting.js';

export const REQUEST_LIMIT_SETTINGS: readonly Setting[] = [
  defineSetting({
    name: 'INDIEWEB_MAX_BODY_BYTES',
    key: 'maxBodyBytes',
    parser: integer({ min: 1024 }),
    default: DEFAULT_MAX_BODY_BYTES,
    description: 'Largest form or JSON request body in bytes; larger ones get 413 (uploads have their own limits).',
  }),
  defineSetting({
    name: 'INDIEWEB_MAX_JSON_DEPTH',
    key: 'limits.jsonDepth',
    parser: integer({ min: 8, max: 1000 }),
    default: DEFAULT_REQUEST_LIMITS.jsonDepth,
    description: 'Deepest nesting of arrays and objects in a JSON body; deeper gives 400.',
  }),
  defineSetting({
    name: 'INDIEWEB_MAX_PROPERTIES',
    key: 'limits.properties',
    parser: integer({ min: 10 }),
    default: DEFAULT_REQUEST_LIMITS.properties,
    description: 'Keys in one JSON object and properties of one form or multipart Micropub create; more give 400.',
  }),
  defineSetting({
    name: 'INDIEWEB_MAX_PROPERTY_VALUES',
    key: 'limits.valuesPerProperty',
    parser: integer({ min: 10 }),
    default: DEFAULT_REQUEST_LIMITS.valuesPerProperty,
    description: 'Items in one JSON array (values of one property); more give 400.',
  }),
  defineSetting({
    name: 'INDIEWEB_MAX_FORM_FIELDS',
    key: 'limits.formFields',
    parser: integer({ min: 10 }),
    default: DEFAULT_REQUEST_LIMITS.formFields,
    description: 'Parameters in a form-encoded body; more give 400.',
  }),
  defineSetting({
    name: 'INDIEWEB_MAX_MULTIPART_FIELDS',
    key: 'limits.multipartFields',
    parser: integer({ min: 10 }),
    default: DEFAULT_REQUEST_LIMITS.multipartFields,
    description: 'Text fields in a multipart body (together at most INDIEWEB_MAX_BODY_BYTES); more give 413.',
  }),
  defineSetting({
    name: 'INDIEWEB_MAX_FIELD_NAME_BYTES',
    key: 'limits.fieldNameBytes',
    parser: integer({ min: 32 }),
    default: DEFAULT_REQUEST_LIMITS.fieldNameBytes,
    description: 'Bytes of one form or multipart field name or JSON key; longer gives 400.',
  }),
];
