import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { WriteAct } from '../engine/act.js';
import { checkEmitted } from '../engine/events/emit_check.js';
import { EVENT_CATALOGUE, type OpeningEvent } from '../engine/events/event_catalogue.js';
import { eventDataTable } from '../engine/events/event_data_table.js';
import { eventTable } from '../engine/events/event_table.js';
import { ACT_ROUTES } from '../engine/events/signed_routes.js';
import { CATALOGUE, findAct } from '../engine/index.js';
import { InvariantError } from '../engine/invariant.js';
import type { LedgerEvent } from '../engine/ledger.js';

const PROTOCOL_DOC = new URL('../docs/protocol.md', import.meta.url);

/** The text between `<!-- name:begin -->` and `<!-- name:end -->`; with UPDATE_DOCS=1 it is rewritten first. */
function shownTable(name: string, made: string): string | undefined {
  const pattern = new RegExp(`<!-- ${name}:begin -->\\n([\\s\\S]*?)<!-- ${name}:end -->`);
  if (process.env.UPDATE_DOCS) {
    const text = readFileSync(PROTOCOL_DOC, 'utf8');
    writeFileSync(
      PROTOCOL_DOC,
      text.replace(pattern, () => `<!-- ${name}:begin -->\n${made}\n<!-- ${name}:end -->`),
    );
  }
  return pattern.exec(readFileSync(PROTOCOL_DOC, 'utf8'))?.[1]?.trimEnd();
}

const writeAct = (name: string) => findAct(name) as WriteAct;
const event = (event_type: LedgerEvent['event_type'], data: Record<string, unknown> = {}): LedgerEvent => ({
  event_type,
  actor: 'ag_0123456789abcdef',
  data,
});

describe("docs/protocol.md's tables of event types", () => {
  // To update them: UPDATE_DOCS=1 npx vitest run test/event_catalogue.test.ts
  it('are the tables the event catalogue and the data schemas make', () => {
    expect(shownTable('events', eventTable())).toBe(eventTable());
    expect(shownTable('event-data', eventDataTable())).toBe(eventDataTable());
  });
});

describe('the event catalogue and the act catalogue agree', () => {
  const write_acts = CATALOGUE.filter((act): act is WriteAct => act.effect === 'write');
  const openers = Object.values(EVENT_CATALOGUE).flatMap((declaration) =>
    declaration.class === 'opens_request' ? Object.keys(declaration.opened_by) : [],
  );

  it('names every signed write act as the opener of some event type, and only write acts', () => {
    const signed = write_acts.filter((act) => act.signer !== 'system').map((act) => act.name);
    expect(signed.filter((name) => !openers.includes(name))).toEqual([]);
    expect(openers.filter((name) => !signed.includes(name))).toEqual([]);
  });

  it('holds the route each act with a route of its own is signed to', () => {
    for (const act of write_acts.filter((act) => act.rest))
      expect(ACT_ROUTES[act.name as keyof typeof ACT_ROUTES], act.name).toBe(act.rest!.path);
    // Every route names a write act; grant_issue's is served by the host, which makes its token (api/observer/grant_routes.ts).
    for (const name of Object.keys(ACT_ROUTES)) expect(findAct(name)?.effect, name).toBe('write');
  });
});

describe('an act that strays from the event catalogue stops as it emits', () => {
  it('passes an act that emits what it declares', () => {
    expect(() =>
      checkEmitted(
        writeAct('world_dig'),
        [event('terrain_dug'), event('relic_found'), event('standing_awarded', { reason: 'relic_found' })],
        1,
      ),
    ).not.toThrow();
  });

  it('stops an act that opens its request with an event the catalogue does not list it as opening', () => {
    expect(() => checkEmitted(writeAct('world_dig'), [event('block_placed')], 1)).toThrow(InvariantError);
    expect(() => checkEmitted(writeAct('world_dig'), [event('ap_spent')], 1)).toThrow(/does not list world_dig/);
  });

  it('stops an act that spends AP without the catalogue saying it does', () => {
    expect(() => checkEmitted(writeAct('motion_cosponsor'), [event('motion_cosponsored')], 0)).not.toThrow();
    expect(() => checkEmitted(writeAct('motion_cosponsor'), [event('motion_cosponsored')], 2)).toThrow(
      /spent 2 AP, but the event catalogue does not declare that it spends AP/,
    );
    const move = (EVENT_CATALOGUE.agent_moved as OpeningEvent).opened_by.world_move;
    expect(move?.spends_ap).toBe(true);
  });

  it('stops an entry following a request it cannot come of: a relic behind a move, standing for a reason it has none of', () => {
    expect(() => checkEmitted(writeAct('world_move'), [event('agent_moved'), event('relic_found')], 1)).toThrow(
      /relic_found behind agent_moved/,
    );
    expect(() =>
      checkEmitted(
        writeAct('world_move'),
        [event('agent_moved'), event('standing_awarded', { reason: 'relic_found' })],
        1,
      ),
    ).toThrow(/standing_awarded:relic_found/);
  });

  it("stops a system act that emits a member's event, and a member's act that emits nothing", () => {
    expect(() => checkEmitted(writeAct('backup_taken'), [event('vote_cast')], 0)).toThrow(/not a system event/);
    expect(() => checkEmitted(writeAct('vote_cast'), [], 0)).toThrow(/without a ledger entry/);
  });
});
