/**
 * Real PNG files of an exact size for the media workloads: random RGBA
 * pixels in stored (uncompressed) deflate blocks, padded to the wanted byte
 * count with a tEXt chunk. file-type recognises them as image/png.
 */
import { randomBytes } from 'node:crypto';
import { deflateSync } from 'node:zlib';

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(buffers) {
  let crc = 0xffffffff;
  for (const buffer of buffers) for (let i = 0; i < buffer.length; i++) crc = CRC_TABLE[(crc ^ buffer[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const name = Buffer.from(type, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32([name, data]));
  return Buffer.concat([length, name, data, crc]);
}

/** A valid PNG of exactly `bytes` bytes (at least ~64 KiB). */
export function makePng(bytes) {
  const width = 256;
  const rowBytes = 1 + width * 4;
  // leave room for the headers and the padding chunk
  const height = Math.max(1, Math.floor((bytes * 0.97) / rowBytes));
  const raw = randomBytes(rowBytes * height);
  for (let row = 0; row < height; row++) raw[row * rowBytes] = 0; // filter type None
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // RGBA
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const head = Buffer.concat([signature, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 0 }))]);
  const iend = chunk('IEND', Buffer.alloc(0));
  const keyword = Buffer.from('Comment\0', 'latin1');
  const padding = bytes - head.length - iend.length - 12 - keyword.length;
  if (padding < 0) throw new Error(`cannot make a PNG of ${bytes} bytes`);
  const png = Buffer.concat([head, chunk('tEXt', Buffer.concat([keyword, Buffer.alloc(padding, 0x61)])), iend]);
  if (png.length !== bytes) throw new Error(`PNG is ${png.length} bytes, wanted ${bytes}`);
  return png;
}

/** A multipart/form-data body with the one part `file` the media endpoint wants. */
export function multipartBody(file, { name = 'file', filename = 'bench.png', type = 'image/png' } = {}) {
  const boundary = `----indiestack-bench-${randomBytes(8).toString('hex')}`;
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`,
      'latin1',
    ),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`, 'latin1'),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}
