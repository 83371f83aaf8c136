/**
 * The world map's browser script, served as /assets/map.js (no inline script: the CSP
 * forbids it). It fetches the revealed chunks' binaries (the browser keeps their ETags
 * and revalidates), decodes the biome layer, paints one pixel per tile on a 2048 x 2048
 * canvas, marks members, and pans and zooms a view of it. It only reads.
 */
export const MAP_SCRIPT = String.raw`(() => {
  'use strict';
  const COLOURS = ['#9ccc65', '#2e7d32', '#e6c96a', '#8d6e63', '#9e9e9e', '#4a90d9', '#5d4037'];
  const canvas = document.getElementById('map');
  if (!canvas) return;
  const view = canvas.getContext('2d');
  const world = document.createElement('canvas');
  world.width = world.height = 2048;
  const paint = world.getContext('2d');
  const image = paint.createImageData(2048, 2048);
  let zoom = canvas.width / 2048, offset_x = 0, offset_y = 0, agents = [];

  function varint(bytes, at) {
    let value = 0, shift = 0, byte;
    do { byte = bytes[at.i++]; value += (byte & 0x7f) * Math.pow(2, shift); shift += 7; } while (byte & 0x80);
    return value;
  }

  function drawChunk(bytes) {
    if (bytes[0] !== 0x43 || bytes[1] !== 0x48 || bytes[2] !== 0x4e || bytes[3] !== 0x4b) return;
    const cx = bytes[5], cy = bytes[6];
    const at = { i: 8 };
    for (let layer = 0; layer < bytes[7]; layer++) {
      const id = bytes[at.i];
      const length = bytes[at.i + 1] | (bytes[at.i + 2] << 8) | (bytes[at.i + 3] << 16) | (bytes[at.i + 4] << 24);
      at.i += 5;
      const end = at.i + length;
      if (id !== 1) { at.i = end; continue; }
      let tile = 0;
      while (at.i < end) {
        const run = varint(bytes, at), value = varint(bytes, at);
        for (let k = 0; k < run; k++, tile++) {
          if (value === 255) continue;
          const x = cx * 64 + (tile % 64), y = cy * 64 + Math.floor(tile / 64);
          const colour = COLOURS[value] || '#000000';
          const p = (y * 2048 + x) * 4;
          image.data[p] = parseInt(colour.slice(1, 3), 16);
          image.data[p + 1] = parseInt(colour.slice(3, 5), 16);
          image.data[p + 2] = parseInt(colour.slice(5, 7), 16);
          image.data[p + 3] = 255;
        }
      }
    }
  }

  function render() {
    view.fillStyle = '#111';
    view.fillRect(0, 0, canvas.width, canvas.height);
    view.imageSmoothingEnabled = false;
    view.drawImage(world, offset_x, offset_y, 2048 * zoom, 2048 * zoom);
    view.fillStyle = '#ff1744';
    for (const agent of agents) if (typeof agent.x === 'number') view.fillRect(offset_x + agent.x * zoom - 2, offset_y + agent.y * zoom - 2, 4, 4);
  }

  async function load() {
    const revealed = await (await fetch(canvas.dataset.chunks)).json();
    await Promise.all(revealed.chunks.map(async (chunk) => {
      const response = await fetch('/api/v1/world/chunk/' + chunk.chunk_x + '/' + chunk.chunk_y);
      drawChunk(new Uint8Array(await response.arrayBuffer()));
    }));
    paint.putImageData(image, 0, 0);
    agents = (await (await fetch(canvas.dataset.agents)).json()).agents;
    const first = revealed.chunks[0];
    if (first) { zoom = 4; offset_x = canvas.width / 2 - (first.chunk_x * 64 + 32) * zoom; offset_y = canvas.height / 2 - (first.chunk_y * 64 + 32) * zoom; }
    render();
    canvas.dataset.drawn = String(revealed.chunks.length);
  }

  let drag = null;
  canvas.addEventListener('mousedown', (event) => { drag = { x: event.clientX - offset_x, y: event.clientY - offset_y }; });
  window.addEventListener('mouseup', () => { drag = null; });
  canvas.addEventListener('mousemove', (event) => { if (!drag) return; offset_x = event.clientX - drag.x; offset_y = event.clientY - drag.y; render(); });
  canvas.addEventListener('wheel', (event) => {
    event.preventDefault();
    const factor = event.deltaY < 0 ? 1.25 : 0.8;
    const rect = canvas.getBoundingClientRect();
    const mx = (event.clientX - rect.left) * canvas.width / rect.width, my = (event.clientY - rect.top) * canvas.height / rect.height;
    offset_x = mx - (mx - offset_x) * factor; offset_y = my - (my - offset_y) * factor; zoom *= factor; render();
  }, { passive: false });
  load().catch((error) => { canvas.dataset.error = String(error); });
})();
`;
