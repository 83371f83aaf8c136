/**
 * Chunks: fetched with cache 'no-cache', so the browser revalidates its copy with the
 * ETag and the server answers 304 for an unchanged chunk; a chunk is decoded and
 * repainted only when its ETag differs from the one drawn. Painting goes into one
 * 2048 x 2048 image, a pixel per tile, transparent where unrevealed, which the frame
 * scales onto the screen over the fog hatch.
 */
export const MAP_CHUNKS = String.raw`
  const plane = document.createElement('canvas');
  plane.width = plane.height = WORLD;
  const plane_paint = plane.getContext('2d');
  const drawn_etags = new Map();
  /** Placed blocks by chunk ("cx,cy" -> [{ x, y, block }]): drawn as marks where a tile is too small to show one. */
  const chunk_blocks = new Map();

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

  /** Painted by the rule the server's image uses too (paintChunkTiles); unrevealed tiles stay transparent over the fog. */
  function paintChunk(chunk) {
    const image = plane_paint.createImageData(CHUNK, CHUNK);
    paintChunkTiles(chunk, PALETTE.tiles, image.data);
    plane_paint.putImageData(image, chunk.cx * CHUNK, chunk.cy * CHUNK);
    const box = { x0: WORLD, y0: WORLD, x1: 0, y1: 0 }, blocks = [];
    for (let tile = 0; tile < CHUNK * CHUNK; tile++) {
      if (chunk.biome[tile] === 255) continue;
      const x = chunk.cx * CHUNK + (tile % CHUNK), y = chunk.cy * CHUNK + ((tile / CHUNK) | 0);
      box.x0 = Math.min(box.x0, x); box.y0 = Math.min(box.y0, y); box.x1 = Math.max(box.x1, x + 1); box.y1 = Math.max(box.y1, y + 1);
      if (chunk.block && chunk.block[tile]) blocks.push({ x, y, block: chunk.block[tile] });
    }
    if (box.x1 > box.x0) revealed_bounds.set(chunk.cx + ',' + chunk.cy, box);
    chunk_blocks.set(chunk.cx + ',' + chunk.cy, blocks);
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
