/**
 * What an upload really is: its content is sniffed with file-type and must
 * agree with the declared part type and the file name; markup and
 * script-like names are refused whatever the allow-list says.
 * @see SPEC.md "Media endpoint" (Upload storage: Validation)
 * @module
 */
import { excerpt, forClient, UnsupportedMediaTypeError } from '../core/errors.js';

/** Bytes of the start of a file that are enough to recognise it. */
export const SNIFF_BYTES = 4100;

/** Spellings of one type that clients and tools use interchangeably, mapped to the one we store. */
const CANONICAL: Readonly<Record<string, string>> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'audio/mp3': 'audio/mpeg',
  'audio/x-mp3': 'audio/mpeg',
  'audio/x-mpeg': 'audio/mpeg',
  'audio/x-m4a': 'audio/mp4',
  'audio/m4a': 'audio/mp4',
  'audio/x-wav': 'audio/wav',
  'audio/wave': 'audio/wav',
  'audio/vnd.wave': 'audio/wav',
  'audio/x-flac': 'audio/flac',
  'audio/opus': 'audio/ogg',
  'video/x-m4v': 'video/mp4',
};

/** File name suffixes each (canonical) type may carry besides file-type's own. */
const SUFFIXES: Readonly<Record<string, readonly string[]>> = {
  'image/jpeg': ['jpg', 'jpeg', 'jpe', 'jfif'],
  'image/png': ['png'],
  'image/gif': ['gif'],
  'image/webp': ['webp'],
  'image/avif': ['avif'],
  'image/heic': ['heic', 'heif'],
  'image/tiff': ['tif', 'tiff'],
  'audio/mpeg': ['mp3', 'mpga'],
  'audio/mp4': ['m4a', 'mp4', 'aac'],
  'audio/ogg': ['ogg', 'oga', 'opus'],
  'audio/wav': ['wav'],
  'audio/flac': ['flac'],
  'video/mp4': ['mp4', 'm4v'],
  'video/webm': ['webm'],
  'video/ogg': ['ogv', 'ogg'],
  'video/quicktime': ['mov', 'qt'],
};

/** Name segments that make a web server execute or render a file. */
const DANGEROUS_SEGMENT =
  /^(php\d*|phtml|pht|phar|phps|inc|asp|aspx|jsp|jspx|cgi|pl|py|rb|sh|exe|dll|html?|xhtml|shtml|svgz?|xml|js|mjs|htaccess)$/i;

export function canonicalType(type: string): string {
  const bare = type.split(';')[0]?.trim().toLowerCase() ?? '';
  return CANONICAL[bare] ?? bare;
}

function isMarkupOrScript(type: string): boolean {
  return (
    type.startsWith('text/') || type.includes('xml') || type.includes('html') || type.includes('javascript') || type.includes('ecmascript')
  );
}

export interface SniffedType {
  /** Canonical MIME type of the content. */
  readonly mediaType: string;
  /** Suffix for the stored key. */
  readonly extension: string;
}

/**
 * Recognises the content from its first bytes and checks it against the
 * declared part type, the file name and the allow-list (null: off).
 * Throws 415 {@link UnsupportedMediaTypeError} on any disagreement.
 */
export async function sniffUpload(
  sample: Uint8Array,
  declared: { type: string; filename: string },
  allowedTypes: readonly string[] | null,
): Promise<SniffedType> {
  const segments = declared.filename.split('.').slice(1);
  if (segments.some((segment) => DANGEROUS_SEGMENT.test(segment.trim())))
    throw new UnsupportedMediaTypeError(forClient(`refused file name ${excerpt(declared.filename)}`));

  const { fileTypeFromBuffer } = await import('file-type');
  const detected = await fileTypeFromBuffer(sample);
  if (detected === undefined) throw new UnsupportedMediaTypeError(forClient('unrecognised content'));
  const mediaType = canonicalType(detected.mime);
  if (isMarkupOrScript(mediaType)) throw new UnsupportedMediaTypeError(forClient(`refused content ${mediaType}`));

  const declaredType = canonicalType(declared.type);
  // a generic or missing declaration says nothing; any other must agree with the content
  if (declaredType !== '' && declaredType !== 'application/octet-stream' && declaredType !== mediaType) {
    throw new UnsupportedMediaTypeError(forClient(`declared ${excerpt(declaredType)} but the content is ${mediaType}`));
  }
  const suffix = segments.at(-1)?.toLowerCase();
  if (suffix !== undefined && suffix !== '') {
    const expected = new Set([detected.ext, ...(SUFFIXES[mediaType] ?? [])]);
    if (!expected.has(suffix))
      throw new UnsupportedMediaTypeError(forClient(`file name suffix .${excerpt(suffix)} does not fit ${mediaType}`));
  }
  if (allowedTypes !== null && !allowedTypes.map(canonicalType).includes(mediaType))
    throw new UnsupportedMediaTypeError(forClient(`${mediaType} is not allowed`));
  return { mediaType, extension: detected.ext };
}
