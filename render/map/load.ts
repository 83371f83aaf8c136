/**
 * What the map watches, all public reads: the revealed chunks, the members and what they
 * built. Asked again every REFRESH_MS while the tab is visible, and at once when it comes
 * back; a chunk is repainted only when its ETag moved (render/map/chunks.ts).
 */
export const MAP_LOAD = String.raw`
  const REFRESH_MS = 15000;
  const getJson = async (path) => { const response = await fetch(path, { cache: 'no-cache' }); if (!response.ok) throw new Error(path + ': HTTP ' + response.status); return response.json(); };

  async function refresh() {
    const [revealed, agents, structures] = await Promise.all([getJson('/api/v1/world/revealed'), getJson('/api/v1/world/agents'), getJson('/api/v1/world/structures')]);
    world.chunks = revealed.chunks;
    world.agents = agents.agents;
    world.handles = new Map(agents.agents.filter((agent) => agent.handle).map((agent) => [agent.agent_id, agent.handle]));
    world.structures = structures;
    requestDraw();
    await refreshChunks();
  }

  let refreshing = false;
  async function refreshNow() {
    if (refreshing || document.hidden) return;
    refreshing = true;
    try { await refresh(); delete canvas.dataset.error; canvas.dataset.refreshes = String(Number(canvas.dataset.refreshes || 0) + 1); }
    catch (error) { canvas.dataset.error = String(error); if (status_line) status_line.textContent = 'Could not refresh the map: ' + error.message; }
    finally { refreshing = false; }
  }

  /** Opens where the permalink says, or fitted to what is revealed. */
  async function start() {
    // Shown only once there is a script to drive them; without one the page shows the server's image.
    for (const id of ['map', 'map-tools', 'map-status']) document.getElementById(id)?.removeAttribute('hidden');
    resize();
    new ResizeObserver(resize).observe(canvas);
    const asked = canvas.dataset;
    if (asked.x !== undefined || asked.z !== undefined) {
      view.scale = Math.pow(2, clamp(Number(asked.z ?? 0), MIN_LEVEL, MAX_LEVEL));
      view.cx = asked.x !== undefined ? Number(asked.x) + 0.5 : WORLD / 2;
      view.cy = asked.y !== undefined ? Number(asked.y) + 0.5 : WORLD / 2;
      changed();
      await refreshNow();
    } else {
      try { world.chunks = (await getJson('/api/v1/world/revealed')).chunks; } catch (error) { canvas.dataset.error = String(error); }
      fit();
      const fitted = view.cx + ',' + view.cy + ',' + view.scale;
      await refreshNow();
      // Now the revealed tiles' own bounds are known: fit them closer, unless the visitor moved meanwhile.
      if (fitted === view.cx + ',' + view.cy + ',' + view.scale) fit();
    }
    setInterval(refreshNow, REFRESH_MS);
    document.addEventListener('visibilitychange', refreshNow);
  }
  start();
`;
