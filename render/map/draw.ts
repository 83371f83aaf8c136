/**
 * One frame: the plane image scaled (nearest neighbour, so a tile stays a crisp square),
 * then what lies on it, drawn at screen size so it stays legible at every zoom: roads,
 * links, masts, the Hub, members, and the selected tile. Frames are coalesced into one
 * per animation frame, however many events asked for one.
 */
export const MAP_DRAW = String.raw`
  let frame_asked = false, hidden_labels = 0;
  function requestDraw() {
    if (frame_asked) return;
    frame_asked = true;
    requestAnimationFrame(() => { frame_asked = false; draw(); });
  }

  function draw() {
    const s = view.scale;
    screen.fillStyle = '#b9b4a8';
    screen.fillRect(0, 0, view.width, view.height);
    screen.imageSmoothingEnabled = false;
    screen.drawImage(plane, screenX(0), screenY(0), WORLD * s, WORLD * s);
    screen.strokeStyle = '#8a8478'; screen.lineWidth = 1;
    screen.strokeRect(screenX(0) - 0.5, screenY(0) - 0.5, WORLD * s + 1, WORLD * s + 1);
    const visible = (x, y, pad) => { const sx = screenX(x), sy = screenY(y); return sx > -pad && sy > -pad && sx < view.width + pad && sy < view.height + pad; };
    drawRoads(s, visible);
    drawAether(s, visible);
    drawMembers(s, visible);
    if (world.selected) {
      screen.strokeStyle = '#000'; screen.lineWidth = 2;
      const size = Math.max(s, 6);
      screen.strokeRect(screenX(world.selected.x + 0.5) - size / 2, screenY(world.selected.y + 0.5) - size / 2, size, size);
    }
    showStatus();
  }

  function drawRoads(s, visible) {
    if (!world.structures) return;
    screen.fillStyle = PALETTE.road;
    const inset = s >= 4 ? s * 0.2 : 0, size = Math.max(s - 2 * inset, 1.5);
    for (const road of world.structures.roads) if (visible(road.x, road.y, s + 2)) screen.fillRect(screenX(road.x) + inset, screenY(road.y) + inset, size, size);
  }

  function drawAether(s, visible) {
    const built = world.structures;
    if (!built) return;
    const mast_at = new Map(built.masts.map((mast) => [mast.relay_id, mast]));
    screen.strokeStyle = PALETTE.link; screen.lineWidth = Math.max(1.5, s * 0.15);
    screen.beginPath();
    for (const link of built.links) {
      const a = mast_at.get(link.from_relay_id), b = mast_at.get(link.to_relay_id);
      if (!a || !b) continue;
      screen.moveTo(screenX(a.x + 0.5), screenY(a.y + 0.5)); screen.lineTo(screenX(b.x + 0.5), screenY(b.y + 0.5));
    }
    screen.stroke();
    const r = clamp(s * 0.45, 5, 14);
    for (const mast of built.masts) {
      if (!visible(mast.x, mast.y, r * 2)) continue;
      const x = screenX(mast.x + 0.5), y = screenY(mast.y + 0.5);
      screen.beginPath(); screen.moveTo(x, y - r); screen.lineTo(x + r, y + r); screen.lineTo(x - r, y + r); screen.closePath();
      screen.fillStyle = PALETTE.mast; screen.fill(); screen.strokeStyle = '#fff'; screen.lineWidth = 1.5; screen.stroke();
    }
    if (built.hub && visible(built.hub.x, built.hub.y, r * 3)) {
      const x = screenX(built.hub.x + 0.5), y = screenY(built.hub.y + 0.5), h = r * 1.6;
      screen.beginPath(); screen.moveTo(x, y - h); screen.lineTo(x + h, y); screen.lineTo(x, y + h); screen.lineTo(x - h, y); screen.closePath();
      screen.fillStyle = PALETTE.hub; screen.fill(); screen.strokeStyle = '#000'; screen.lineWidth = 1.5; screen.stroke();
    }
  }

  /**
   * Markers always; labels where they fit: each label takes its place unless it would
   * overlap one already placed, and the ones left out are counted in the status line.
   * Below one pixel per tile no labels are tried: a crowd there is only dots.
   */
  function drawMembers(s, visible) {
    const r = clamp(s * 0.4, 3.5, 9), placed = [], labelled = [];
    hidden_labels = 0;
    screen.font = '600 12px system-ui, sans-serif'; screen.textBaseline = 'middle';
    for (const agent of world.agents) {
      if (typeof agent.x !== 'number' || !visible(agent.x, agent.y, 80)) continue;
      const x = screenX(agent.x + 0.5), y = screenY(agent.y + 0.5);
      screen.beginPath(); screen.arc(x, y, r, 0, Math.PI * 2);
      screen.fillStyle = PALETTE.member; screen.fill(); screen.strokeStyle = '#fff'; screen.lineWidth = 2; screen.stroke();
      const text = agent.handle ?? agent.agent_id.slice(0, 10);
      const box = { x: x + r + 3, y: y - 8, w: screen.measureText(text).width + 6, h: 16 };
      if (s < 1 || placed.some((o) => box.x < o.x + o.w && o.x < box.x + box.w && box.y < o.y + o.h && o.y < box.y + box.h)) { hidden_labels++; continue; }
      placed.push(box); labelled.push(text);
      screen.fillStyle = 'rgba(255,255,255,0.85)'; screen.fillRect(box.x, box.y, box.w, box.h);
      screen.fillStyle = '#0b2545'; screen.fillText(text, box.x + 3, y);
    }
    canvas.dataset.labels = labelled.join(' ');
  }
`;
