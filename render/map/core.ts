/**
 * The map script's shared state and view arithmetic. The pieces under render/map/ are
 * joined into one function body (render/map_script.ts), so they share these names.
 *
 * The view is a centre in tile coordinates (fractional) and a scale in CSS pixels per
 * tile, a power of two between 2^MIN_LEVEL and 2^MAX_LEVEL while no pinch is under way.
 * Drawing is in CSS pixels; the backing store is scaled by the device pixel ratio, so
 * the map is sharp on a phone without the script thinking about it anywhere else.
 */
export const MAP_CORE = String.raw`
  const WORLD = 2048, CHUNK = 64, CHUNKS = 32;
  const canvas = document.getElementById('map');
  if (!canvas) return;
  const status_line = document.getElementById('map-status');
  const permalink = document.getElementById('map-permalink');
  const screen = canvas.getContext('2d');
  const MIN_LEVEL = Number(canvas.dataset.minZoom), MAX_LEVEL = Number(canvas.dataset.maxZoom);
  const view = { cx: WORLD / 2, cy: WORLD / 2, scale: 1, width: 1, height: 1 };
  const revealed_bounds = new Map();
  const world = { chunks: [], agents: [], handles: new Map(), structures: null, selected: null, hover: null };

  const clamp = (value, low, high) => Math.min(high, Math.max(low, value));
  const level = () => Math.log2(view.scale);
  const tileAt = (px, py) => ({ x: (px - view.width / 2) / view.scale + view.cx, y: (py - view.height / 2) / view.scale + view.cy });
  const screenX = (tx) => (tx - view.cx) * view.scale + view.width / 2;
  const screenY = (ty) => (ty - view.cy) * view.scale + view.height / 2;

  function setScale(scale, px, py) {
    const anchor = tileAt(px, py);
    view.scale = clamp(scale, Math.pow(2, MIN_LEVEL), Math.pow(2, MAX_LEVEL));
    view.cx = anchor.x - (px - view.width / 2) / view.scale;
    view.cy = anchor.y - (py - view.height / 2) / view.scale;
    changed();
  }

  /** Wheel, buttons and keys step by whole levels (doubling), about a point. */
  function zoomStep(steps, px = view.width / 2, py = view.height / 2) {
    setScale(Math.pow(2, Math.round(level()) + steps), px, py);
  }

  function panBy(dx_px, dy_px) {
    view.cx -= dx_px / view.scale;
    view.cy -= dy_px / view.scale;
    changed();
  }

  /** Everything revealed, with a margin, at the largest whole level that shows it all. */
  function fit() {
    let x0 = WORLD, y0 = WORLD, x1 = 0, y1 = 0;
    for (const chunk of world.chunks) {
      // The revealed tiles' own bounds once the chunk is drawn; the whole chunk before.
      const box = revealed_bounds.get(chunk.chunk_x + ',' + chunk.chunk_y) ?? { x0: chunk.chunk_x * CHUNK, y0: chunk.chunk_y * CHUNK, x1: (chunk.chunk_x + 1) * CHUNK, y1: (chunk.chunk_y + 1) * CHUNK };
      x0 = Math.min(x0, box.x0); y0 = Math.min(y0, box.y0); x1 = Math.max(x1, box.x1); y1 = Math.max(y1, box.y1);
    }
    if (x1 <= x0) { x0 = 0; y0 = 0; x1 = WORLD; y1 = WORLD; }
    const margin = 16;
    const fits = Math.min(view.width / (x1 - x0 + 2 * margin), view.height / (y1 - y0 + 2 * margin));
    view.scale = Math.pow(2, clamp(Math.floor(Math.log2(fits)), MIN_LEVEL, MAX_LEVEL));
    view.cx = (x0 + x1) / 2; view.cy = (y0 + y1) / 2;
    changed();
  }

  /** The centre never leaves the plane, so no zoom or pan can end on an empty screen. */
  function keepOnPlane() {
    view.cx = clamp(view.cx, 0, WORLD); view.cy = clamp(view.cy, 0, WORLD);
  }

  let url_timer = 0;
  function changed() {
    keepOnPlane();
    canvas.dataset.zoom = String(Math.round(level() * 100) / 100);
    canvas.dataset.centerX = view.cx.toFixed(2);
    canvas.dataset.centerY = view.cy.toFixed(2);
    requestDraw();
    clearTimeout(url_timer);
    url_timer = setTimeout(followUrl, 150);
  }

  /** The address bar and the "link to this view" anchor always name what is shown. */
  function followUrl() {
    const href = '/world?x=' + Math.floor(view.cx) + '&y=' + Math.floor(view.cy) + '&z=' + Math.round(level());
    if (permalink) permalink.href = href;
    if (location.pathname + location.search !== href) history.replaceState(null, '', href);
  }

  function describe(x, y) {
    return 'x ' + x + ', y ' + y + ' · chunk (' + Math.floor(x / CHUNK) + ', ' + Math.floor(y / CHUNK) + ')';
  }

  function showStatus() {
    if (!status_line) return;
    const spot = world.hover ?? { x: Math.floor(view.cx), y: Math.floor(view.cy) };
    const zoom = view.scale >= 1 ? view.scale.toFixed(view.scale % 1 ? 1 : 0) + ' px per tile' : '1 px per ' + (1 / view.scale).toFixed(0) + ' tiles';
    const where = spot.x >= 0 && spot.y >= 0 && spot.x < WORLD && spot.y < WORLD ? describe(spot.x, spot.y) : 'outside the plane';
    status_line.textContent = (world.hover ? 'Pointer: ' : 'Centre: ') + where + ' · ' + zoom + (hidden_labels ? ' · ' + hidden_labels + ' labels hidden, zoom in to read them' : '');
  }

  /** Backing store in device pixels, drawing in CSS pixels. */
  function resize() {
    const ratio = Math.min(window.devicePixelRatio || 1, 3);
    const rect = canvas.getBoundingClientRect();
    view.width = Math.max(1, rect.width); view.height = Math.max(1, rect.height);
    canvas.width = Math.round(view.width * ratio); canvas.height = Math.round(view.height * ratio);
    screen.setTransform(ratio, 0, 0, ratio, 0, 0);
    // Setting the size cleared the canvas: draw now, not a frame later, so it never shows blank.
    draw();
  }
`;
