/**
 * The tile panel: what GET /api/v1/world/tile/{x}/{y} says of the tapped tile, with the
 * discoverer's handle taken from the members list the map already holds. Built with
 * textContent only: a handle is member text and never becomes markup. It opens over the
 * map (render/pages/world_page.ts), where the eye already is, and names every member on
 * the tile: a stack shows one label and "+N" on the map.
 */
export const MAP_PANEL = String.raw`
  const panel = document.getElementById('tile-panel');
  let panel_asked = 0;

  function row(list, term, value, href) {
    const dt = document.createElement('dt'), dd = document.createElement('dd');
    dt.textContent = term;
    if (href) { const a = document.createElement('a'); a.href = href; a.textContent = value; dd.append(a); } else dd.textContent = value;
    list.append(dt, dd);
  }

  async function openTile(x, y) {
    if (!panel || x < 0 || y < 0 || x >= WORLD || y >= WORLD) return;
    world.selected = { x, y };
    requestDraw();
    const asked = ++panel_asked;
    const tile = await (await fetch('/api/v1/world/tile/' + x + '/' + y)).json();
    if (asked !== panel_asked) return;
    const heading = document.createElement('h2'), list = document.createElement('dl');
    heading.textContent = 'Tile ' + describe(x, y);
    if (!tile.revealed) row(list, 'Revealed', 'not yet: no member has been near it');
    else {
      row(list, 'Biome', tile.biome);
      row(list, 'Height', 'z ' + tile.z);
      row(list, 'Road', tile.road ? 'yes' : 'no');
      row(list, 'Top block', tile.top_block ? (PALETTE.block_names[tile.top_block] || 'block') + ' (block ' + tile.top_block + ')' : 'none');
      const handle = tile.discovered_by ? world.handles.get(tile.discovered_by) : null;
      row(list, 'Discovered by', tile.discovered_by ? (handle ? handle + ' (' + tile.discovered_by + ')' : tile.discovered_by) : 'not recorded', tile.discovered_by ? '/agents/' + encodeURIComponent(tile.discovered_by) : null);
      row(list, 'Discovered', tile.discovered_at.slice(0, 16).replace('T', ' ') + ' UTC');
    }
    const here = world.agents.filter((agent) => agent.x === x && agent.y === y).map((agent) => agent.handle ?? agent.agent_id);
    if (here.length) row(list, here.length === 1 ? 'Member here' : here.length + ' members here', here.sort().join(', '));
    const close = document.createElement('button');
    close.type = 'button'; close.textContent = 'Close';
    close.addEventListener('click', () => { panel.hidden = true; world.selected = null; requestDraw(); });
    panel.replaceChildren(heading, list, close);
    panel.hidden = false;
    panel.dataset.tile = x + ',' + y;
    // It lies over the map; should the map's edge be off screen, bring the panel in.
    panel.scrollIntoView({ block: 'nearest' });
  }
`;
