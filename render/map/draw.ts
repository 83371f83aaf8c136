/**
 * One frame: the fog hatch over the plane, the plane image scaled on it (nearest
 * neighbour, so a tile stays a crisp square; unrevealed tiles are transparent), then
 * what lies on it, drawn at a fixed screen size so it shows at every zoom: roads, block
 * marks (where a tile is too small to show its block), links, masts, the Hub, members,
 * and last the labels, so nothing is ever drawn over a label. Frames are coalesced into
 * one per animation frame, however many events asked for one.
 */
export const MAP_DRAW = String.raw`
  let frame_asked = false, hidden_labels = 0;
  /** Below this many CSS pixels a tile, a placed block gets a mark; at most this many marks a frame. */
  const BLOCK_MARK_BELOW = 4, BLOCK_MARKS_MAX = 2000;
  const LABEL_FONT = '600 12px system-ui, sans-serif', LABEL_HEIGHT = 18;
  function requestDraw() {
    if (frame_asked) return;
    frame_asked = true;
    requestAnimationFrame(() => { frame_asked = false; draw(); });
  }

  /** The fog: one period of the hatch, repeated at screen size and moved with the plane. */
  const fog_pattern = (() => {
    const period = PALETTE.fog.period_px, tile = document.createElement('canvas');
    tile.width = tile.height = period;
    const paint = tile.getContext('2d');
    for (let y = 0; y < period; y++) for (let x = 0; x < period; x++) {
      paint.fillStyle = fogHatch(x, y, period, PALETTE.fog.line_px) ? PALETTE.fog.line : PALETTE.fog.ground;
      paint.fillRect(x, y, 1, 1);
    }
    return screen.createPattern(tile, 'repeat');
  })();

  function draw() {
    const s = view.scale, left = screenX(0), top = screenY(0), size = WORLD * s, period = PALETTE.fog.period_px;
    screen.fillStyle = PALETTE.outside;
    screen.fillRect(0, 0, view.width, view.height);
    fog_pattern.setTransform(new DOMMatrix().translate(((left % period) + period) % period, ((top % period) + period) % period));
    screen.fillStyle = fog_pattern;
    screen.fillRect(Math.max(left, 0), Math.max(top, 0), Math.min(size, view.width), Math.min(size, view.height));
    screen.imageSmoothingEnabled = false;
    screen.drawImage(plane, left, top, size, size);
    screen.strokeStyle = '#8a8478'; screen.lineWidth = 1;
    screen.strokeRect(left - 0.5, top - 0.5, size + 1, size + 1);
    const visible = (x, y, pad) => { const sx = screenX(x), sy = screenY(y); return sx > -pad && sy > -pad && sx < view.width + pad && sy < view.height + pad; };
    drawRoads(s, visible);
    drawBlockMarks(s, visible);
    const structures = drawAether(s, visible);
    const dots = drawMembers(s, visible);
    drawLabels(s, dots, structures);
    if (world.selected) {
      screen.strokeStyle = '#000'; screen.lineWidth = 2;
      const box = Math.max(s, 10);
      screen.strokeRect(screenX(world.selected.x + 0.5) - box / 2, screenY(world.selected.y + 0.5) - box / 2, box, box);
    }
    showStatus();
  }

  /** A road is a band joining each road tile to its road neighbours, on a light edge, at least 3 px wide. */
  function drawRoads(s, visible) {
    const roads = world.structures ? world.structures.roads : [];
    if (!roads.length) return;
    const at = new Set(roads.map((road) => road.x + ',' + road.y)), width = Math.max(s * 0.45, 3);
    screen.lineCap = 'round'; screen.lineJoin = 'round';
    for (const [colour, line_width] of [[PALETTE.road_edge, width + 2], [PALETTE.road, width]]) {
      screen.strokeStyle = colour; screen.lineWidth = line_width;
      screen.beginPath();
      for (const road of roads) {
        if (!visible(road.x, road.y, s + 8)) continue;
        const x = screenX(road.x + 0.5), y = screenY(road.y + 0.5);
        screen.moveTo(x, y); screen.lineTo(x + 0.01, y);
        if (at.has(road.x + 1 + ',' + road.y)) { screen.moveTo(x, y); screen.lineTo(x + s, y); }
        if (at.has(road.x + ',' + (road.y + 1))) { screen.moveTo(x, y); screen.lineTo(x, y + s); }
      }
      screen.stroke();
    }
    screen.lineCap = 'butt';
  }

  function drawBlockMarks(s, visible) {
    if (s >= BLOCK_MARK_BELOW) return;
    let drawn = 0;
    for (const blocks of chunk_blocks.values()) for (const block of blocks) {
      if (drawn >= BLOCK_MARKS_MAX || !visible(block.x, block.y, 8)) continue;
      const x = screenX(block.x + 0.5), y = screenY(block.y + 0.5);
      screen.fillStyle = '#000'; screen.fillRect(x - 3.5, y - 3.5, 7, 7);
      screen.fillStyle = PALETTE.blocks[block.block] || '#fff'; screen.fillRect(x - 2.5, y - 2.5, 5, 5);
      drawn++;
    }
  }

  /** Links, masts and the Hub; returns their screen boxes, for labels to keep off. */
  function drawAether(s, visible) {
    const built = world.structures, boxes = [];
    if (!built) return boxes;
    const mast_at = new Map(built.masts.map((mast) => [mast.relay_id, mast]));
    screen.strokeStyle = PALETTE.link; screen.lineWidth = Math.max(2, s * 0.15);
    screen.beginPath();
    for (const link of built.links) {
      const a = mast_at.get(link.from_relay_id), b = mast_at.get(link.to_relay_id);
      if (!a || !b) continue;
      screen.moveTo(screenX(a.x + 0.5), screenY(a.y + 0.5)); screen.lineTo(screenX(b.x + 0.5), screenY(b.y + 0.5));
    }
    screen.stroke();
    // Twice a member's dot at least, so a mast under a member still shows around it.
    const r = clamp(s * 0.45, 8, 15);
    for (const mast of built.masts) {
      if (!visible(mast.x, mast.y, r * 2)) continue;
      const x = screenX(mast.x + 0.5), y = screenY(mast.y + 0.5);
      screen.beginPath(); screen.moveTo(x, y - r); screen.lineTo(x + r, y + r); screen.lineTo(x - r, y + r); screen.closePath();
      screen.fillStyle = PALETTE.mast; screen.fill(); screen.strokeStyle = '#fff'; screen.lineWidth = 1.5; screen.stroke();
      boxes.push({ x: x - r, y: y - r, w: 2 * r, h: 2 * r });
    }
    if (built.hub && visible(built.hub.x, built.hub.y, r * 3)) {
      const x = screenX(built.hub.x + 0.5), y = screenY(built.hub.y + 0.5), h = r * 1.4;
      screen.beginPath(); screen.moveTo(x, y - h); screen.lineTo(x + h, y); screen.lineTo(x, y + h); screen.lineTo(x - h, y); screen.closePath();
      screen.fillStyle = PALETTE.hub; screen.fill(); screen.strokeStyle = '#000'; screen.lineWidth = 1.5; screen.stroke();
      boxes.push({ x: x - h, y: y - h, w: 2 * h, h: 2 * h });
    }
    return boxes;
  }

  /** One dot a tile, a second ring behind it for a stack of members; returns the dots, handles sorted. */
  function drawMembers(s, visible) {
    const r = clamp(s * 0.3, 4, 8), stacks = new Map(), dots = [];
    for (const agent of world.agents) {
      if (typeof agent.x !== 'number' || !visible(agent.x, agent.y, 120)) continue;
      const key = agent.x + ',' + agent.y;
      if (!stacks.has(key)) stacks.set(key, { x: agent.x, y: agent.y, names: [] });
      stacks.get(key).names.push(agent.handle ?? agent.agent_id.slice(0, 10));
    }
    const dot = (x, y) => { screen.beginPath(); screen.arc(x, y, r, 0, Math.PI * 2); screen.fillStyle = PALETTE.member; screen.fill(); screen.strokeStyle = '#fff'; screen.lineWidth = 2; screen.stroke(); };
    for (const stack of stacks.values()) {
      const x = screenX(stack.x + 0.5), y = screenY(stack.y + 0.5), many = stack.names.length > 1;
      if (many) dot(x + 3, y - 3);
      dot(x, y);
      dots.push({ x, y, r: r + (many ? 4 : 1), names: stack.names.sort() });
    }
    canvas.dataset.dots = JSON.stringify(dots.map((one) => [Math.round(one.x), Math.round(one.y), Math.round(one.r)]));
    return dots;
  }

  /**
   * Labels, after everything else: a stack's label is its first handle, with "+N" for the
   * others on the tile (the tile panel lists them all). Each takes the first of four
   * places around its dot (past a mast it stands on) that overlaps no label placed before
   * it, no other member's dot and no mast; a label with no free place is left out and counted in the status line.
   * Bigger stacks are placed first. Below one pixel per tile no labels are tried.
   */
  function drawLabels(s, dots, structures) {
    const placed = [], texts = [];
    hidden_labels = 0;
    if (s < 1) hidden_labels = dots.length;
    else {
      screen.font = LABEL_FONT; screen.textBaseline = 'middle';
      const hits = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
      const boxOf = (one) => ({ x: one.x - one.r, y: one.y - one.r, w: 2 * one.r, h: 2 * one.r });
      const order = dots.slice().sort((a, b) => b.names.length - a.names.length || (a.names[0] < b.names[0] ? -1 : 1));
      for (const dot of order) {
        const text = dot.names[0] + (dot.names.length > 1 ? ' +' + (dot.names.length - 1) : '');
        // A member on a mast: its label starts past the mast, so it covers neither.
        const under = structures.filter((box) => box.x <= dot.x && dot.x <= box.x + box.w && box.y <= dot.y && dot.y <= box.y + box.h);
        const gap = Math.max(dot.r, ...under.map((box) => box.w / 2)) + 2;
        const w = screen.measureText(text).width + 8, h = LABEL_HEIGHT;
        const places = [[dot.x + gap, dot.y - h / 2], [dot.x - gap - w, dot.y - h / 2], [dot.x - w / 2, dot.y - gap - h], [dot.x - w / 2, dot.y + gap]];
        const obstacles = placed.concat(structures, dots.filter((other) => other !== dot).map(boxOf));
        const place = places.map(([x, y]) => ({ x, y, w, h })).find((box) => !obstacles.some((other) => hits(box, other)));
        if (!place) { hidden_labels++; continue; }
        placed.push(place); texts.push(text);
        screen.fillStyle = 'rgba(255,255,255,0.92)'; screen.fillRect(place.x, place.y, w, h);
        screen.strokeStyle = 'rgba(11,37,69,0.35)'; screen.lineWidth = 1; screen.strokeRect(place.x + 0.5, place.y + 0.5, w - 1, h - 1);
        screen.fillStyle = '#0b2545'; screen.fillText(text, place.x + 4, place.y + h / 2);
      }
    }
    canvas.dataset.labels = texts.join(' ');
    canvas.dataset.labelBoxes = JSON.stringify(placed.map((box) => [box.x, box.y, box.w, box.h].map(Math.round)));
  }
`;
