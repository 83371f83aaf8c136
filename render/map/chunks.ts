/**
 * Chunks: fetched with cache 'no-cache', so the browser revalidates its copy with the
 * ETag and the server answers 304 for an unchanged chunk; a chunk is decoded and
 * repainted only when its ETag differs from the one drawn. Painting goes into one
 * 2048 x 2048 image, a pixel per tile, which the frame then scales onto the screen.
 */
export const MAP_CHUNKS = String.raw`
  const plane = document.createElement('canvas');
  plane.width = plane.height = WORLD;
  const plane_paint = plane.getContext('2d');
  const drawn_etags = new Map();
  const rgb = (hex) => [parseInt(hex.slice(1, 3), 16), parseInt(hex.slice(3, 5), 16), parseInt(hex.slice(5, 7), 16)];
  const BIOME_RGB = PALETTE.biomes.map(rgb);
  const FOG_RGB = PALETTE.fog.map(rgb);
  const BLOCK_RGB = {};
  for (const id of Object.keys(PALETTE.blocks)) BLOCK_RGB[id] = rgb(PALETTE.blocks[id]);

  /** Fog everywhere first: a 4-tile checker, light and neutral. */
  (function fogAll() {
    const image = plane_paint.createImageData(WORLD, WORLD);
    for (let y = 0; y < WORLD; y++) for (let x = 0; x < WORLD; x++) putTile(image.data, (y * WORLD + x) * 4, FOG_RGB[((x >> 2) + (y >> 2)) & 1]);
    plane_paint.putImageData(image, 0, 0);
  })();

  function putTile(data, p, colour) { data[p] = colour[0]; data[p + 1] = colour[1]; data[p + 2] = colour[2]; data[p + 3] = 255; }

  /** The chunk binary of docs/world.md: "CHNK", version, chunk_x, chunk_y, layers of LEB128 runs. */
  function decodeChunk(bytes) {
    if (bytes[0] !== 0x43 || bytes[1] !== 0x48 || bytes[2] !== 0x4e || bytes[3] !== 0x4b) throw new Error('not a chunk binary');
    const layers = {}, at = { i: 8 };
    const varint = () => { let value = 0, shift = 0, byte; do { byte = bytes[at.i++]; value += (byte & 0x7f) * Math.pow(2, shift); shift += 7; } while (byte & 0x80); return value; };
    for (let layer = 0; layer < bytes[7]; layer++) {
      const id = bytes[at.i], length = bytes[at.i + 1] | (bytes[at.i + 2] << 8) | (bytes[at.i + 3] << 16) | (bytes[at.i + 4] << 24);
      at.i += 5;
      const end = at.i + length, values = new Uint8Array(CHUNK * CHUNK);
      let tile = 0;
      while (at.i < end) { const run = varint(), value = varint(); values.fill(value, tile, tile + run); tile += run; }
      layers[id] = values;
    }
    return { cx: bytes[5], cy: bytes[6], biome: layers[1], height: layers[2], block: layers[3] };
  }

  /**
   * Biome colour lit from the north-west by the height step to the neighbour there, so
   * relief shows; flat ground keeps its legend colour exactly. A placed block's colour wins.
   */
  function paintChunk(chunk) {
    const image = plane_paint.createImageData(CHUNK, CHUNK), data = image.data;
    const box = { x0: WORLD, y0: WORLD, x1: 0, y1: 0 };
    for (let tile = 0; tile < CHUNK * CHUNK; tile++) {
      const lx = tile % CHUNK, ly = (tile / CHUNK) | 0, p = tile * 4, biome = chunk.biome[tile];
      const x = chunk.cx * CHUNK + lx, y = chunk.cy * CHUNK + ly;
      if (biome === 255) { putTile(data, p, FOG_RGB[((x >> 2) + (y >> 2)) & 1]); continue; }
      box.x0 = Math.min(box.x0, x); box.y0 = Math.min(box.y0, y); box.x1 = Math.max(box.x1, x + 1); box.y1 = Math.max(box.y1, y + 1);
      const block = chunk.block && chunk.block[tile];
      if (block && BLOCK_RGB[block]) { putTile(data, p, BLOCK_RGB[block]); continue; }
      const base = BIOME_RGB[biome] || FOG_RGB[0];
      const nw = lx > 0 && ly > 0 ? tile - CHUNK - 1 : -1;
      const step = nw >= 0 && chunk.biome[nw] !== 255 ? clamp(chunk.height[tile] - chunk.height[nw], -4, 4) : 0;
      const light = 1 + step * 0.06;
      putTile(data, p, [clamp(Math.round(base[0] * light), 0, 255), clamp(Math.round(base[1] * light), 0, 255), clamp(Math.round(base[2] * light), 0, 255)]);
    }
    plane_paint.putImageData(image, chunk.cx * CHUNK, chunk.cy * CHUNK);
    if (box.x1 > box.x0) revealed_bounds.set(chunk.cx + ',' + chunk.cy, box);
  }

  async function refreshChunk(chunk_x, chunk_y) {
    const key = chunk_x + ',' + chunk_y;
    const response = await fetch('/api/v1/world/chunk/' + chunk_x + '/' + chunk_y, { cache: 'no-cache' });
    if (!response.ok) throw new Error('chunk ' + key + ': HTTP ' + response.status);
    const etag = response.headers.get('ETag');
    if (etag && drawn_etags.get(key) === etag) return false;
    paintChunk(decodeChunk(new Uint8Array(await response.arrayBuffer())));
    drawn_etags.set(key, etag);
    return true;
  }

  /** A few at a time: a big world should not open a hundred requests at once. */
  async function refreshChunks() {
    const queue = world.chunks.slice();
    let repainted = 0;
    const worker = async () => { for (let next = queue.shift(); next; next = queue.shift()) if (await refreshChunk(next.chunk_x, next.chunk_y)) repainted++; };
    await Promise.all([worker(), worker(), worker(), worker()]);
    canvas.dataset.drawn = String(drawn_etags.size);
    canvas.dataset.repainted = String(Number(canvas.dataset.repainted || 0) + repainted);
    if (repainted) requestDraw();
  }
`;
