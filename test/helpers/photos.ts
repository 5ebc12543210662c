/**
 * Photos generated for the photo tests with sharp itself (no committed
 * binaries): a phone photo with GPS, a serial number and a sideways
 * orientation, PNGs with text chunks, and hostile images.
 * @module
 */
import { randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';

export const SECRET_MAKER = 'Phonemaker-Secret';
export const SECRET_SERIAL = 'SERIAL-0042-7788';

/** Raw RGB pixels: the left half red, the right half blue, with a little noise so JPEG has work to do. */
export function redLeftBlueRight(width: number, height: number): Buffer {
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const at = (y * width + x) * 3;
      const noise = randomInt(24);
      if (x < width / 2) pixels.set([210 + noise, 20 + noise, 20], at);
      else pixels.set([20, 20 + noise, 210 + noise], at);
    }
  }
  return pixels;
}

/**
 * What a phone sends: stored 600×400 with EXIF orientation 6 (shown turned
 * a quarter clockwise, so 400×600 with red on top), GPS position, maker,
 * body serial number and XMP.
 */
export async function phonePhoto(width = 600, height = 400): Promise<Buffer> {
  return sharp(redLeftBlueRight(width, height), { raw: { width, height, channels: 3 } })
    .withMetadata({ orientation: 6 })
    .withExif({
      IFD0: { Make: SECRET_MAKER, Model: 'Pocket 9', Software: 'PocketOS 1.2' },
      IFD2: { BodySerialNumber: SECRET_SERIAL },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 2641/100', GPSLongitudeRef: 'W', GPSLongitude: '0/1 7/1 4000/100' },
    })
    .withXmp(
      '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/" dc:creator="Alice Secret"/></rdf:RDF></x:xmpmeta>',
    )
    .jpeg({ quality: 80 })
    .toBuffer();
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** `png` with a tEXt chunk inserted after IHDR (PNG signature 8 bytes, IHDR chunk 25). */
export function withTextChunk(png: Buffer, keyword: string, text: string): Buffer {
  const at = 8 + 25;
  return Buffer.concat([png.subarray(0, at), chunk('tEXt', Buffer.from(`${keyword}\0${text}`, 'latin1')), png.subarray(at)]);
}

/** A small PNG whose header claims `width` × `height` pixels: a decompression bomb as far as any decoder knows. */
export async function bombPng(width: number, height: number): Promise<Buffer> {
  const png = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#fff' } })
    .png()
    .toBuffer();
  const ihdr = Buffer.from(png.subarray(8 + 8, 8 + 8 + 13));
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  return Buffer.concat([png.subarray(0, 8), chunk('IHDR', ihdr), png.subarray(8 + 25)]);
}

/** An animated GIF of `frames` frames of 8×8 pixels, dark and light in turn (equal frames would be merged). */
export async function animatedGif(frames: number): Promise<Buffer> {
  const raw = Buffer.alloc(8 * 8 * 3 * frames);
  for (let frame = 0; frame < frames; frame += 1) raw.fill(frame % 2 === 0 ? 20 : 230, frame * 192, (frame + 1) * 192);
  return sharp(raw, { raw: { width: 8, height: 8 * frames, channels: 3, pageHeight: 8 } })
    .gif()
    .toBuffer();
}
