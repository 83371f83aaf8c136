/**
 * Pointer events serve mouse, pen and touch alike: one pointer pans, two pinch (zoom
 * about their midpoint, and pan with it), and a pointer that goes down and up without
 * moving more than a few pixels is a tap: it opens the tile panel. The canvas has
 * touch-action: none, so the browser leaves these gestures to the map.
 */
export const MAP_INPUT = String.raw`
  const pointers = new Map();
  let gesture = null;
  const local = (event) => { const rect = canvas.getBoundingClientRect(); return { x: event.clientX - rect.left, y: event.clientY - rect.top }; };

  function startGesture() {
    const points = [...pointers.values()];
    if (points.length === 1) gesture = { kind: 'pan', last: points[0], moved: 0 };
    else if (points.length === 2) gesture = { kind: 'pinch', distance: Math.hypot(points[0].x - points[1].x, points[0].y - points[1].y) || 1, scale: view.scale, mid: { x: (points[0].x + points[1].x) / 2, y: (points[0].y + points[1].y) / 2 }, moved: 99 };
    else gesture = null;
  }

  canvas.addEventListener('pointerdown', (event) => {
    canvas.setPointerCapture(event.pointerId);
    pointers.set(event.pointerId, local(event));
    startGesture();
  });
  canvas.addEventListener('pointermove', (event) => {
    const point = local(event);
    if (!pointers.has(event.pointerId)) {
      const tile = tileAt(point.x, point.y);
      world.hover = { x: Math.floor(tile.x), y: Math.floor(tile.y) };
      showStatus();
      return;
    }
    pointers.set(event.pointerId, point);
    if (gesture?.kind === 'pan') {
      gesture.moved += Math.abs(point.x - gesture.last.x) + Math.abs(point.y - gesture.last.y);
      if (gesture.moved > 6) panBy(point.x - gesture.last.x, point.y - gesture.last.y);
      else return;
      gesture.last = point;
    } else if (gesture?.kind === 'pinch') {
      const [a, b] = [...pointers.values()];
      const mid = { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
      view.cx -= (mid.x - gesture.mid.x) / view.scale; view.cy -= (mid.y - gesture.mid.y) / view.scale;
      gesture.mid = mid;
      setScale(gesture.scale * Math.hypot(a.x - b.x, a.y - b.y) / gesture.distance, mid.x, mid.y);
    }
  });
  function pointerEnd(event) {
    if (!pointers.has(event.pointerId)) return;
    const point = pointers.get(event.pointerId);
    const tapped = event.type === 'pointerup' && gesture?.kind === 'pan' && gesture.moved <= 6;
    pointers.delete(event.pointerId);
    startGesture();
    // The finger left on the glass after a pinch pans on, but lifting it is no tap.
    if (gesture) gesture.moved = 99;
    if (tapped) { const tile = tileAt(point.x, point.y); openTile(Math.floor(tile.x), Math.floor(tile.y)); }
  }
  canvas.addEventListener('pointerup', pointerEnd);
  canvas.addEventListener('pointercancel', pointerEnd);
  canvas.addEventListener('pointerleave', () => { if (!pointers.size) { world.hover = null; showStatus(); } });

  /** Wheel notches add up, so a trackpad's many small deltas zoom as calmly as a mouse's clicks. */
  let wheel_sum = 0;
  canvas.addEventListener('wheel', (event) => {
    event.preventDefault();
    wheel_sum += event.deltaMode === 1 ? event.deltaY * 40 : event.deltaY;
    if (Math.abs(wheel_sum) < 50) return;
    const point = local(event);
    zoomStep(wheel_sum < 0 ? 1 : -1, point.x, point.y);
    wheel_sum = 0;
  }, { passive: false });

  canvas.addEventListener('keydown', (event) => {
    const step = Math.min(view.width, view.height) / 4;
    const keys = {
      ArrowLeft: () => panBy(step, 0), ArrowRight: () => panBy(-step, 0), ArrowUp: () => panBy(0, step), ArrowDown: () => panBy(0, -step),
      '+': () => zoomStep(1), '=': () => zoomStep(1), '-': () => zoomStep(-1), '_': () => zoomStep(-1), '0': fit,
      Enter: () => openTile(Math.floor(view.cx), Math.floor(view.cy)),
    };
    const act = keys[event.key];
    if (!act) return;
    event.preventDefault();
    act();
  });
  const button = (id, act) => document.getElementById(id)?.addEventListener('click', act);
  button('map-zoom-in', () => zoomStep(1));
  button('map-zoom-out', () => zoomStep(-1));
  button('map-fit', fit);
`;
